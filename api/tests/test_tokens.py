"""Personal tokens: the page, the API, authentication with a token."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from api import services
from api.models import ApiToken, digest_key
from api.tests.conftest import assert_error, token_client
from conftest import make_user

pytestmark = pytest.mark.django_db


def test_it_creates_a_token_on_the_page_and_shows_the_key_once(client: Any) -> None:
    user = make_user("alice")
    client.force_login(user)
    response = client.post(reverse("api:token-page"), {"name": "dice bot"})
    assert response.status_code == 200
    token = ApiToken.objects.get(user=user)
    key = response.context["new_key"]
    assert key.startswith("tbl_") and len(key) > 40
    assert token.digest == digest_key(key) and key not in token.digest
    assert key in response.content.decode()
    # The next visit does not show it again.
    again = client.get(reverse("api:token-page"))
    assert key not in again.content.decode()
    assert token.prefix in again.content.decode()


def test_it_refuses_an_empty_name_on_the_page(client: Any) -> None:
    user = make_user("alice")
    client.force_login(user)
    response = client.post(reverse("api:token-page"), {"name": "  "})
    assert response.status_code == 200
    assert response.context["form"].errors["name"]
    assert not ApiToken.objects.exists()


def test_it_requires_login_for_the_page(client: Any) -> None:
    response = client.get(reverse("api:token-page"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_it_revokes_a_token_from_the_page(client: Any) -> None:
    user = make_user("alice")
    token, key = services.create_token(user, name="old")
    client.force_login(user)
    response = client.post(reverse("api:token-revoke", args=[token.pk]))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert_error(api.get("/api/v1/me/"), 401, "invalid_token")


def test_it_cannot_revoke_someone_elses_token(client: Any) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    token, _key = services.create_token(alice, name="mine")
    client.force_login(bob)
    assert client.post(reverse("api:token-revoke", args=[token.pk])).status_code == 404
    assert client.get(reverse("api:token-revoke", args=[token.pk])).status_code == 405
    token.refresh_from_db()
    assert token.revoked_at is None


def test_it_links_the_page_from_the_profile(client: Any) -> None:
    client.force_login(make_user("alice"))
    assert reverse("api:token-page") in client.get(reverse("accounts:profile")).content.decode()


def test_it_authenticates_with_token_or_bearer_and_records_use() -> None:
    user = make_user("alice")
    token, key = services.create_token(user, name="bot")
    for keyword in ("Token", "Bearer"):
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"{keyword} {key}")
        response = api.get("/api/v1/me/")
        assert response.status_code == 200
        assert response.json()["username"] == "alice"
    token.refresh_from_db()
    assert token.last_used_at is not None


@pytest.mark.parametrize("header", ["Token", "Token a b", "Token tbl_wrong", "Bearer ", "Token \u00e9t\u00e9"])
def test_it_answers_401_for_bad_token_headers(header: str) -> None:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=header)
    response = api.get("/api/v1/me/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] in {"authentication_failed", "invalid_token", "invalid_token_header"}


def test_it_refuses_tokens_of_inactive_accounts() -> None:
    user = make_user("alice")
    _token, key = services.create_token(user, name="bot")
    user.is_active = False
    user.save()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/me/").status_code == 401


def test_it_manages_tokens_through_the_api() -> None:
    user = make_user("alice")
    api = token_client(user)
    created = api.post("/api/v1/tokens/", {"name": "second"}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert body["key"].startswith("tbl_") and body["revoked_at"] is None
    listed = api.get("/api/v1/tokens/").json()
    assert listed["count"] == 2 and all("key" not in t for t in listed["results"])
    assert api.delete(f"/api/v1/tokens/{body['id']}/").status_code == 204
    assert ApiToken.objects.get(pk=body["id"]).revoked_at is not None


def test_it_rejects_a_bad_token_name_with_a_field_error() -> None:
    api = token_client(make_user("alice"))
    assert_error(api.post("/api/v1/tokens/", {"name": ""}, format="json"), 400, "invalid", field="name")
    body = assert_error(api.post("/api/v1/tokens/", {"name": "x" * 81}, format="json"), 400, "invalid", "name")
    assert body["errors"][0]["code"] == "max_length"
    assert body["errors"][0]["message"].startswith("Assurez-vous que ce champ comporte au plus 80")
    assert ApiToken.objects.count() == 1


def test_it_limits_active_tokens_per_member() -> None:
    user = make_user("alice")
    for index in range(services.MAX_ACTIVE_TOKENS):
        services.create_token(user, name=f"t{index}")
    api = APIClient()
    api.force_authenticate(user)
    body = assert_error(api.post("/api/v1/tokens/", {"name": "one more"}, format="json"), 400, "invalid", "name")
    assert body["errors"][0]["code"] == "too_many_tokens"
    assert ApiToken.objects.filter(user=user).count() == services.MAX_ACTIVE_TOKENS


def test_it_hides_other_members_tokens_in_the_api() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    token, _key = services.create_token(alice, name="mine")
    api = token_client(bob)
    assert api.get("/api/v1/tokens/").json()["count"] == 1
    assert_error(api.delete(f"/api/v1/tokens/{token.pk}/"), 404, "not_found")
    token.refresh_from_db()
    assert token.revoked_at is None


def test_it_requires_authentication_for_tokens() -> None:
    assert_error(APIClient().get("/api/v1/tokens/"), 401, "not_authenticated")
    assert_error(APIClient().post("/api/v1/tokens/", {"name": "x"}, format="json"), 401, "not_authenticated")
