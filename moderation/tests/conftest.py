"""Fixtures of the moderation tests."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client


@pytest.fixture(autouse=True)
def _clean(settings: Any) -> Any:
    """Rate-limit counters live in the cache: start every test clean. Fast hasher."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def verify_email(user: Any) -> None:
    """Mark the user's address verified (sign-up requires it before logging in)."""
    from allauth.account.models import EmailAddress

    EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})


@pytest.fixture
def thread(table: Any) -> Any:
    from campaigns import services

    board = table.campaign.boards.order_by("position").first()
    return services.create_thread(table.gm, board, title="La cour de Rebma", body="Le rideau se lève.")


@pytest.fixture
def player_post(table: Any, thread: Any) -> Any:
    from campaigns import services

    return services.create_post(table.player, thread, body="Je tire mon épée.")


@pytest.fixture
def other_table(db: Any) -> Any:
    """Another (public) campaign: its GM must not moderate ``table``."""
    from conftest import make_table

    return make_table("sms", is_public=True, prefix="o")
