"""While PostgreSQL refuses connections, a pooled web process rides out a restart as before (a request
waits up to ``TABLEE_DB_POOL_TIMEOUT`` for the server) but, once the outage is that old, answers
503 within a second instead of after the pool's whole wait; it is back when the server is.

``config/postgresql/base.py``: the pool's connections note since when the server refuses them. The
end-to-end tests run a real uvicorn process (the pool is on outside pytest) reaching PostgreSQL
through a TCP proxy that stages the outage (``tests/tcpproxy.py``).
"""

from __future__ import annotations

import http.client
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
