"""Benchmark: how many open live streams one web process holds, and whether it keeps serving.

Run (PostgreSQL required, a SCRATCH database: it is migrated and gets ``bench-`` rows)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tablee_scratch \\
    REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python bench/bench_live_streams.py [--streams 2000] [--root PATH]

The script starts ONE uvicorn process (``config.asgi``) on 127.0.0.1, then

1. measures a baseline with no stream open: thread pages (GET) and posts
   (POST reply) served by 10 concurrent clients;
2. opens ``--streams`` Server-Sent Events streams on ``/live/thread/<id>/``
   (anonymous spectators of a public campaign) and, while they are all open,
   measures the same pages and posts again, the database connections held
   (``pg_stat_activity``), the process's RSS and threads;
3. checks that one new post reaches every open stream.

Figures are printed with ratios to limits measured in the same run: the
server's ``max_connections``, the baseline request rate. ``--root`` serves
another checkout (e.g. main's code) for a before/after comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CSRF = "benchbenchbenchbenchbenchbench42"  # a 32-character CSRF secret, sent as cookie and header
#: Extra environment of the server (``--pool``).
SERVER_ENV: dict[str, str] = {}


def setup_django() -> None:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("Set DATABASE_URL to a scratch PostgreSQL database.")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
    os.environ["TABLEE_DB_POOL_SIZE"] = "0"  # the bench process itself: plain connections
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build(tag: str) -> dict[str, Any]:
    """A public campaign, its GM and a thread; the GM's session cookie."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Board, Campaign, Membership, Role, Thread

    User = get_user_model()
    gm = User.objects.create_user(username=f"bench-gm-{tag}", password=None)
    campaign = Campaign.objects.create(
        title=f"bench {tag}", slug=f"bench-streams-{tag}", system="ambre", created_by=gm, is_public=True
    )
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
    board = Board.objects.create(campaign=campaign, name="En jeu", kind=Board.Kind.IN_CHARACTER)
    thread = Thread.objects.create(board=board, campaign=campaign, title="Bench", created_by=gm)
    client = Client()
    client.force_login(gm)
    return {"thread": thread.pk, "session": client.cookies[settings.SESSION_COOKIE_NAME].value, "gm": gm.pk}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(root: Path, port: int, extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.pop("TABLEE_DB_POOL_SIZE", None)
    env.update(
        {
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Limits high enough not to refuse the load, but counted (in the cache).
            "TABLEE_POST_RATE": "100000/m",
            "TABLEE_RATE_API_POSTING": "100000/min",
            "TABLEE_RATE_API_USER": "100000/min",
            "TABLEE_RATE_API_IP": "100000/min",
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "PYTHONPATH": str(root),
        }
    )
    env.update(SERVER_ENV)
    env.update(extra_env or {})
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "error",
        "--lifespan",
        "off",
        "--backlog",
        "4096",
    ]
    proc = subprocess.Popen(cmd, cwd=root, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("uvicorn did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def proc_status(pid: int) -> dict[str, int]:
    """RSS (KiB) and thread count of a process, from /proc."""
    out = {"rss_kb": 0, "threads": 0}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out["rss_kb"] = int(line.split()[1])
            elif line.startswith("Threads:"):
                out["threads"] = int(line.split()[1])
    except OSError:
        pass
    return out


def pg_connections() -> tuple[int, int]:
    """(connections to this database, the server's max_connections), on a fresh connection.

    ``(-1, -1)`` when the server refuses one more connection (all are taken).
    """
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    try:
        return _pg_connections(psycopg, db)
    except psycopg.OperationalError:
        return -1, -1


def _pg_connections(psycopg: Any, db: dict[str, Any]) -> tuple[int, int]:
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        connect_timeout=3,
    ) as conn:
        used = conn.execute(
            "select count(*) from pg_stat_activity where datname = %s and pid <> pg_backend_pid()", [db["NAME"]]
        ).fetchone()[0]
        limit = int(conn.execute("show max_connections").fetchone()[0])
    return used, limit


def request(
    port: int, method: str, path: str, session: str | None, data: dict[str, str] | None = None, timeout: float = 30
) -> tuple[int, float]:
    """One HTTP request; (status or 0 on a network error, seconds)."""
    from django.conf import settings

    start = time.perf_counter()
    headers = {}
    if session:
        headers["Cookie"] = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={CSRF}"
        headers["X-CSRFToken"] = CSRF
    body = None
    if data is not None:
        body = urllib.parse.urlencode(data)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        conn.close()
        status = response.status
    except (OSError, http.client.HTTPException):
        status = 0
    return status, time.perf_counter() - start


def serve_load(port: int, setup: dict[str, Any], pages: int, posts: int, workers: int = 10) -> dict[str, Any]:
    """``pages`` thread pages and ``posts`` replies by ``workers`` concurrent clients."""
    thread = setup["thread"]
    jobs = [("GET", f"/campaigns/threads/{thread}/", None)] * pages
    jobs += [("POST", f"/campaigns/threads/{thread}/reply/", {"body": "Bench", "visibility": "public"})] * posts
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda job: (job[0], *request(port, job[0], job[1], setup["session"], job[2])), jobs))
    elapsed = time.perf_counter() - start
    ok = sum(1 for _m, status, _t in results if 200 <= status < 400)
    errors = sum(1 for _m, status, _t in results if status >= 500 or status == 0)
    return {"ok": ok, "errors": errors, "total": len(results), "rate": len(results) / elapsed, "elapsed": elapsed}


