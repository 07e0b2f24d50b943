"""Jobs that always finish, under real faults (PostgreSQL, Redis, real Celery workers).

Each test runs the session job twice on identical tables: once uninterrupted
(in-process), once through real worker subprocesses with a fault injected
mid-way, and asserts identical balances, recaps and ledger (awards applied
exactly once):

* the worker is killed with SIGKILL mid-run; a fresh worker's beat re-sends the dead run;
* Redis (a server of the test's own) is down when the run is enqueued;
* PostgreSQL (behind a TCP proxy the test controls) is down past the task's retry budget.

Workers run a launcher that slows each character down (``checkpoint``) so the
fault lands mid-run; the launcher is test code, production has no such hook.
Skipped unless ``REDIS_URL`` and a PostgreSQL ``DATABASE_URL`` are set (CI sets them).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from characters import ledger
from characters.models import LedgerEntry
from conftest import make_table
from progression import services
from progression.models import CharacterBalance, RecalculationRun, SessionResult
from progression.tests.conftest import make_character, make_session

ROOT = Path(__file__).resolve().parents[2]
APP_NAME = "tablee-fault-test-worker"
LEASE = 2.0

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL",
    ),
]

LAUNCHER = """
import os, sys, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from progression import services
delay = float(os.environ["TEST_CHECKPOINT_DELAY"])
services.session_job.checkpoint = lambda run, index, character: time.sleep(delay)
from celery.bin.celery import main
sys.argv = ["celery"] + sys.argv[1:]
main()
"""


def _db_url(port: int | None = None) -> str:
    from django.db import connection

    s = connection.settings_dict
    auth = quote(s.get("USER") or "postgres")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"])
    host = s.get("HOST") or "127.0.0.1"
    port = port or int(s.get("PORT") or 5432)
    return f"postgres://{auth}@{host}:{port}/{s['NAME']}?application_name={APP_NAME}"


class Workers:
    """Start and kill real Celery workers consuming a queue of this test."""

    def __init__(self, queue: str, redis_url: str, tmp: Path) -> None:
        self.queue, self.redis_url, self.tmp = queue, redis_url, tmp
        self.processes: list[subprocess.Popen[str]] = []
        self.logs: list[Path] = []

    def start(self, *, beat: bool = False, db_url: str | None = None, delay: float = 0.0, **env: str) -> Any:
        n = len(self.processes)
        log = self.tmp / f"worker-{n}.log"
        args = [sys.executable, "-c", LAUNCHER, "-A", "config", "worker", "-P", "solo", "-Q", self.queue]
        args += [
            "-l",
            "info",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"w{n}-{self.queue}@%h",
        ]
        if beat:
            args += ["-B", "--schedule", str(self.tmp / f"beat-{n}")]
        environment = {
            **os.environ,
            "DATABASE_URL": db_url or _db_url(),
            "REDIS_URL": self.redis_url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "TABLEE_PROGRESSION_QUEUE": self.queue,
            "TABLEE_RUN_LEASE_SECONDS": str(LEASE),
            "TABLEE_RUN_SWEEP_INTERVAL": "1",
            "TABLEE_RUN_CHUNK_SIZE": "1",  # one character per transaction: the faults land between commits
            "TEST_CHECKPOINT_DELAY": str(delay),
            **env,
        }
        out = log.open("w")
        process = subprocess.Popen(args, cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT, text=True)
        self.processes.append(process)
        self.logs.append(log)
        return process

    def output(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-2500:]}" for p in self.logs if p.exists())

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


@pytest.fixture
def fault_env(transactional_db: Any, settings: Any, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A queue of this test, the test process sending for real (not eager), a short lease."""
    from config.celery import app

    queue = f"fault-{uuid.uuid4().hex[:8]}"
    settings.PROGRESSION_TASK_QUEUE = queue
    settings.TABLEE_RUN_LEASE_SECONDS = LEASE
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    eager, broker = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager = False
    state = {"queue": queue, "tmp": tmp_path, "workers": []}
    try:
        yield state
    finally:
        for workers in state["workers"]:
            workers.stop_all()
        app.conf.task_always_eager, app.conf.broker_url = eager, broker
        _reset_producers()
        _wait_for_connections_to_close()


def _reset_producers() -> None:
    from config.celery import app

    app._pool = None
    app.amqp._producer_pool = None


def _wait_for_connections_to_close() -> None:
    from django.db import connection

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP_NAME])
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.2)


# ---------------------------------------------------------------------------
# Two identical tables; the reference is an uninterrupted in-process run
# ---------------------------------------------------------------------------
def _table(prefix: str, size: int) -> Any:
    table = make_table("ambre", prefix=prefix)
    table.cast = []
    for n in range(size):
        character = make_character(table, table.player if n % 2 else table.player2, f"PJ {n:02d}")
        ledger.append_entry(character, "karma", 40 + n, "creation_budget")
        ledger.append_entry(character, "karma", -(3 * n), "purchase")
        table.cast.append(character)
    table.session = make_session(table)
    return table


def _confirm(table: Any) -> RecalculationRun:
    entries = {
        c.pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": 5 + n, "extra_note": ""}
        for n, c in enumerate(table.cast)
    }
    return services.confirm_session_awards(table.gm, table.session, entries=entries)


def _reference(monkeypatch: Any, size: int) -> Any:
    calm = _table("calm", size)
    with monkeypatch.context() as m:
        m.setattr(services.runs, "enqueue", lambda run_id: True)
        run = _confirm(calm)
    services.run_recalculation(run.pk)
    assert RecalculationRun.objects.get(pk=run.pk).status == "done"
    return calm


