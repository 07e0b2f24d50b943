"""Writes are idempotent (one-time form tokens, API Idempotency-Key) and JSON depth is bounded."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from django.test import Client

from accounts.models import IdempotentWrite
from campaigns.models import Post, Thread
from config.jsonlimits import JSONTooDeep, check_json_depth


@pytest.fixture(autouse=True)
def _private_cache(settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "idem"}}
    settings.TABLEE_POST_RATE = "0"


def make_thread(table: Any) -> Thread:
    board = table.campaign.boards.first()
    return Thread.objects.create(board=board, campaign=table.campaign, title="Scène 1", created_by=table.gm)


def once_token(html: str) -> str:
    match = re.search(r'name="once" value="([^"]+)"', html)
    assert match, "the form carries a one-time token"
    return match.group(1)


@pytest.mark.django_db
def test_a_double_submitted_post_creates_one_post_and_both_get_its_answer(table: Any) -> None:
    thread = make_thread(table)
    client = Client()
    client.force_login(table.player)
    page = client.get(f"/campaigns/threads/{thread.pk}/").content.decode()
    token = once_token(page)
    data = {"body": "Une seule fois", "visibility": "public", "rolls": "1d6 Test", "once": token}
    first = client.post(f"/campaigns/threads/{thread.pk}/reply/", data)
    second = client.post(f"/campaigns/threads/{thread.pk}/reply/", data)
    assert first.status_code == second.status_code == 302
    assert second["Location"] == first["Location"]
    assert second["Idempotent-Replayed"] == "true"
    post = Post.objects.get(thread=thread)
    assert post.body == "Une seule fois"
    assert post.rolls.count() == 1
    # A new render has a new token: a second, deliberate post is possible.
    again = once_token(client.get(f"/campaigns/threads/{thread.pk}/").content.decode())
    assert again != token
    client.post(f"/campaigns/threads/{thread.pk}/reply/", {**data, "once": again})
    assert Post.objects.filter(thread=thread).count() == 2


@pytest.mark.django_db
def test_a_refused_form_keeps_its_token_usable(table: Any) -> None:
    thread = make_thread(table)
    client = Client()
    client.force_login(table.player)
    token = once_token(client.get(f"/campaigns/threads/{thread.pk}/").content.decode())
    refused = client.post(f"/campaigns/threads/{thread.pk}/reply/", {"body": "", "visibility": "public", "once": token})
    assert refused.status_code == 400
    assert once_token(refused.content.decode()), "the re-rendered form has a token"
    assert not IdempotentWrite.objects.exists()
    fixed = client.post(
        f"/campaigns/threads/{thread.pk}/reply/", {"body": "Corrigé", "visibility": "public", "once": token}
    )
    assert fixed.status_code == 302
    assert list(Post.objects.filter(thread=thread).values_list("body", flat=True)) == ["Corrigé"]


@pytest.mark.django_db
def test_another_member_with_the_same_token_gets_nothing_of_the_first(table: Any) -> None:
    thread = make_thread(table)
    one, two = Client(), Client()
    one.force_login(table.player)
    two.force_login(table.player2)
    data = {"body": "Moi", "visibility": "public", "once": "same-token"}
    one.post(f"/campaigns/threads/{thread.pk}/reply/", data)
    response = two.post(f"/campaigns/threads/{thread.pk}/reply/", {**data, "body": "Toi"})
    assert response.status_code == 302
    assert not response.has_header("Idempotent-Replayed")
    assert sorted(Post.objects.filter(thread=thread).values_list("body", flat=True)) == ["Moi", "Toi"]


@pytest.mark.django_db
def test_thread_purchase_bid_and_award_forms_carry_a_token() -> None:
    from django.template.loader import get_template

    for name in (
        "campaigns/thread_create.html",
        "campaigns/partials/post_form.html",
        "progression/_purchase_form.html",
        "progression/session_awards.html",
        "ambre/_auction_panel.html",
    ):
        source = get_template(name).template.source
        assert "{% once_field %}" in source, name


@pytest.mark.django_db
def test_the_api_replays_an_idempotency_key(table: Any) -> None:
    from api.tests.conftest import token_client

    thread = make_thread(table)
    client = token_client(table.player)
    url = f"/api/v1/threads/{thread.pk}/posts/"
    first = client.post(url, {"body": "Rejoué"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    second = client.post(url, {"body": "Rejoué"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second["Content-Type"] == first["Content-Type"]
    assert Post.objects.filter(thread=thread).count() == 1
    # The same key for another request is refused; another key writes again.
    other = client.post(url, {"body": "Autre chose"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"
    client.post(url, {"body": "Rejoué"}, format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    assert Post.objects.filter(thread=thread).count() == 2


@pytest.mark.django_db
def test_the_api_forgets_a_key_after_its_lifetime(table: Any, settings: Any) -> None:
    from api.tests.conftest import token_client

    thread = make_thread(table)
    client = token_client(table.player)
    url = f"/api/v1/threads/{thread.pk}/posts/"
    client.post(url, {"body": "Vieux"}, format="json", HTTP_IDEMPOTENCY_KEY="old")
    settings.TABLEE_IDEMPOTENCY_SECONDS = -1
    response = client.post(url, {"body": "Vieux"}, format="json", HTTP_IDEMPOTENCY_KEY="old")
    assert response.status_code == 201
    assert Post.objects.filter(thread=thread).count() == 2


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def test_the_depth_check_counts_brackets_outside_strings_only() -> None:
    check_json_depth('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"[[["}', limit=2)
    check_json_depth("[[[1]]]", limit=3)
    with pytest.raises(JSONTooDeep):
        check_json_depth("[[[[1]]]]", limit=3)
    start = time.perf_counter()
    with pytest.raises(JSONTooDeep):
        check_json_depth("[" * 2_000_000 + "]" * 2_000_000)
    assert time.perf_counter() - start < 2


@pytest.mark.django_db
def test_a_sheet_nested_500_levels_is_a_clean_400_at_once(table: Any) -> None:
    from api.tests.conftest import token_client

    client = token_client(table.player)
    body = '{"name": "Profond", "sheet": ' + nested(500) + "}"
    start = time.perf_counter()
    response = client.post(
        f"/api/v1/campaigns/{table.campaign.slug}/characters/", body, content_type="application/json"
    )
    assert time.perf_counter() - start < 2
    assert response.status_code == 400
    payload = response.json()
    assert payload["code"] == "too_deep"
    assert payload["detail"] == "Ce document JSON est trop imbriqué (plus de 32 niveaux)."


@pytest.mark.django_db
def test_a_deep_json_form_field_is_refused_with_a_message(table: Any) -> None:
    from combat.forms import ParticipantForm  # noqa: F401  (the form exists)
    from progression.forms import JSONField  # type: ignore[attr-defined]

    field = JSONField(expect="dict")
    with pytest.raises(Exception) as raised:
        field.clean(nested(500))
    assert "JSON" in str(raised.value)
    assert json.loads(nested(3)) == field.clean(nested(3))


@pytest.mark.django_db
def test_each_action_of_a_form_is_its_own_write(table: Any) -> None:
    from django.http import HttpResponse
    from django.test import RequestFactory

    from config.idempotency import IdempotencyMiddleware

    calls: list[str] = []

    def view(request: Any) -> HttpResponse:
        calls.append(request.POST["action"])
        return HttpResponse(request.POST["action"])

    middleware = IdempotencyMiddleware(view)
    factory = RequestFactory()

    def send(action: str) -> bytes:
        request = factory.post("/progression/sessions/1/awards/", {"once": "tok", "action": action})
        request.user = table.gm
        return middleware(request).content

    assert send("preview") == b"preview"
    assert send("confirm") == b"confirm"
    assert send("confirm") == b"confirm"
    assert calls == ["preview", "confirm"]
