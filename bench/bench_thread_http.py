"""Benchmark: the thread page over real HTTP, beside the stack's floor and a lean view of the same page.

One uvicorn process serves three URLs from the same database, in the same run:

* the floor: ``/healthz`` (the whole middleware stack, one query);
* a lean Django view of the same thread page (``/bench/lean/<id>/``, see ``bench_urls.py``);
* Tablée's thread page (``/campaigns/threads/<id>/``) as a logged-in player, for a thread of
  10 and of 10,000 posts.

A load generator with a fixed concurrency (threads with keep-alive connections, in this
process) hits each URL for a fixed time, in interleaved rounds; the medians of the rounds are
printed with req/s, p50/p99 latency and the ratios to the floor and to the lean view, plus the
page's SQL queries and its size (raw and gzipped). Goals (#21): thread page ≤ 2× the floor,
≤ 1.3× the lean view, the same queries at 10 and 10,000 posts, ≤ 8 queries, p99 ≤ 100 ms.

Usage::

    .venv/bin/python bench/bench_thread_http.py            # temporary SQLite database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tablee_bench .venv/bin/python bench/bench_thread_http.py

Environment: ``BENCH_SECONDS`` per URL and round (default 4), ``BENCH_ROUNDS`` (3), ``BENCH_CONCURRENCY`` (10).
"""

from __future__ import annotations

import gzip
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    os.environ["TABLEE_SQLITE_PATH"] = os.path.join(tempfile.mkdtemp(prefix="tablee-bench-"), "bench.sqlite3")
os.environ.setdefault("TABLEE_POST_RATE", "0/m")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "10"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load(port: int, path: str, cookie: str, seconds: float) -> tuple[float, float, float, int]:
    """Hit ``path`` with CONCURRENCY keep-alive clients for ``seconds``: req/s, p50 ms, p99 ms, errors."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[float] = []
        bad = 0
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            try:
                conn.request("GET", path, headers={"Cookie": cookie, "Accept-Encoding": "gzip"})
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    bad += 1
            except (OSError, http.client.HTTPException):
                bad += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            mine.append(time.perf_counter() - start)
        conn.close()
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    if not latencies:
        return 0.0, 0.0, 0.0, errors[0]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return len(latencies) / elapsed, statistics.median(latencies) * 1000, p99 * 1000, errors[0]


def main() -> None:
    from bench_thread_pages import build

    from conftest import make_table

    call_command("migrate", verbosity=0)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    prefix = f"h{int(time.time()) % 100000}"
    table = make_table("altaride", prefix=prefix)
    cast = {"campaign": table.campaign, "gm": table.gm, "player": table.player, "player2": table.player2}
    small = build(10, cast, prefix)
    large = build(10_000, cast, prefix)
    client = Client()
    client.force_login(table.player2)
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    # Queries and size, in process (same code, same database).
    sizes = {}
    for label, thread in (("10", small), ("10000", large)):
        url = f"/campaigns/threads/{thread.pk}/"
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        reads = [q for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
        sizes[label] = (len(reads), len(response.content), len(gzip.compress(response.content)))

    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench_settings", "PYTHONPATH": f"{ROOT}:{ROOT / 'bench'}"}
    if connection.vendor == "sqlite":  # the same database file as this process (bench_thread_pages sets its own)
        env["TABLEE_SQLITE_PATH"] = str(settings.DATABASES["default"]["NAME"])
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=str(ROOT),
        env=env,
    )
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        targets = {
            "floor /healthz": "/healthz",
            "lean view (10,000 posts)": f"/bench/lean/{large.pk}/",
            "thread page, 10 posts": f"/campaigns/threads/{small.pk}/",
            "thread page, 10,000 posts": f"/campaigns/threads/{large.pk}/",
        }
        for path in targets.values():
            load(port, path, cookie, 0.5)  # warm up
        results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in targets}
        for _ in range(ROUNDS):
            for name, path in targets.items():
                results[name].append(load(port, path, cookie, SECONDS))
    finally:
        server.terminate()
        server.wait(timeout=10)

    def med(name: str, index: int) -> float:
        return statistics.median(r[index] for r in results[name])

    print(
        f"database: {connection.vendor}; one uvicorn process; concurrency {CONCURRENCY}; "
        f"{ROUNDS} interleaved rounds of {SECONDS:g} s per URL (medians)"
    )
    print(f"{'URL':<28} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for name in targets:
        errors = sum(r[3] for r in results[name])
        print(f"{name:<28} {med(name, 0):>8.1f} {med(name, 1):>8.1f} {med(name, 2):>8.1f} {errors:>7}")
    floor = med("floor /healthz", 0)
    lean = med("lean view (10,000 posts)", 0)
    page = med("thread page, 10,000 posts", 0)
    print()
    print(f"floor / thread page (10,000 posts): {floor / page:.2f}x   (goal <= 2.0)")
    print(f"lean view / thread page (10,000 posts): {lean / page:.2f}x   (goal <= 1.3)")
    print(f"thread page p99 (10,000 posts): {med('thread page, 10,000 posts', 2):.1f} ms   (goal <= 100)")
    for label, (reads, raw, packed) in sizes.items():
        print(
            f"thread page of {label} posts: {reads} SQL reads, {raw / 1024:.1f} KB HTML, {packed / 1024:.1f} KB gzipped"
        )


if __name__ == "__main__":
    main()
