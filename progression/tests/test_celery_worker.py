"""One run through a real Celery worker (Redis broker, PostgreSQL test database).

Skipped unless ``REDIS_URL`` and ``DATABASE_URL`` are set (CI sets them). The
worker is a subprocess consuming a queue of its own, connected to the test
database Django created (``test_<name>``), so it sees what this test commits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from characters import ledger
from progression import services
from progression.models import CharacterBalance, RecalculationRun
from progression.tests.conftest import make_character, make_session

ROOT = Path(__file__).resolve().parents[2]
WORKER_APP_NAME = "tablee-progression-test-worker"

pytestmark = pytest.mark.skipif(
    not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
    reason="needs REDIS_URL and a PostgreSQL DATABASE_URL",
)


def _test_database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    auth = quote(s.get("USER") or "postgres")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"])
    host, port = s.get("HOST") or "127.0.0.1", s.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{s['NAME']}?application_name={WORKER_APP_NAME}"


@pytest.fixture
def worker(transactional_db: Any, settings: Any) -> Any:
    queue = f"progression-test-{uuid.uuid4().hex[:8]}"
    settings.PROGRESSION_TASK_QUEUE = queue
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-P",
            "solo",
            "-Q",
            queue,
            "-l",
            "info",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"{queue}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        app.conf.task_always_eager = eager
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        _wait_for_worker_connections_to_close()


def _wait_for_worker_connections_to_close() -> None:
    """Let PostgreSQL drop the dead worker's sessions before the test database is destroyed."""
    from django.db import connection

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [WORKER_APP_NAME])
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.2)


def test_it_runs_the_session_job_in_a_real_worker(table: Any, worker: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    bruno = make_character(table, table.player2, "Bruno")
    ledger.append_entry(alice, "karma", 30, "creation_budget")
    ledger.append_entry(bruno, "karma", -4, "purchase")
    session = make_session(table)
    entries = {
        c.pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": n}
        for c, n in ((alice, 5), (bruno, 6))
    }
    run = services.confirm_session_awards(table.gm, session, entries=entries)  # commits, then enqueues
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in ("done", "failed"):
            break
        if worker.poll() is not None:
            break
        time.sleep(0.25)
    if run.status != "done":
        worker.terminate()
        output = worker.communicate(timeout=10)[0]
        pytest.fail(f"run {run.status}: {run.error}\n{output[-3000:]}")
    assert RecalculationRun.objects.get(pk=run.pk).done == 2
    assert CharacterBalance.objects.get(character=alice).balances == {"karma": 35}
    assert CharacterBalance.objects.get(character=bruno).balances == {"karma": 2}
    assert ledger.balances(alice) == {"karma": 35}  # Ambre: its one currency (issue 16)
    worker.terminate()
    output = worker.communicate(timeout=15)[0]
    assert "progression.recalculate_session" in output and "succeeded" in output  # the worker ran it, not eager
