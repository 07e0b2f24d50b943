"""Django's PostgreSQL backend (``ENGINE = "config.postgresql"``): the pool's wait bounded while the
server refuses connections.

With the psycopg pool (``TABLEE_DB_POOL_SIZE``), a request waits up to ``TABLEE_DB_POOL_TIMEOUT``
seconds (10) for a connection. That is right while the pool is only busy (a burst of pages waits
its turn) and while the server restarts (a request sent during a 3 s restart is answered when it is
back, not with an error page). It is wrong for a longer outage: every page, and ``/healthz``, then
hung 10 s before its 503. So the pool's connections are made by :class:`RecordingConnection`,
which notes in :data:`OUTAGE` since when the server refuses them; a request then waits only until
the outage is ``TABLEE_DB_POOL_TIMEOUT`` old (what a restart needs, as before), and :data:`OUTAGE_WAIT`
after that: past the first 10 s of an outage, pages answer 503 with ``Retry-After`` in a second.
The first connection made again ends the outage.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

#: Seconds a request waits for a pooled connection once the server has refused them for the pool's
#: whole timeout.
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
    """The pool, as Django's backend uses it, with :meth:`getconn`'s wait bounded during an outage."""

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool

    def getconn(self, timeout: float | None = None) -> Any:
        return self._pool.getconn(outage_wait(self._pool.timeout if timeout is None else timeout))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


def outage_wait(timeout: float) -> float:
    """How long a request waits for a connection: ``timeout``, or while the server refuses
    connections, until the outage is ``timeout`` old, and at least :data:`OUTAGE_WAIT`."""
    since = OUTAGE.since
    if since is None:
        return timeout
    return min(timeout, max(OUTAGE_WAIT, since + timeout - time.monotonic()))


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