class Stream:
    """A minimal SSE reader on a raw asyncio connection (one simulated browser)."""

    def __init__(self, port: int, path: str) -> None:
        self.port, self.path = port, path
        self.opened = asyncio.Event()
        self.closed = False
        self.status = 0
        self.event_ids: list[int] = []
        #: The last ``id:`` received (the stream's resume point), sent back as ``Last-Event-ID``.
        self.last_id = ""
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=2**20)
        except OSError:
            self.closed = True
            self.opened.set()
            return
        headers = f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if self.last_id:
            headers += f"Last-Event-ID: {self.last_id}\r\n"
        writer.write((headers + "\r\n").encode())
        try:
            await writer.drain()
            status_line = await reader.readline()
            parts = status_line.split()
            self.status = int(parts[1]) if len(parts) > 1 else 0
            if self.status != 200:
                return
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"retry:"):
                    self.opened.set()
                elif line.startswith(b"id: "):
                    self.last_id = line[4:].decode().strip()
                elif line.startswith(b"data: "):
                    try:
                        self.event_ids.append(int(json.loads(line[6:])["id"]))
                    except (ValueError, KeyError, TypeError):
                        pass
        except (OSError, ValueError, asyncio.IncompleteReadError):
            return
        finally:
            self.closed = True
            self.opened.set()
            writer.close()


async def open_streams(port: int, path: str, count: int, timeout: float = 180) -> list[Stream]:
    streams = [Stream(port, path) for _ in range(count)]
    for i, stream in enumerate(streams):
        stream.task = asyncio.create_task(stream.run())
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # a connection storm, in waves of 50
    try:
        await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), timeout)
    except TimeoutError:
        pass
    return streams


async def close_streams(streams: list[Stream]) -> None:
    for stream in streams:
        if stream.task:
            stream.task.cancel()
    await asyncio.gather(*(s.task for s in streams if s.task), return_exceptions=True)


def held(streams: list[Stream]) -> int:
    return sum(1 for s in streams if s.opened.is_set() and not s.closed)


