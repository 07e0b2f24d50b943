"""Since when this process's connections to PostgreSQL are refused (:data:`OUTAGE`), and a logging
filter for psycopg's pool that logs an outage once, not at each attempt. No Django import: the
logging configuration loads this module before the apps."""

from __future__ import annotations

import logging
import threading
import time

#: During an outage, the pool's "error connecting" warning is logged once per this many seconds.
REPEAT_LOG_SECONDS = 30.0


class Outage:
    """Whether the last attempt of this process to connect to the server failed, and when."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None

    def refused(self) -> None:
        with self._lock:
            if self.since is None:
                self.since = time.monotonic()

    def connected(self) -> None:
        with self._lock:
            self.since = None

    @property
    def active(self) -> bool:
        return self.since is not None


OUTAGE = Outage()


class OutageLogFilter(logging.Filter):
    """Lets through psycopg's "error connecting" warning when an outage begins and then once per
    :data:`REPEAT_LOG_SECONDS`, not at each of the pool's attempts (two a second)."""

    def __init__(self) -> None:
        super().__init__()
        self._outage: float | None = None
        self._last = float("-inf")

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("error connecting"):
            return True
        now = time.monotonic()
        if OUTAGE.since == self._outage and now - self._last < REPEAT_LOG_SECONDS:
            return False
        self._outage, self._last = OUTAGE.since, now
        return True
