"""Redis is optional at run time: with the cache server unreachable, the site keeps working.

The cache points at a port where nothing listens; rate limits (posting),
DRF throttles and allauth's login limits fail open with a log line.
"""

from __future__ import annotations

import contextvars
import logging
import os
import time
from typing import Any

import pytest
from django.core.cache import cache, caches
from django.test import Client

from campaigns.models import Post, Thread

UNREACHABLE = {
    "default": {
        "BACKEND": "config.cache.FailOpenRedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }
}


@pytest.fixture
def redis_down(settings: Any, monkeypatch: Any) -> None:
    from config import cache as cache_module

    monkeypatch.setattr(cache_module, "_SHARED", {})  # a fresh breaker: this test sees Redis fail first
    settings.CACHES = UNREACHABLE
    settings.TABLEE_POST_RATE = "10/m"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_thread(table: Any) -> Thread:
    board = table.campaign.boards.first()
    return Thread.objects.create(board=board, campaign=table.campaign, title="Scène 1", created_by=table.gm)


def test_the_cache_answers_as_an_empty_cache_and_logs(redis_down: None, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="tablee.cache"):
        assert cache.get("k", "fallback") == "fallback"
        cache.set("k", 1)
        assert cache.add("k", 1) is True  # a lock (allauth) is granted
        with pytest.raises(ValueError):
            cache.incr("k")
    assert "Redis unavailable" in caplog.text


@pytest.mark.django_db
def test_login_pages_and_posting_work_without_redis(redis_down: None, table: Any) -> None:
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=table.player, email=table.player.email, verified=True, primary=True)
    thread = make_thread(table)
    client = Client()
    response = client.post("/accounts/login/", {"login": "player", "password": "pw-player-12345"})
    assert response.status_code == 302
    assert response.wsgi_request.user.is_authenticated
    assert client.get(f"/campaigns/threads/{thread.pk}/").status_code == 200
    for n in range(2):
        response = client.post(
            f"/campaigns/threads/{thread.pk}/reply/", {"body": f"Sans Redis {n}", "visibility": "public"}
        )
        assert response.status_code == 302, response.content[:500]
    assert list(Post.objects.filter(thread=thread).values_list("body", flat=True).order_by("pk")) == [
        "Sans Redis 0",
        "Sans Redis 1",
    ]


@pytest.mark.django_db
def test_the_api_works_without_redis(redis_down: None, table: Any) -> None:
    from api.tests.conftest import token_client

    thread = make_thread(table)
    client = token_client(table.player)
    assert client.get("/api/v1/me/").status_code == 200
    response = client.post(f"/api/v1/threads/{thread.pk}/posts/", {"body": "Par l'API"}, format="json")
    assert response.status_code == 201, response.content[:500]
    assert client.get(f"/api/v1/threads/{thread.pk}/posts/").status_code == 200
    assert Post.objects.filter(thread=thread, body="Par l'API").count() == 1


def _in_a_request(function: Any) -> Any:
    """Run ``function`` as the ASGI handler runs a request: in a copy of the current context, where
    Django's cache handler makes a cache instance of its own (``config.asgi_handler``)."""
    return contextvars.copy_context().run(function)


def test_once_redis_failed_the_next_requests_neither_wait_nor_log(redis_down: None, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="tablee.cache"):
        assert _in_a_request(lambda: cache.get("k", "fallback")) == "fallback"  # tries, fails, logs
        began = time.monotonic()
        for _ in range(20):  # twenty later requests, each with its own cache instance
            assert _in_a_request(lambda: cache.get("k", "fallback")) == "fallback"
        later = time.monotonic() - began
    assert caplog.text.count("Redis unavailable") == 1
    assert later < 0.1  # none tried the dead server again (each try is refused or times out)
    first, second = _in_a_request(lambda: caches["default"]), _in_a_request(lambda: caches["default"])
    assert first is not second  # each request has its instance; they share one breaker


@pytest.mark.services
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
def test_requests_share_one_redis_connection(settings: Any) -> None:
    """Before, each request's cache instance made its own client and a new TCP connection."""

    def connection_id() -> int:
        cache.get("k")
        return int(caches["default"]._cache.get_client("k").client_id())

    ids = {_in_a_request(connection_id) for _ in range(10)}
    assert len(ids) == 1, ids
