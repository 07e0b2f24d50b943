"""Fixtures of the API tests: clients authenticated by token or session."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from api import services


@pytest.fixture(autouse=True)
def _fresh_throttles(settings: Any) -> Any:
    """Throttle counters live in the cache: start every test from zero.

    The cache is a private in-memory one (clearing a shared Redis would wipe
    other processes' keys). Also a fast password hasher: the cast of a table
    is many users.
    """
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "api-tests"}}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def token_client(user: Any) -> APIClient:
    """An API client sending a fresh personal token of ``user``."""
    _token, key = services.create_token(user, name="tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def session_client(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def as_user() -> Any:
    """``as_user(user)`` → token-authenticated client; ``as_user(None)`` → anonymous."""

    def build(user: Any) -> APIClient:
        return token_client(user) if user is not None else APIClient()

    return build


def assert_error(response: Any, status: int, code: str, field: str | None = None) -> dict[str, Any]:
    """Check the one error format; with ``field``, that the field has an error."""
    assert response.status_code == status, (response.status_code, getattr(response, "data", response.content))
    body = response.json()
    assert set(body) == {"code", "detail", "errors"}, body
    assert body["code"] == code, body
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body


def valid_ambre_sheet(name: str = "Corwin") -> dict[str, Any]:
    """A default Ambre sheet made valid (one power is required, L55)."""
    import rules

    sheet = rules.get_system("ambre").default_sheet()
    sheet["name"] = name
    sheet["powers"] = [{"power": "atouts", "level": 5, "via_marelle_brisee": False, "selections": ""}]
    return sheet
