"""While PostgreSQL refuses connections, a pooled web process rides out a restart as before (a request
waits up to ``TABLEE_DB_POOL_TIMEOUT`` for the server) but, once the outage is that old, answers
503 within a second instead of after the pool's whole wait; it is back when the server is.

``config/postgresql/base.py``: the pool's connections note since when the server refuses them, and the
pool tries again at most half a second apart (psycopg backs off 1, 2, 4 s: a 1.5 s restart could
outlast a request's wait); ``config/postgresql/outage.py`` logs an outage once, not per attempt. The
end-to-end tests run a real uvicorn process (the pool is on outside pytest) reaching PostgreSQL
through a TCP proxy that stages the outage (``tests/tcpproxy.py``).
"""

from __future__ import annotations

import http.client
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from django.conf import settings

from config.postgresql import base as backend
from config.postgresql import outage as outages
from tests.tcpproxy import Proxy, free_port

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- the wait, with a pool stand-in
class FakePool:
    timeout = 10.0

    def __init__(self) -> None:
        self.waits: list[float] = []

    def getconn(self, timeout: float) -> str:
        self.waits.append(round(timeout, 2))
        return "connection"


@pytest.fixture
def outage() -> Any:
    backend.OUTAGE.connected()
    yield backend.OUTAGE
    backend.OUTAGE.connected()


def _wait(outage_age: float | None, timeout: float | None = None) -> float:
    backend.OUTAGE.since = None if outage_age is None else time.monotonic() - outage_age
    pool = FakePool()
    assert backend.ShortWaitPool(pool).getconn(timeout) == "connection"  # type: ignore[arg-type]
    return pool.waits[0]


def test_without_an_outage_a_request_waits_the_pool_s_whole_timeout(outage: Any) -> None:
    assert _wait(None) == 10.0  # a busy pool: the request waits its turn
    assert _wait(None, 0.25) == 0.25


def test_a_young_outage_is_ridden_out_an_old_one_answers_in_a_second(outage: Any) -> None:
    assert _wait(0.0) == 10.0  # a restart: the request is answered when the server is back
    assert 5.9 <= _wait(4.0) <= 6.0  # no request waits past the outage's 10th second...
    assert _wait(9.8) == backend.OUTAGE_WAIT  # ...but each still gets a second
    assert _wait(60.0) == backend.OUTAGE_WAIT
    assert _wait(60.0, 0.25) == 0.25  # a shorter wait asked for is kept


def test_a_refused_connection_starts_the_outage_and_a_made_one_ends_it(outage: Any) -> None:
    with pytest.raises(psycopg.OperationalError):
        backend.RecordingConnection.connect(host="127.0.0.1", port=free_port(), user="nobody", connect_timeout=2)
    assert outage.active
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    db = settings.DATABASES["default"]
    with backend.RecordingConnection.connect(
        host=db["HOST"] or "127.0.0.1", port=int(db["PORT"] or 5432), user=db["USER"], dbname="postgres"
    ) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert not outage.active


# ---------------------------------------------------------------- the pool's attempts
def test_the_pool_tries_again_within_half_a_second_until_its_reconnect_timeout() -> None:
    for _ in range(100):  # the first delay has a random jitter
        attempt = backend.SteadyAttempt(timeout=5.0)
        now, delays = 0.0, []
        while not attempt.time_to_give_up(now):
            attempt.update_delay(now)
            delays.append(attempt.delay)
            now += attempt.delay
        assert 0.18 <= delays[0] <= 0.22  # the first again after 0.2 s (psycopg: 1 s)...
        assert max(delays) <= backend.RECONNECT_EVERY  # ...then at most half a second apart (psycopg: 2, 4 s)
        assert now == pytest.approx(5.0)  # and given up after reconnect_timeout, as before
        assert 9 <= len(delays) <= 12


def _database_wrapper(**pool: Any) -> Any:
    wrapper = backend.DatabaseWrapper(
        {
            **settings.DATABASES["default"],
            "ENGINE": "config.postgresql",
            "NAME": "tablee_pool_probe",
            "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {"pool": {"min_size": 1, "max_size": 2, "timeout": 3.0, **pool}},
        },
        alias="pool_probe",
    )
    return wrapper


def test_django_s_pool_is_the_steady_one_and_makes_recording_connections() -> None:
    wrapper = _database_wrapper(reconnect_timeout=5)
    try:
        pool = wrapper.pool
        assert isinstance(pool, backend.ShortWaitPool)
        inner = pool._pool
        assert isinstance(inner, backend.SteadyReconnectPool)
        assert inner.connection_class is backend.RecordingConnection
        assert (inner.min_size, inner.max_size, inner.timeout, inner.reconnect_timeout) == (1, 2, 3.0, 5)
        assert inner._check is not None  # CONN_HEALTH_CHECKS: a dropped connection is not handed out
        assert wrapper.pool._pool is inner  # one pool per alias
    finally:
        backend.DatabaseWrapper._connection_pools.pop("pool_probe", None)


