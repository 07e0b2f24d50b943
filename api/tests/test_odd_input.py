"""Issue 18 item 3: odd input never gives a server error, and every API error is JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from api.parsers import nul_path
from api.tests.conftest import assert_error, token_client
from characters.tests.conftest import make_character, valid_ambre_sheet
from rules.base import get_path, is_digits

pytestmark = pytest.mark.django_db

ODD_IDS = ("²", "١", "١٢", "1²", "%C2%B2")


def test_is_digits_accepts_ascii_digits_only() -> None:
    assert is_digits("0") and is_digits("123")
    for text in ("", "²", "١", "1²", "-1", " 1", "1.0", None, 1):
        assert not is_digits(text)
    assert get_path({"a": [5]}, "a.0") == 5
    assert get_path({"a": [5]}, "a.٠") is None


def _campaign_routes() -> list[str]:
    """Every ``/api/v1/campaigns/<str:campaign>/...`` route, with the placeholder kept."""
    out: list[str] = []

    def walk(patterns: Any, prefix: str) -> None:
        for p in patterns:
            text = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, text)
            elif (
                isinstance(p, URLPattern) and "<str:campaign>" in text and "<" not in text.replace("<str:campaign>", "")
            ):
                out.append("/" + text.replace("^", "").replace("\\Z", ""))

    walk(get_resolver().url_patterns, "")
    return sorted(set(out))


def test_unicode_digits_answer_404_on_every_campaign_route(table: Any) -> None:
    routes = _campaign_routes()
    assert len(routes) >= 10, routes
    client = token_client(table.gm)
    for route in routes:
        for odd in ODD_IDS:
            url = route.replace("<str:campaign>", odd)
            for method in ("get", "post"):
                response = getattr(client, method)(url, {}, format="json")
                assert response.status_code in (404, 405), (url, method, response.status_code)
                assert response["Content-Type"].startswith("application/json"), (url, response.content[:80])


def test_arabic_indic_one_is_not_campaign_one(table: Any) -> None:
    # The campaign's own id in Arabic-Indic digits: what str.isdigit() + int() used to resolve.
    arabic = str(table.campaign.pk).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    assert table.campaign.pk == int(arabic)
    assert_error(token_client(table.gm).get(f"/api/v1/campaigns/{arabic}/"), 404, "not_found")
    client = Client()
    client.force_login(table.gm)
    assert client.get("/characters/campaign/%C2%B2/").status_code == 404
    assert client.get(f"/characters/campaign/{arabic}/").status_code == 404
    assert client.get(f"/characters/campaign/{table.campaign.pk}/").status_code == 200


def test_nul_characters_are_refused_with_a_field_error(table: Any) -> None:
    assert nul_path({"a": [{"b": "x\x00"}]}) == "a.0.b"
    assert nul_path({"a": ["fine"]}) is None
    character = make_character(table, sheet=valid_ambre_sheet())
    sheet = valid_ambre_sheet()
    sheet["background"] = "a\x00b"
    response = token_client(table.player).put(
        f"/api/v1/characters/{character.pk}/sheet/", {"sheet": sheet, "version": character.version}, format="json"
    )
    assert_error(response, 400, "invalid", "sheet.background")
    body = response.json()
    assert body["errors"][0]["code"] == "null_characters_not_allowed"
    character.refresh_from_db()
    assert character.version == 1
    thread = _thread(table)
    request = {"body": "x", "rolls": [{"system_test": {"kind": "x\x00"}}]}
    response = token_client(table.gm).post(f"/api/v1/threads/{thread.pk}/posts/", request, format="json")
    assert_error(response, 400, "invalid", "rolls.0.system_test.kind")
    assert thread.posts.count() == 1


def test_a_newline_in_an_api_path_is_a_json_404(table: Any) -> None:
    for url in ("/api/v1/nothing%0A/", "/api/%0A", "/api/v1/campaigns/%0A/", "/api/v1/me/%0Aextra"):
        response = token_client(table.gm).get(url)
        assert response.status_code == 404, url
        assert response.json()["code"] == "not_found"


def test_an_oversized_body_is_a_json_413(table: Any, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    big = json.dumps({"title": "x" * 5000, "system": "ambre"})
    response = token_client(table.gm).generic("POST", "/api/v1/campaigns/", big, content_type="application/json")
    assert_error(response, 413, "too_large")


def test_a_server_error_under_the_api_is_json(table: Any, monkeypatch: Any) -> None:
    from api.views import account

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(account.MeView, "get", boom)
    client = token_client(table.gm)
    client.raise_request_exception = False
    assert_error(client.get("/api/v1/me/"), 500, "server_error")


def test_the_posting_limit_answers_429(table: Any, settings: Any) -> None:
    from django.core.cache import cache

    cache.clear()
    settings.TABLEE_POST_RATE = "1/m"
    thread = _thread(table)
    url = f"/api/v1/threads/{thread.pk}/posts/"
    client = token_client(table.player)
    assert client.post(url, {"body": "one"}, format="json").status_code == 201
    response = client.post(url, {"body": "two"}, format="json")
    body = assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) >= 1
    assert "trop vite" in body["errors"][0]["message"] or "too fast" in body["errors"][0]["message"]
    page = Client()
    page.force_login(table.player)
    response = page.post(f"/campaigns/threads/{thread.pk}/reply/", {"body": "three", "visibility": "public"})
    assert response.status_code == 429
    assert thread.posts.count() == 2  # the opening post and "one"
    cache.clear()


def _thread(table: Any) -> Any:
    from campaigns import services

    board = table.campaign.boards.first()
    return services.create_thread(table.gm, board, title="Le bal", body="Ouverture")