async def measure(root: Path, count: int, pages: int, posts: int, label: str) -> dict[str, Any]:
    setup = await asyncio.to_thread(build, f"{os.getpid()}-" + re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-"))
    port = free_port()
    _used, limit = await asyncio.to_thread(pg_connections)
    server = start_server(root, port)
    try:
        await asyncio.to_thread(request, port, "GET", f"/campaigns/threads/{setup['thread']}/", setup["session"])
        base = await asyncio.to_thread(serve_load, port, setup, pages, posts)
        idle = proc_status(server.pid)
        start = time.perf_counter()
        streams = await open_streams(port, f"/live/thread/{setup['thread']}/", count)
        open_time = time.perf_counter() - start
        await asyncio.sleep(2)
        holding = held(streams)
        status = proc_status(server.pid)
        conns, _ = await asyncio.to_thread(pg_connections)
        during = await asyncio.to_thread(serve_load, port, setup, pages, posts)
        # One more post: does it reach every open stream?
        before = {id(s): len(s.event_ids) for s in streams}
        code, _t = await asyncio.to_thread(
            request,
            port,
            "POST",
            f"/campaigns/threads/{setup['thread']}/reply/",
            setup["session"],
            {"body": "Last", "visibility": "public"},
        )
        deadline = time.perf_counter() + 20
        while time.perf_counter() < deadline:
            reached = sum(1 for s in streams if len(s.event_ids) > before[id(s)])
            if reached >= held(streams):
                break
            await asyncio.sleep(0.1)
        reached = sum(1 for s in streams if len(s.event_ids) > before[id(s)])
        still = held(streams)
        conns_after, _ = await asyncio.to_thread(pg_connections)
        await close_streams(streams)
        return {
            "label": label,
            "asked": count,
            "held": holding,
            "still": still,
            "open_s": open_time,
            "rejected": sum(1 for s in streams if s.status and s.status != 200),
            "rss_idle_mb": idle["rss_kb"] / 1024,
            "rss_mb": status["rss_kb"] / 1024,
            "threads_idle": idle["threads"],
            "threads": status["threads"],
            "pg": conns,
            "pg_after": conns_after,
            "pg_limit": limit,
            "base": base,
            "during": during,
            "reached": reached,
            "post_status": code,
        }
    finally:
        stop_server(server)


def connections_text(count: int, limit: int) -> str:
    if count < 0:
        return f"all ({limit}: the server refused one more)"
    return f"{count} ({count / limit:.2f} x max_connections)"


def report(r: dict[str, Any]) -> None:
    base, during = r["base"], r["during"]
    per_stream = (r["rss_mb"] - r["rss_idle_mb"]) * 1024 / max(1, r["held"])
    print(f"--- {r['label']} ---")
    print(
        f"streams held      {r['held']:>6} / {r['asked']} asked   {r['held'] / r['pg_limit']:>6.1f} x max_connections "
        f"({r['pg_limit']})   rejected {r['rejected']}   opened in {r['open_s']:.1f} s"
    )
    print(
        f"db connections    {connections_text(r['pg'], r['pg_limit'])} while held, "
        f"{connections_text(r['pg_after'], r['pg_limit'])} after the load"
    )
    print(
        f"process           RSS {r['rss_idle_mb']:.0f} -> {r['rss_mb']:.0f} MiB ({per_stream:.1f} KiB per stream), "
        f"threads {r['threads_idle']} -> {r['threads']}"
    )
    print(f"served, no stream {base['ok']:>4}/{base['total']} ok, {base['errors']} errors, {base['rate']:.1f} req/s")
    print(
        f"served meanwhile  {during['ok']:>4}/{during['total']} ok, {during['errors']} errors, "
        f"{during['rate']:.1f} req/s ({during['rate'] / base['rate']:.2f} x baseline)"
    )
    print(f"one new post      HTTP {r['post_status']}, reached {r['reached']} of {r['still']} open streams")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--posts", type=int, default=50)
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose code the server runs")
    parser.add_argument("--pool", type=int, default=None, help="the server's TABLEE_DB_POOL_SIZE (0: no pool)")
    args = parser.parse_args()
    if args.pool is not None:
        SERVER_ENV["TABLEE_DB_POOL_SIZE"] = str(args.pool)
    setup_django()
    label = args.root.name + (f" (pool {args.pool})" if args.pool is not None else "")
    result = asyncio.run(measure(args.root.resolve(), args.streams, args.pages, args.posts, label))
    report(result)


if __name__ == "__main__":
    main()