def test_a_pool_with_persistent_connections_is_refused() -> None:
    from django.core.exceptions import ImproperlyConfigured

    wrapper = _database_wrapper()
    wrapper.settings_dict["CONN_MAX_AGE"] = 60
    with pytest.raises(ImproperlyConfigured):
        wrapper.pool  # noqa: B018


def _error_connecting() -> logging.LogRecord:
    return logging.LogRecord(
        "psycopg.pool", logging.WARNING, __file__, 1, "error connecting in %r: %s", ("p", "x"), None
    )


def test_an_outage_is_logged_when_it_begins_then_every_half_minute(outage: Any, monkeypatch: Any) -> None:
    clock = [1000.0]
    monkeypatch.setattr(outages.time, "monotonic", lambda: clock[0])
    log = outages.OutageLogFilter()
    other = logging.LogRecord("psycopg.pool", logging.WARNING, __file__, 1, "discarding broken connection", (), None)

    outage.refused()
    kept = []
    for _ in range(130):  # a minute of attempts, two a second
        kept.append(log.filter(_error_connecting()))
        clock[0] += 0.5
    assert kept.count(True) == 3 and kept[0] and kept[60] and kept[120]  # at 0, 30 and 60 s
    assert log.filter(other)  # the pool's other warnings all pass

    outage.connected()  # the server is back; ten seconds later it goes away again
    clock[0] += 10
    outage.refused()
    assert log.filter(_error_connecting())  # a new outage is logged at once
    assert not log.filter(_error_connecting())


def test_the_site_s_logging_filters_the_pool_s_outage_warnings() -> None:
    pool_log = logging.getLogger("psycopg.pool")
    assert not pool_log.isEnabledFor(logging.INFO)  # "connection requested/given/returned", 3 per page
    assert pool_log.isEnabledFor(logging.WARNING)
    assert any(isinstance(f, outages.OutageLogFilter) for f in pool_log.filters)


# ---------------------------------------------------------------- a real process, a real outage
def _health(port: int) -> tuple[int, float]:
    began = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        status = conn.getresponse().status
    finally:
        conn.close()
    return status, time.monotonic() - began


POOL_TIMEOUT = 3.0


@pytest.fixture
def pooled_process() -> Any:
    """A uvicorn process with the pool (``TABLEE_DB_POOL_TIMEOUT`` 3 s) reaching PostgreSQL through a proxy."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("needs PostgreSQL (DATABASE_URL)")
    parts = urlsplit(url)
    proxy = Proxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    proxied = parts._replace(netloc=f"{parts.username or 'postgres'}@127.0.0.1:{proxy.port}", path="/postgres")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLEE_DB_POOL", "PYTEST"))}
    env |= {
        "DATABASE_URL": proxied.geturl(),
        "TABLEE_DB_POOL_TIMEOUT": str(POOL_TIMEOUT),
        "TABLEE_INPROCESS_BEAT": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port), "--log-level", "critical"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,  # the pool's "error connecting" lines, expected here
    )
    try:
        for _ in range(200):
            try:
                if _health(port)[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        assert _health(port)[0] == 200
        yield proxy, port
    finally:
        server.terminate()
        server.wait(timeout=15)
        proxy.close()


@pytest.mark.services
def test_a_long_outage_answers_503_in_a_second_once_it_is_the_pool_s_timeout_old(pooled_process: Any) -> None:
    proxy, port = pooled_process
    proxy.cut()  # the server goes away: pooled connections dropped, new ones refused
    began = time.monotonic()
    answers = []
    while time.monotonic() - began < POOL_TIMEOUT + 4:
        answers.append(_health(port))
    assert {status for status, _ in answers} == {503}
    # The first requests wait for the server as long as the pool's timeout (a restart would be
    # ridden out); past the outage's 3rd second, each answers in about a second, not 3.
    late = [seconds for status, seconds in answers[1:]]
    assert late and max(late) < POOL_TIMEOUT - 0.5, answers
    assert answers[0][1] < POOL_TIMEOUT + 1.5, answers

    proxy.listen()  # the server is back
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _health(port)[0] != 200:
        time.sleep(0.2)
    status, seconds = _health(port)
    assert status == 200 and seconds < 1.0


@pytest.mark.services
def test_a_restart_shorter_than_the_pool_s_timeout_is_ridden_out(pooled_process: Any) -> None:
    proxy, port = pooled_process
    proxy.cut()  # a restart begins
    results: list[tuple[int, float]] = []
    first = threading.Thread(target=lambda: results.append(_health(port)))
    first.start()  # finds the server away
    time.sleep(0.5)
    second = threading.Thread(target=lambda: results.append(_health(port)))
    second.start()  # sent while the outage is known, and young: it waits for the server
    time.sleep(1.0)
    proxy.listen()  # back after 1.5 s
    first.join(30)
    second.join(30)
    assert [status for status, _ in results] == [200, 200], results
    # Served soon after the server's return: the pool tries again every half second. With psycopg's
    # backoff (1, 2, 4 s) the attempt after the 1st second came near the 3rd: late, or a 503.
    assert max(seconds for _, seconds in results) < 2.7, results
