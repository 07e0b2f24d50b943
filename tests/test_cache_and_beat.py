"""The cache never empties the Redis database it shares with the broker; the in-process beat."""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

import pytest


@pytest.mark.services
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
def test_clearing_the_cache_deletes_only_its_own_keys(settings: Any) -> None:
    import redis
    from django.core.cache import caches

    tag = uuid.uuid4().hex[:8]
    settings.CACHES = {
        "default": settings.CACHES["default"],
        "probe": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": f"probe-{tag}",
        },
        "other": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": f"other-{tag}",
        },
    }
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    broker_key = f"celery-like-queue-{tag}"
    client.rpush(broker_key, "a task message")
    probe, other = caches["probe"], caches["other"]
    try:
        probe.set_many({f"k{n}": n for n in range(1200)})  # more than one SCAN batch
        other.set("kept", 1)
        probe.clear()
        assert probe.get("k1") is None and probe.get("k1199") is None
        assert other.get("kept") == 1
        assert client.lrange(broker_key, 0, -1) == [b"a task message"]  # Django's RedisCache.clear() would FLUSHDB
    finally:
        client.delete(broker_key)
        other.clear()


def test_the_test_cache_has_a_prefix_of_its_own(settings: Any) -> None:
    if settings.CACHES["default"]["BACKEND"] == "config.cache.FailOpenRedisCache":
        assert settings.CACHES["default"]["KEY_PREFIX"].endswith(f"-test-{os.getpid()}")


def test_the_in_process_beat_runs_the_sweeper_first(monkeypatch: Any, db: Any) -> None:
    from config import inprocess_beat
    from config.celery import app

    ran: list[str] = []
    stop = threading.Event()

    class Task:
        def __init__(self, name: str) -> None:
            self.name = name

        def apply(self) -> None:
            ran.append(self.name)
            stop.set()

    monkeypatch.setattr(
        app,
        "_tasks",
        {name: Task(name) for name in ("progression.sweep_stale_runs", "campaigns.tasks.send_notification_digests")},
        raising=False,
    )
    monkeypatch.setattr(type(app), "tasks", property(lambda self: self._tasks))
    inprocess_beat.run_forever(stop)
    assert ran == ["progression.sweep_stale_runs"]  # at start; the digest waits for its period


def test_the_in_process_beat_never_starts_under_tests_or_with_a_broker(settings: Any) -> None:
    from config import inprocess_beat

    assert inprocess_beat.start_if_embedded() is False
