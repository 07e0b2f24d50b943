"""Celery beat, in-process, for the embedded defaults (no Redis, no worker).

With ``REDIS_URL`` unset, tasks run in-process (``task_always_eager``) and no
``celery beat`` runs: the web process runs ``CELERY_BEAT_SCHEDULE`` itself in
one daemon thread (the stale-run sweeper first, at start, then every entry on
its period). Started by :mod:`config.asgi`; ``TABLEE_INPROCESS_BEAT=0`` turns
it off. With a real broker, run ``./tablee beat`` instead.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)
_started = threading.Event()


def _due_first(name: str, period: float) -> float:
    """The sweeper runs at start (it re-sends runs a killed server left); the rest after one period."""
    return 0.0 if "sweep" in name else period


def run_forever(stop: threading.Event | None = None) -> None:
    from django.db import close_old_connections

    from config.celery import app

    schedule: dict[str, dict[str, Any]] = getattr(settings, "CELERY_BEAT_SCHEDULE", {})
    start = time.monotonic()
    due = {name: start + _due_first(name, float(e["schedule"])) for name, e in schedule.items()}
    stop = stop or threading.Event()
    while not stop.is_set():
        now = time.monotonic()
        for name, entry in schedule.items():
            if now < due[name]:
                continue
            due[name] = now + float(entry["schedule"])
            try:
                app.tasks[entry["task"]].apply()
            except Exception:
                logger.exception("in-process beat: %s failed", name)
            finally:
                close_old_connections()
        stop.wait(max(0.5, min(due.values(), default=now + 60) - time.monotonic()))


def start_if_embedded() -> bool:
    """Start the thread once, only on embedded defaults (eager tasks), never under pytest."""
    import os

    if not settings.CELERY_TASK_ALWAYS_EAGER or getattr(settings, "TESTING", False):
        return False
    if os.environ.get("TABLEE_INPROCESS_BEAT", "1") == "0" or _started.is_set():
        return False
    _started.set()
    threading.Thread(target=run_forever, name="tablee-inprocess-beat", daemon=True).start()
    logger.info("in-process beat started (embedded defaults)")
    return True
