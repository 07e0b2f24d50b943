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

The pool also tries again steadily while the server refuses it (:class:`SteadyReconnectPool`):
psycopg's own attempts back off 1, 2, 4 s, so a 1.5 s restart could keep requests waiting until
the 3rd second or past their timeout. Here an attempt follows within half a second, so a request
waiting through a restart is served within half a second of the server's return. Repeated
"error connecting" warnings are logged once per half minute (:class:`config.postgresql.outage.OutageLogFilter`).

Every connection, pooled or not, reads ``timestamptz`` values with psycopg's C loader when the session
is in UTC (:mod:`config.postgresql.timestamps`).
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from config.postgresql.outage import OUTAGE
from config.postgresql.timestamps import adapters_for

#: Seconds a request waits for a pooled connection once the server has refused them for the pool's
#: whole timeout.
OUTAGE_WAIT = 1.0
#: Most seconds between two attempts of the pool to connect again while the server refuses it.
RECONNECT_EVERY = 0.5


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


class SteadyAttempt(AttemptWithBackoff):
    """psycopg's reconnection attempt, first again after 0.2 s, then at most :data:`RECONNECT_EVERY`
    apart (psycopg: 1 s, doubling), until the pool's ``reconnect_timeout`` as before."""

    INITIAL_DELAY = 0.2
    DELAY_BACKOFF = 1.5

    def update_delay(self, now: float) -> None:
        super().update_delay(now)
        self.delay = min(self.delay, RECONNECT_EVERY)


class SteadyReconnectPool(ConnectionPool[Any]):
    """psycopg's pool, whose new connections are attempted steadily (:class:`SteadyAttempt`)."""

    def _add_connection(self, attempt: AttemptWithBackoff | None, growing: bool = False) -> None:
        super()._add_connection(attempt or SteadyAttempt(timeout=self.reconnect_timeout), growing)


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

    def get_connection_params(self) -> dict[str, Any]:
        """Django's parameters, ``timestamptz`` read in C in a UTC session (:mod:`config.postgresql.timestamps`)."""
        params = super().get_connection_params()
        if "context" in params:
            params["context"] = adapters_for(params["context"], settings.USE_TZ, self.timezone)
        return params

    @property
    def pool(self) -> ShortWaitPool | None:
        """Django's pool (``django.db.backends.postgresql.base``, 5.2), made a :class:`SteadyReconnectPool`."""
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not pool_options:
            return None
        if self.alias not in self._connection_pools:
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                raise ImproperlyConfigured("Pooling doesn't support persistent connections.")
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # as Django: it sets the mode itself later on
            checks = self.settings_dict["CONN_HEALTH_CHECKS"]
            pool = SteadyReconnectPool(
                kwargs=connect_kwargs,
                open=False,
                configure=self._configure_connection,
                check=ConnectionPool.check_connection if checks else None,
                **({} if pool_options is True else pool_options),
            )
            self._connection_pools.setdefault(self.alias, pool)  # the first thread's wins
        return ShortWaitPool(self._connection_pools[self.alias])
