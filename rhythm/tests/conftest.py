"""Fixtures of the rhythm tests."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _clear_cache() -> Any:
    """Posting-rate counters live in the cache (this test process's own keys): start every test clean."""
    cache.clear()
    yield
    cache.clear()
