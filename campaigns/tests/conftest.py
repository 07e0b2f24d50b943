"""Fixtures of the campaigns tests."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """The cast has seven users: hash their passwords quickly."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _clear_cache() -> Any:
    """Rate-limit counters live in the cache: start every test clean."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def thread(table: Any) -> Any:
    from campaigns import services

    board = table.campaign.boards.order_by("position").first()
    return services.create_thread(table.gm, board, title="La cour de Rebma", body="Le rideau se lève.")
