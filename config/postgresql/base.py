"""Django's PostgreSQL backend (``ENGINE = "config.postgresql"``), failing fast while the server
refuses connections.

With the psycopg pool (``TABLEE_DB_POOL_SIZE``), a request waits up to
``TABLEE_DB_POOL_TIMEOUT`` seconds (10) for a connection: right while the pool is only busy (a
burst of pages waits its turn), wrong while the server is away: every page, and ``/healthz``, then
hung for 10 s before its 503. So the pool's connections are made by :class:`RecordingConnection`,
which notes in :data:`OUTAGE` whether the last attempt to reach the server failed; while it did,
a request waits at most :data:`OUTAGE_WAIT` for a connection (one still in the pool, or one made
as the server comes back), then gets the 503 page with ``Retry-After``. A request already waiting
when the outage begins stops after :data:`OUTAGE_WAIT` too. The first connection made again ends
the outage.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool, PoolTimeout

#: Seconds a request waits for a pooled connection while the server refuses new ones.
OUTAGE_WAIT = 1.0


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


class RecordingConnection(psycopg.Connection[Any]):
    """A pooled connection whose making is noted in :data:`OUTAGE`."""

    @classmethod
    def connect(cls, *args: Any, **kwargs: Any) -> RecordingConnection:
        try:
            connection = super().connect(*args, **kwargs)
        except psycopg.OperationalError:
            OUTAGE.refused()
            raise
        OUTAGE.connected()
        return connection


class ShortWaitPool:
    """The pool, as Django's backend uses it, with :meth:`getconn` bounded during an outage."""

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool

    def getconn(self, timeout: float | None = None) -> Any:
        full = self._pool.timeout if timeout is None else timeout
        if OUTAGE.active or full <= OUTAGE_WAIT:
            return self._pool.getconn(min(full, OUTAGE_WAIT))
        try:  # the first second: long enough for a busy pool to hand most requests a connection
            return self._pool.getconn(OUTAGE_WAIT)
        except PoolTimeout:
            if OUTAGE.active:  # the server went away meanwhile: the 503 now, not in 9 s
                raise
        return self._pool.getconn(full - OUTAGE_WAIT)  # only busy: the rest of the wait

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, settings_dict: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        options = settings_dict.get("OPTIONS") or {}
        if isinstance(options.get("pool"), dict):  # the pool makes its connections as RecordingConnection
            settings_dict["OPTIONS"] = {**options, "pool": {"connection_class": RecordingConnection, **options["pool"]}}
        super().__init__(settings_dict, *args, **kwargs)

    @property
    def pool(self) -> ShortWaitPool | None:
        pool = super().pool
        return None if pool is None else ShortWaitPool(pool)
