"""While PostgreSQL refuses connections, a pooled web process answers 503 within a second or two,
not after the pool's whole wait (``TABLEE_DB_POOL_TIMEOUT``, 10 s); it is back when the server is.

``config/postgresql/base.py``: the pool's connections note whether the server could be reached,
and while it could not, a request waits :data:`OUTAGE_WAIT` for a connection. The end-to-end test
runs a real uvicorn process (the pool is on outside pytest) reaching PostgreSQL through a TCP proxy
that stages the outage (``tests/tcpproxy.py``).
"""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from django.conf import settings
from psycopg_pool import PoolTimeout

from config.postgresql import base as backend
from tests.tcpproxy import Proxy, free_port

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- the wait, with a pool stand-in
class FakePool:
    """A pool whose ``getconn`` times out ``timeouts`` times (noting the outage on the ``outage_at``-th)."""

    timeout = 10.0

    def __init__(self, timeouts: int, outage_at: int | None = None) -> None:
        self.timeouts, self.outage_at, self.waits = timeouts, outage_at, []

    def getconn(self, timeout: float) -> str:
        self.waits.append(timeout)
        if len(self.waits) == self.outage_at:
            backend.OUTAGE.refused()
        if len(self.waits) <= self.timeouts:
            raise PoolTimeout("no connection")
        return "connection"

    def open(self) -> None:
        pass


@pytest.fixture
def outage() -> Any:
    backend.OUTAGE.connected()
    yield backend.OUTAGE
    backend.OUTAGE.connected()


def test_a_busy_pool_still_gets_its_whole_wait(outage: Any) -> None:
    pool = FakePool(timeouts=1)
    assert backend.ShortWaitPool(pool).getconn() == "connection"  # type: ignore[arg-type]
    assert pool.waits == [backend.OUTAGE_WAIT, 10.0 - backend.OUTAGE_WAIT]


def test_while_the_server_refuses_a_request_waits_a_second_only(outage: Any) -> None:
    outage.refused()
    pool = FakePool(timeouts=5)
    with pytest.raises(PoolTimeout):
        backend.ShortWaitPool(pool).getconn()  # type: ignore[arg-type]
    assert pool.waits == [backend.OUTAGE_WAIT]
    pool = FakePool(timeouts=0)  # a connection still in the pool is handed out
    assert backend.ShortWaitPool(pool).getconn() == "connection"  # type: ignore[arg-type]


def test_a_request_already_waiting_when_the_outage_begins_stops_after_a_second(outage: Any) -> None:
    pool = FakePool(timeouts=5, outage_at=1)
    with pytest.raises(PoolTimeout):
        backend.ShortWaitPool(pool).getconn()  # type: ignore[arg-type]
    assert pool.waits == [backend.OUTAGE_WAIT]


def test_a_short_wait_asked_for_is_kept(outage: Any) -> None:
    pool = FakePool(timeouts=0)
    backend.ShortWaitPool(pool).getconn(0.25)  # type: ignore[arg-type]
    assert pool.waits == [0.25]


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


@pytest.mark.services
def test_a_pooled_process_answers_503_at_once_during_an_outage_and_recovers() -> None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("needs PostgreSQL (DATABASE_URL)")
    parts = urlsplit(url)
    proxy = Proxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    proxied = parts._replace(netloc=f"{parts.username or 'postgres'}@127.0.0.1:{proxy.port}", path="/postgres")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLEE_DB_POOL", "PYTEST"))}
    env |= {"DATABASE_URL": proxied.geturl(), "TABLEE_INPROCESS_BEAT": "0", "DJANGO_SETTINGS_MODULE": "config.settings"}
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port), "--log-level", "critical"],
        cwd=ROOT,
        env=env,
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

        proxy.cut()  # the server goes away: pooled connections dropped, new ones refused
        answers = [_health(port) for _ in range(4)]
        assert [status for status, _ in answers] == [503] * 4
        # The first request finds its pooled connection dead and the server refusing: a second or
        # two, not the pool's 10 s; the next ones know the server is away.
        assert answers[0][1] < 4.0, answers
        assert max(seconds for _, seconds in answers[1:]) < 2.5, answers

        proxy.listen()  # the server is back
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and _health(port)[0] != 200:
            time.sleep(0.2)
        status, seconds = _health(port)
        assert status == 200 and seconds < 1.0
    finally:
        server.terminate()
        server.wait(timeout=15)
        proxy.close()
