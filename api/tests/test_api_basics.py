"""Schema, docs, error format, throttling, current user, rule systems."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from api.tests.conftest import assert_error, token_client
from conftest import make_user

pytestmark = pytest.mark.django_db


def test_it_serves_a_schema_that_validates() -> None:
    from drf_spectacular.validation import validate_schema

    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    validate_schema(schema)  # raises on an invalid OpenAPI 3 document
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/threads/{thread_id}/posts/" in schema["paths"]
    assert "tokenAuth" in schema["components"]["securitySchemes"]
    post_list = schema["paths"]["/api/v1/threads/{thread_id}/posts/"]["get"]
    assert {"200", "401", "404", "429"} <= set(post_list["responses"])
    assert "cursor" in [p["name"] for p in post_list["parameters"]]
    sheet_put = schema["paths"]["/api/v1/characters/{character_id}/sheet/"]["put"]
    assert {"412", "428"} <= set(sheet_put["responses"])


def test_it_serves_browsable_docs_without_a_cdn() -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html and "cdn.jsdelivr" not in html
    assert APIClient().get("/api/redoc/").status_code == 200


def test_it_answers_unknown_api_urls_with_the_json_error_format() -> None:
    body = assert_error(APIClient().get("/api/v1/nothing-here/"), 404, "not_found")
    assert body["errors"] == []
    assert_error(APIClient().post("/api/v1/nothing-here/", {}), 404, "not_found")
    redirect = APIClient().get("/api/v1/systems")
    assert redirect.status_code == 301 and redirect["Location"].endswith("/api/v1/systems/")


def test_it_throttles_per_member(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": "3/min"},
    }
    alice, bob = make_user("alice"), make_user("bob")
    api = token_client(alice)
    for _index in range(3):
        assert api.get("/api/v1/me/").status_code == 200
    body = assert_error(api.get("/api/v1/me/"), 429, "throttled")
    assert body["detail"]
    assert int(api.get("/api/v1/me/")["Retry-After"]) > 0
    # Another member from the same address is not affected by alice's quota.
    assert token_client(bob).get("/api/v1/me/").status_code == 200


def test_it_throttles_per_ip_whoever_asks(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "ip": "4/min"},
    }
    anonymous = APIClient()
    for _index in range(4):
        assert anonymous.get("/api/v1/systems/").status_code == 200
    assert_error(anonymous.get("/api/v1/systems/"), 429, "throttled")
    # Same address, now with a token: still limited (per IP).
    assert_error(token_client(make_user("alice")).get("/api/v1/me/"), 429, "throttled")
    other = APIClient(REMOTE_ADDR="10.1.2.3")
    assert other.get("/api/v1/systems/").status_code == 200
    cache.clear()


def test_it_shows_and_updates_the_current_user() -> None:
    user = make_user("alice")
    api = token_client(user)
    body = api.get("/api/v1/me/").json()
    assert body["username"] == "alice" and body["language"] == "fr" and body["is_moderator"] is False
    response = api.patch("/api/v1/me/", {"display_name": "Alice D.", "language": "en"}, format="json")
    assert response.status_code == 200
    assert response.json()["display_name"] == "Alice D." and response.json()["language"] == "en"
    user.profile.refresh_from_db()
    assert user.profile.display_name == "Alice D." and user.profile.language == "en"


def test_it_rejects_a_bad_profile_with_field_errors_in_the_members_language() -> None:
    user = make_user("alice")
    api = token_client(user)
    body = assert_error(api.patch("/api/v1/me/", {"language": "de"}, format="json"), 400, "invalid", "language")
    assert body["errors"][0]["code"] == "invalid_choice"
    assert "valide" in body["errors"][0]["message"]  # French by default
    assert body["detail"] == "Saisie invalide."
    user.profile.refresh_from_db()
    assert user.profile.language == "fr"
    api.patch("/api/v1/me/", {"language": "en"}, format="json")
    body = assert_error(api.patch("/api/v1/me/", {"bio": "x" * 2001}, format="json"), 400, "invalid", "bio")
    assert body["detail"] == "Invalid input."


def test_it_requires_authentication_for_me() -> None:
    response = APIClient().get("/api/v1/me/")
    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Token"


def test_it_accepts_session_authentication_with_csrf() -> None:
    user = make_user("alice")
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(user)
    assert api.get("/api/v1/me/").status_code == 200
    # A write with a session but without the CSRF token is refused.
    assert_error(api.patch("/api/v1/me/", {"bio": "x"}, format="json"), 403, "permission_denied")


# ---------------------------------------------------------------------------
# Rule systems
# ---------------------------------------------------------------------------
def test_it_lists_and_describes_the_rule_systems() -> None:
    api = APIClient()
    slugs = [s["slug"] for s in api.get("/api/v1/systems/").json()]
    assert slugs == ["ambre", "clefs-de-l-aube", "sms", "altaride"]
    described = api.get("/api/v1/systems/ambre/").json()
    assert described["slug"] == "ambre" and described["diceless"] is True
    assert described["sheet_fields"] and {"path", "kind", "label"} <= set(described["sheet_fields"][0])
    assert_error(api.get("/api/v1/systems/d-and-d/"), 404, "not_found")


def test_it_computes_odds_of_a_declared_test() -> None:
    import rules

    system = rules.get_system("sms")
    request = {"kind": "action", "score": 12, "die": 20}
    expected = system.odds(dict(request))
    response = APIClient().post("/api/v1/systems/sms/odds/", {"request": request}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"system": "sms", "kind": "action", "odds": expected}


@pytest.mark.parametrize(
    ("payload", "field", "code"),
    [
        ({"request": {"kind": "nope"}}, "request.kind", "invalid_choice"),
        ({"request": {}}, "request", None),
        ({}, "request", "required"),
        ({"request": "2d6"}, "request", "not_a_dict"),
    ],
)
def test_it_rejects_bad_odds_requests(payload: dict[str, Any], field: str, code: str | None) -> None:
    body = assert_error(APIClient().post("/api/v1/systems/sms/odds/", payload, format="json"), 400, "invalid", field)
    if code:
        assert code in [e["code"] for e in body["errors"]]


def test_it_throttles_anonymous_requests_harder(settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "anon": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    anonymous = APIClient()
    assert anonymous.get("/api/v1/systems/").status_code == 200
    assert anonymous.get("/api/v1/systems/").status_code == 200
    assert_error(anonymous.get("/api/v1/systems/"), 429, "throttled")
    # A member from the same address is not counted as anonymous.
    assert token_client(make_user("alice")).get("/api/v1/systems/").status_code == 200


def test_it_answers_404_for_ids_too_large_for_the_database(table: Any) -> None:
    api = token_client(table.gm)
    assert_error(api.get("/api/v1/threads/99999999999999999999999/posts/"), 404, "not_found")
    body = assert_error(
        api.post(f"/api/v1/campaigns/{table.campaign.pk}/auctions/", {"characters": [10**30]}, format="json"),
        400,
        "invalid",
        "characters.0",
    )
    assert body["errors"][0]["code"] == "max_value"


def test_it_explains_a_malformed_json_body_in_french() -> None:
    client = token_client(make_user("qa-json"))
    response = client.post("/api/v1/me/notifications/read/", "{not json", content_type="application/json")
    body = assert_error(response, 400, "parse_error")
    assert body["detail"] == "Corps de requête mal formé : envoyez du JSON valide."
