"""Benchmark: the thread page and the sheet page over real HTTP, beside the floors and a lean view.

One uvicorn process serves these URLs from the same database, in the same run:

* ``/healthz``: answered by the first middleware (one query, no session, no member): the floor
  of the ASGI server, not of a page;
* the stack's floor (``/bench/floor/``, see ``bench_urls.py``): every middleware with the
  logged-in member loaded (session, member, language, time zone, suspension...) and an empty
  view: what any page of a member pays before its view runs;
* a lean Django view of the same thread page (``/bench/lean/<id>/``, see ``bench_urls.py``);
* Tablée's thread page (``/campaigns/threads/<id>/``) as a logged-in player, for a thread of
  10 and of 10,000 posts;
* the player's character sheet page (``/characters/<id>/``).

The load sends the cookies a browser would send back: the member's session and their CSRF cookie.
A load generator with a fixed concurrency (``wrk`` when installed, else threads with keep-alive
connections in this process) hits each URL for a fixed time, in interleaved rounds; the medians of the rounds are
printed with req/s, p50/p99 latency and the ratios to the floors and to the lean view, plus each
page's SQL queries and its size (raw and gzipped). Goals (#21): thread page ≤ 2× the floor,
≤ 1.3× the lean view, the same queries at 10 and 10,000 posts, ≤ 8 queries, p99 ≤ 100 ms for
the thread page and the sheet page.

Usage::

    .venv/bin/python bench/bench_thread_http.py            # temporary SQLite database
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tablee_bench .venv/bin/python bench/bench_thread_http.py

Environment: ``BENCH_SECONDS`` per URL and round (default 4), ``BENCH_ROUNDS`` (3),
``BENCH_CONCURRENCY`` (10), ``BENCH_LOADER`` (``wrk``, or ``python``),
``BENCH_JSON`` (a file to write the medians to, for comparing runs).
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

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

#: The server's garbage-collector setting as the caller gave it (importing conftest, for the data,
#: turns it off in this process's environment: that default is for the test process).
SERVER_GC_TUNING = os.environ.get("TABLEE_GC_TUNING")
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "10"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


WRK = shutil.which("wrk") if os.environ.get("BENCH_LOADER", "wrk") == "wrk" else None
_WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _wrk_ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    assert match, text
    return float(match.group(1)) * _WRK_UNITS[match.group(2)]


def load(port: int, path: str, cookie: str, seconds: float) -> tuple[float, float, float, int]:
    """Hit ``path`` with CONCURRENCY keep-alive clients for ``seconds``: req/s, p50 ms, p99 ms, errors.

    With ``wrk`` installed (Debian's package), wrk is the load generator: one thread of C, so the
    server has the other core to itself; otherwise Python threads in this process
    (``BENCH_LOADER=python`` forces them)."""
    if WRK:
        out = subprocess.run(
            [
                WRK,
                "-t1",
                f"-c{CONCURRENCY}",
                f"-d{max(1, round(seconds))}s",
                "--latency",
                "-H",
                f"Cookie: {cookie}",
                "-H",
                "Accept-Encoding: gzip",
                f"http://127.0.0.1:{port}{path}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
        p50 = _wrk_ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
        p99 = _wrk_ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
        errors = (int(bad.group(1)) if bad else 0) + (sum(int(g) for g in socket.groups()) if socket else 0)
        return rate, p50, p99, errors
    return _load_python(port, path, cookie, seconds)


def _load_python(port: int, path: str, cookie: str, seconds: float) -> tuple[float, float, float, int]:
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
    settings.ROOT_URLCONF = "bench_urls"  # as the server (bench_settings): the floor and the lean view too
    prefix = f"h{int(time.time()) % 100000}"
    table = make_table("altaride", prefix=prefix)
    cast = {"campaign": table.campaign, "gm": table.gm, "player": table.player, "player2": table.player2}
    small = build(10, cast, prefix)
    large = build(10_000, cast, prefix)
    hero = sheet_character(table.campaign, table.player2)
    client = Client()
    client.force_login(table.player2)
    targets = {
        "floor /healthz": "/healthz",
        "stack floor /bench/floor/": "/bench/floor/",
        "lean view (10,000 posts)": f"/bench/lean/{large.pk}/",
        "thread page, 10 posts": f"/campaigns/threads/{small.pk}/",
        "thread page, 10,000 posts": f"/campaigns/threads/{large.pk}/",
        "sheet page": f"/characters/{hero.pk}/",
    }

    # Queries and size, in process (same code, same database).
    sizes = {}
    for name, url in targets.items():
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        reads = [q for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
        sizes[name] = (len(reads), len(response.content), len(gzip.compress(response.content)))
    # The cookies a browser sends back: the session and the CSRF cookie the pages with a form set (without
    # it, every page with a form would draw a new CSRF secret, which no browser asks twice).
    cookie = "; ".join(f"{name}={client.cookies[name].value}" for name in ("sessionid", "csrftoken"))

    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench_settings", "PYTHONPATH": f"{ROOT}:{ROOT / 'bench'}"}
    env.pop("TABLEE_GC_TUNING", None)
    if SERVER_GC_TUNING is not None:
        env["TABLEE_GC_TUNING"] = SERVER_GC_TUNING
    env.setdefault("TABLEE_INPROCESS_BEAT", "0")  # the periodic tasks' thread is not what is measured
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
        f"database: {connection.vendor}; one uvicorn process ({settings.WEB_THREADS} page threads); "
        f"load: {'wrk' if WRK else 'python threads'} at concurrency {CONCURRENCY}; "
        f"{ROUNDS} interleaved rounds of {SECONDS:g} s per URL (medians; req/s min-max over the rounds)"
    )
    print(
        f"{'URL':<28} {'req/s':>8} {'min-max':>13} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
        f"{'SQL':>4} {'KB':>6} {'KB gz':>6}"
    )
    for name in targets:
        errors = sum(r[3] for r in results[name])
        rates = [r[0] for r in results[name]]
        reads, raw, packed = sizes[name]
        print(
            f"{name:<28} {med(name, 0):>8.1f} {min(rates):>6.1f}-{max(rates):<6.1f} {med(name, 1):>8.1f} "
            f"{med(name, 2):>8.1f} {errors:>7} {reads:>4} {raw / 1024:>6.1f} {packed / 1024:>6.1f}"
        )
    healthz = med("floor /healthz", 0)
    floor = med("stack floor /bench/floor/", 0)
    lean = med("lean view (10,000 posts)", 0)
    page = med("thread page, 10,000 posts", 0)
    print()
    print(f"stack floor / thread page (10,000 posts): {floor / page:.2f}x   (goal <= 2.0)")
    print(f"lean view / thread page (10,000 posts): {lean / page:.2f}x   (goal <= 1.3)")
    print(f"/healthz / thread page (10,000 posts): {healthz / page:.2f}x   (/healthz skips the session and the member)")
    print(f"/healthz / stack floor: {healthz / floor:.2f}x;  stack floor / lean view: {floor / lean:.2f}x")
    print(f"thread page p99 (10,000 posts): {med('thread page, 10,000 posts', 2):.1f} ms   (goal <= 100)")
    print(f"sheet page p99: {med('sheet page', 2):.1f} ms   (goal <= 100)")
    small_reads, large_reads = sizes["thread page, 10 posts"][0], sizes["thread page, 10,000 posts"][0]
    print(f"thread page SQL reads: {small_reads} at 10 posts, {large_reads} at 10,000 posts   (goal: equal, <= 8)")
    if os.environ.get("BENCH_JSON"):
        summary = {
            name: {
                "rps": med(name, 0),
                "p50": med(name, 1),
                "p99": med(name, 2),
                "rounds": results[name],
                "reads": sizes[name][0],
                "bytes": sizes[name][1],
                "gzipped": sizes[name][2],
            }
            for name in targets
        }
        summary["database"] = connection.vendor  # type: ignore[assignment]
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(summary, indent=1))


def sheet_character(campaign: Any, owner: Any) -> Any:
    """An approved character of ``owner`` with a filled sheet (the sheet page's subject)."""
    from characters.models import Character, SheetVersion

    system = campaign.rule_system
    sheet = system.default_sheet()
    sheet.update(
        {
            "talents": {**sheet.get("talents", {}), "HAB": 12, "VIG": 8},
            "skills": [{"key": "epee", "level": 3, "formula": "HAB+VIG"}],
            "guild_spells": [{"name": "Flamme", "level": 2}, {"name": "Tempête", "level": 9}],
        }
    )
    hero = Character.objects.create(
        campaign=campaign, owner=owner, name="Iris", system=system.slug, status="approved", sheet=sheet
    )
    SheetVersion.objects.create(character=hero, version=1, name=hero.name, sheet=hero.sheet, status="approved")
    return hero


if __name__ == "__main__":
    main()