def _state(table: Any) -> dict[str, Any]:
    campaign = table.campaign
    balances = CharacterBalance.objects.filter(character__campaign=campaign).select_related("character")
    results = SessionResult.objects.filter(session=table.session).select_related("character")
    entries = LedgerEntry.objects.filter(character__campaign=campaign)
    return {
        "balances": sorted((b.character.name, b.balances) for b in balances),
        "results": sorted((r.character.name, r.before, r.after) for r in results),
        "ledger": sorted(entries.values_list("character__name", "currency", "amount", "kind")),
    }


def _wait(run: RecalculationRun, until: Any, timeout: float, workers: Workers) -> RecalculationRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if until(run):
            return run
        time.sleep(0.05)
    pytest.fail(f"run {run.pk} {run.status} {run.done}/{run.total}: {run.error}\n{workers.output()}")


# ---------------------------------------------------------------------------
# Faults
# ---------------------------------------------------------------------------
def test_a_worker_killed_mid_run_is_taken_over(fault_env: dict[str, Any], monkeypatch: Any) -> None:
    size = 8
    calm = _reference(monkeypatch, size)
    table = _table("kill", size)
    workers = Workers(fault_env["queue"], os.environ["REDIS_URL"], fault_env["tmp"])
    fault_env["workers"].append(workers)
    first = workers.start(delay=0.4)
    run = _confirm(table)  # commits, then enqueues for real
    _wait(run, lambda r: r.status == "running" and 2 <= r.done < size, 60, workers)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    time.sleep(LEASE / 2)
    run.refresh_from_db()
    assert run.status == "running" and run.done < size  # dead: nobody will finish it on their own

    workers.start(beat=True)  # a new worker and its beat: the sweeper re-sends the dead run
    run = _wait(run, lambda r: r.status == "done", 60, workers)
    assert run.resends >= 1 and run.interrupted_at is not None and run.attempts >= 2
    assert _state(table) == _state(calm)
    assert (
        LedgerEntry.objects.filter(character__campaign=table.campaign, key__startswith="progression:award:").count()
        == size
    )


class _RedisServer:
    """A redis-server of this test only, on a free port (killed and restarted to fake an outage)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.port, self.process = tmp, _free_port(), None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.tmp),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_a_run_enqueued_while_redis_is_down_is_sent_when_it_is_back(
    fault_env: dict[str, Any], monkeypatch: Any, client: Any
) -> None:
    from config.celery import app

    size = 4
    calm = _reference(monkeypatch, size)
    table = _table("nobroker", size)
    redis = _RedisServer(fault_env["tmp"])
    redis.start()
    try:
        app.conf.broker_url = redis.url
        _reset_producers()
        redis.kill()  # the broker is down when the GM confirms
        started = time.monotonic()
        run = _confirm(table)  # does not raise: the run is committed, its message not sent
        assert time.monotonic() - started < 15
        run.refresh_from_db()
        assert run.status == "queued" and run.enqueued_at is None
        client.force_login(table.gm)
        client.cookies["tablee_language"] = "fr"
        page = client.get(f"/progression/sessions/{table.session.pk}/progress/", HTTP_ACCEPT_LANGUAGE="fr")
        assert "en attente de la file de tâches" in page.content.decode()
        assert CharacterBalance.objects.filter(character__campaign=table.campaign).count() == 0

        redis.start()  # back, empty (no persistence): only the sweeper can save the run
        workers = Workers(fault_env["queue"], redis.url, fault_env["tmp"])
        fault_env["workers"].append(workers)
        workers.start(beat=True)
        run = _wait(run, lambda r: r.status == "done", 60, workers)
        assert run.enqueued_at is not None and run.resends >= 1
        assert run.interrupted_at is None  # never started: not an interruption
        assert _state(table) == _state(calm)
    finally:
        for workers in fault_env["workers"]:
            workers.stop_all()
        redis.kill()


class _TcpProxy:
    """A TCP proxy to PostgreSQL that the test can take down (listener and live connections) and bring back."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.port = target, _free_port()
        self.listener: socket.socket | None = None
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        with self.lock:
            if self.listener is not None:
                try:
                    self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
                except OSError:
                    pass
                self.listener.close()
                self.listener = None
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _addr = listener.accept()
            except OSError:
                return
            if self.listener is not listener:  # taken down meanwhile
                client.close()
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.close()
                except OSError:
                    pass


def test_a_database_outage_past_the_retry_budget_ends_in_a_finished_run(
    fault_env: dict[str, Any], monkeypatch: Any
) -> None:
    from django.db import connection

    size = 8
    calm = _reference(monkeypatch, size)
    table = _table("nodb", size)
    s = connection.settings_dict
    proxy = _TcpProxy((s.get("HOST") or "127.0.0.1", int(s.get("PORT") or 5432)))
    proxy.up()
    try:
        workers = Workers(fault_env["queue"], os.environ["REDIS_URL"], fault_env["tmp"])
        fault_env["workers"].append(workers)
        # A retry budget of one quick retry, so the outage outlasts it.
        workers.start(beat=True, db_url=_db_url(proxy.port), delay=0.4, TABLEE_RUN_MAX_RETRIES="1")
        run = _confirm(table)
        _wait(run, lambda r: r.status == "running" and 2 <= r.done < size, 60, workers)
        proxy.down()
        time.sleep(8)  # past the budget: the task has given up
        run.refresh_from_db()
        assert run.status == "running" and run.done < size
        log = "\n".join(p.read_text() for p in workers.logs)
        assert "OperationalError" in log or "Connection refused" in log  # the worker saw the outage
        proxy.up()
        run = _wait(run, lambda r: r.status == "done", 60, workers)
        assert run.resends >= 1 and run.interrupted_at is not None
        assert _state(table) == _state(calm)
    finally:
        for workers in fault_env["workers"]:
            workers.stop_all()
        proxy.down()
