"""Fault run: one web process under load while PostgreSQL and Redis go away and come back.

Run (loopback only; bounded loops; a SCRATCH PostgreSQL database)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/tablee_scratch \\
        .venv/bin/python bench/fault_run.py [--streams 500] [--root PATH]

What it does, all on 127.0.0.1:

* PostgreSQL is reached through a TCP proxy run by this script: an
  "outage" closes every proxied connection and refuses new ones, then
  listens again (the real server is never stopped).
* Redis is a ``redis-server`` of its own on a free port (started, killed
  for the outage, started again); nothing else uses it.
* One uvicorn process serves ``config.asgi`` as deployed (``DJANGO_DEBUG=0``, static files
  collected into a temporary folder; ``--debug``: DEBUG on) (``--root``: another checkout,
  e.g. main's code, for a before/after comparison).

Figures printed:

1. database connections held after 3 bursts of 50 concurrent posts (and
   the 500s of the bursts);
2. open live streams held by the process (``--streams`` asked);
3. 500s (and network errors) of a steady load of thread pages, posts and
   API reads (4 clients) sent during a 3 s and an 18 s PostgreSQL outage, and a 30 s
   Redis outage (each window includes 5 s after the service is back), how long a 5xx took,
   and how long the slowest request answered ok waited (one sent during a restart waits for it);
4. events missed by live clients that reconnect like browsers
   (``Last-Event-ID``) once everything is back: must be 0;
5. duplicates from double submits (the same form sent twice at once, the
   same API POST replayed with its ``Idempotency-Key``): must be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

import bench_live_streams as bls  # noqa: E402

from tests.tcpproxy import Proxy  # noqa: E402  (PostgreSQL is reached through it)


# -- a Redis server of our own --------------------------------------------------------
class OwnRedis:
    def __init__(self) -> None:
        if shutil.which("redis-server") is None:
            raise SystemExit("redis-server is needed")
        self.port = bls.free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


# -- load ----------------------------------------------------------------------------
class Load:
    """Pages and posts by ``workers`` clients until stopped: (time sent, status, seconds) of each."""

    def __init__(self, port: int, setup: dict[str, Any], workers: int = 4) -> None:
        self.port, self.setup, self.workers = port, setup, workers
        self.results: list[tuple[float, int, float]] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(workers)]

    def _run(self, index: int) -> None:
        thread = self.setup["thread"]
        n = 0
        while not self.stop.is_set():
            n += 1
            began = time.monotonic()
            if n % 3 == 0:
                status, _t = bls.request(
                    self.port,
                    "POST",
                    f"/campaigns/threads/{thread}/reply/",
                    self.setup["session"],
                    {"body": f"charge {index}-{n}", "visibility": "public"},
                    timeout=30,
                )
            elif n % 3 == 1:
                status, _t = bls.request(self.port, "GET", f"/campaigns/threads/{thread}/", self.setup["session"])
            else:
                status = api_get(self.port, self.setup, "/api/v1/me/")
            self.results.append((began, status, time.monotonic() - began))
            time.sleep(0.05)

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(40)

    def window(self, start: float, end: float) -> dict[str, Any]:
        inside = [status for when, status, _s in self.results if start <= when <= end]
        errors = sorted(took for when, status, took in self.results if start <= when <= end and status >= 500)
        served = [took for when, status, took in self.results if start <= when <= end and 200 <= status < 400]
        return {
            # How long the slowest reader served waited (a request sent during a restart waits for it).
            "slowest ok s": round(max(served), 2) if served else None,
            # How long a reader waited for an error page (a page while the database is away).
            "5xx wait s (median, max)": (round(errors[len(errors) // 2], 2), round(errors[-1], 2)) if errors else None,
            "requests": len(inside),
            "5xx": sum(1 for s in inside if s >= 500),
            "503": sum(1 for s in inside if s == 503),
            "network": sum(1 for s in inside if s == 0),
            "ok": sum(1 for s in inside if 200 <= s < 400),
        }


class LiveClient:
    """An SSE client that reconnects like a browser's EventSource, with ``Last-Event-ID``."""

    def __init__(self, port: int, path: str) -> None:
        self.port, self.path = port, path
        self.ids: set[int] = set()
        self.last_id = ""
        self.connections = 0
        self.stop = False
        self.current: bls.Stream | None = None
        #: One line per connection: (opened at, Last-Event-ID sent, ids received, last id: after).
        self.log: list[tuple[float, str, list[int], str]] = []

    def received(self) -> set[int]:
        """Event ids received over every connection, the open one included."""
        return self.ids | set(self.current.event_ids if self.current else ())

    async def run(self) -> None:
        while not self.stop:
            stream = self.current = bls.Stream(self.port, self.path)
            stream.last_id = self.last_id
            self.connections += 1
            opened = time.time()
            await stream.run()
            self.log.append((opened, self.last_id, list(stream.event_ids), stream.last_id))
            self.ids |= set(stream.event_ids)
            self.last_id = stream.last_id or self.last_id
            if not self.stop:
                await asyncio.sleep(3)  # the stream's "retry: 3000"


def retrying(function: Any, *args: Any) -> Any:
    """Run a check of this script's own, retrying while the database refuses connections."""
    from django.db import OperationalError, connections

    for attempt in range(30):
        try:
            return function(*args)
        except OperationalError:
            connections.close_all()
            if attempt == 29:
                raise
            time.sleep(2)
    return None


def db_connections() -> int:
    used, _limit = bls.pg_connections()
    return used


def channel_event_ids(thread_id: int, after: int) -> set[int]:
    from live.models import LiveEvent

    return set(LiveEvent.objects.filter(channel=f"thread:{thread_id}", id__gt=after).values_list("id", flat=True))


def describe_events(ids: list[int]) -> list[tuple[int, str, float, str]]:
    """(id, kind, created as a timestamp, audience) of the given live events."""
    from live.models import LiveEvent

    rows = LiveEvent.objects.filter(id__in=ids).order_by("id")
    return [(e.id, e.kind, e.created.timestamp(), str(e.audience)) for e in rows]


def latest_event_id() -> int:
    from live.models import LiveEvent

    return LiveEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0


def double_submits(port: int, setup: dict[str, Any], pairs: int) -> dict[str, int]:
    """``pairs`` forms sent twice at once, and ``pairs`` API POSTs replayed with their key."""
    from campaigns.models import Post

    thread = setup["thread"]
    form_dupes = api_dupes = 0
    for n in range(pairs):
        page = bls_get(port, f"/campaigns/threads/{thread}/", setup["session"])
        match = re.search(r'name="once" value="([^"]+)"', page)
        body = f"double {os.getpid()} {n}"
        data = {"body": body, "visibility": "public"}
        if match:
            data["once"] = match.group(1)
        with ThreadPoolExecutor(2) as pool:
            list(
                pool.map(
                    lambda _i, data=data: bls.request(
                        port, "POST", f"/campaigns/threads/{thread}/reply/", setup["session"], data
                    ),
                    range(2),
                )
            )
        form_dupes += max(0, Post.objects.filter(thread_id=thread, body=body).count() - 1)
        api_body = f"api {os.getpid()} {n}"
        with ThreadPoolExecutor(2) as pool:
            key = f"key-{os.getpid()}-{n}"
            list(pool.map(lambda _i, b=api_body, k=key: api_post(port, setup, thread, b, k), range(2)))
        api_dupes += max(0, Post.objects.filter(thread_id=thread, body=api_body).count() - 1)
    return {"form": form_dupes, "api": api_dupes, "pairs": pairs}


def bls_get(port: int, path: str, session: str) -> str:
    import http.client

    from django.conf import settings

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"})
    text = conn.getresponse().read().decode("utf-8", "replace")
    conn.close()
    return text


def api_get(port: int, setup: dict[str, Any], path: str) -> int:
    """An API read (throttled per member and per IP, in the cache); 0 on a network error."""
    import http.client

    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", path, headers={"Authorization": f"Token {setup['token']}"})
        status = conn.getresponse().status
        conn.close()
    except (OSError, http.client.HTTPException):
        status = 0
    return status


def api_post(port: int, setup: dict[str, Any], thread: int, body: str, key: str) -> int:
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "POST",
        f"/api/v1/threads/{thread}/posts/",
        body=json.dumps({"body": body}),
        headers={
            "Authorization": f"Token {setup['token']}",
            "Content-Type": "application/json",
            "Idempotency-Key": key,
        },
    )
    status = conn.getresponse().status
    conn.close()
    return status


def production_env(root: Path) -> dict[str, str]:
    """The server as deployed (``DJANGO_DEBUG=0``: the error pages a reader gets, static files
    collected), plain HTTP on the loopback."""
    import tempfile

    from django.conf import settings

    env = {
        "DJANGO_DEBUG": "0",
        # This script's key: the sessions it writes for its members must be valid there.
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "TABLEE_STATIC_ROOT": tempfile.mkdtemp(prefix="tablee-fault-static-"),
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"],
        cwd=root,
        env={**os.environ, **env, "PYTHONPATH": str(root)},
        check=True,
    )
    return env


def api_token(user_id: int) -> str:
    from django.contrib.auth import get_user_model

    from api import services

    _token, key = services.create_token(get_user_model().objects.get(pk=user_id), name="fault run")
    return key


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    proxy = Proxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432)))
    redis = OwnRedis()
    url = urlparse(os.environ["DATABASE_URL"])
    proxied = url._replace(netloc=f"{url.username or 'postgres'}@127.0.0.1:{proxy.port}").geturl()
    setup = await asyncio.to_thread(bls.build, f"fault-{os.getpid()}")
    setup["token"] = await asyncio.to_thread(api_token, setup["gm"])
    port = bls.free_port()
    env = {
        "DATABASE_URL": proxied,
        "REDIS_URL": redis.url,
        "TABLEE_LIVE_BACKEND": "redis",
        "TABLEE_INSTANCE": f"fault{os.getpid()}",
        "CELERY_TASK_ALWAYS_EAGER": "1",
    }
    if not args.debug:
        env.update(await asyncio.to_thread(production_env, args.root))
    server = bls.start_server(args.root, port, env)
    out: dict[str, Any] = {}
    try:
        await asyncio.to_thread(bls.request, port, "GET", f"/campaigns/threads/{setup['thread']}/", setup["session"])
        # 1. Bursts of concurrent posts, then idle.
        burst_errors = 0
        for b in range(3):
            with ThreadPoolExecutor(50) as pool:
                statuses = list(
                    pool.map(
                        lambda i, b=b: bls.request(
                            port,
                            "POST",
                            f"/campaigns/threads/{setup['thread']}/reply/",
                            setup["session"],
                            {"body": f"rafale {b}-{i}", "visibility": "public"},
                        )[0],
                        range(50),
                    )
                )
            burst_errors += sum(1 for s in statuses if s >= 500 or s == 0)
        await asyncio.sleep(5)
        out["bursts"] = {"held": await asyncio.to_thread(db_connections), "errors": burst_errors}
        # 2. Streams held (spectators) + live clients that must miss nothing.
        start_id = await asyncio.to_thread(latest_event_id)
        spectators = await bls.open_streams(port, f"/live/thread/{setup['thread']}/", args.streams)
        out["streams"] = {"held": bls.held(spectators), "asked": args.streams}
        await bls.close_streams(spectators)
        clients = [LiveClient(port, f"/live/thread/{setup['thread']}/") for _ in range(args.live_clients)]
        tasks = [asyncio.create_task(c.run()) for c in clients]
        await asyncio.sleep(2)
        # 3. Outages under a steady load.
        out["outages"] = {}
        marks: dict[str, float] = {"clients": time.time()}
        with Load(port, setup) as load:
            await asyncio.sleep(3)
            for name, seconds, action in (
                ("postgres 3 s", 3, lambda s: proxy.outage(s)),
                ("postgres 18 s", 18, lambda s: proxy.outage(s)),
                ("redis 30 s", 30, lambda s: (redis.kill(), time.sleep(s), redis.start())),
            ):
                began = time.monotonic()
                marks[name] = time.time()
                await asyncio.to_thread(action, seconds)
                marks[name + " back"] = time.time()
                await asyncio.sleep(5)
                out["outages"][name] = load.window(began, time.monotonic())
                await asyncio.sleep(3)
        # 4. Everything is back: live clients catch up, then compare with the database.
        marks["load over"] = time.time()
        await asyncio.sleep(8)
        expected = await asyncio.to_thread(retrying, channel_event_ids, setup["thread"], start_id)
        marks["expected"] = time.time()
        for c in clients:
            c.stop = True
        await asyncio.sleep(0.5)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        missed = [len(expected - c.received()) for c in clients]
        assert expected, "no live event during the run: the load's posts did not go through (a login redirect?)"
        for c in clients:
            lost = sorted(expected - c.received())
            if lost:
                print(f"live client missed {lost}:", flush=True)
                for opened, sent, got, after in c.log:
                    span = f"{min(got)}..{max(got)} ({len(got)})" if got else "none"
                    print(f"  at {opened:.1f} sent {sent!r:>12} got {span} then {after!r}", flush=True)
                if c.current is not None:
                    got = c.current.event_ids
                    span = f"{min(got)}..{max(got)} ({len(got)})" if got else "none"
                    print(f"  open: sent {c.last_id!r} got {span} last id: {c.current.last_id!r}", flush=True)
                print(await asyncio.to_thread(retrying, describe_events, lost), flush=True)
        print(f"phases (epoch s): {marks}", flush=True)
        out["live"] = {
            "clients": len(clients),
            "events": len(expected),
            "missed": sum(missed),
            "worst": max(missed, default=0),
            "reconnects": sum(c.connections - 1 for c in clients),
        }
        # 5. Double submits.
        out["duplicates"] = await asyncio.to_thread(retrying, double_submits, port, setup, args.pairs)
        out["after"] = {"held": await asyncio.to_thread(db_connections)}
    finally:
        bls.stop_server(server)
        redis.kill()
    return out


def report(out: dict[str, Any], label: str) -> None:
    limit = bls.pg_connections()[1]
    print(f"=== fault run: {label} ===")
    b = out["bursts"]
    print(
        f"db connections after 3 bursts of 50 concurrent posts: {bls.connections_text(b['held'], limit)}; "
        f"500s/network errors during the bursts: {b['errors']} of 150"
    )
    s = out["streams"]
    print(f"live streams held by one process: {s['held']} of {s['asked']} asked")
    for name, w in out["outages"].items():
        waits = w["5xx wait s (median, max)"]
        print(
            f"{name:<14} outage (+5 s): {w['requests']:>4} requests, {w['5xx']:>4} answered 5xx "
            f"({w.get('503', 0)} of them 503 'back in a moment'), "
            f"{w['network']:>3} network errors, {w['ok']:>4} ok"
            + (f"; a 5xx took {waits[0]} s (median), {waits[1]} s at most" if waits else "")
            + (f"; the slowest ok took {w['slowest ok s']} s" if w.get("slowest ok s") is not None else "")
        )
    live = out["live"]
    print(
        f"live clients: {live['clients']}, {live['events']} events on the channel, missed after recovery: "
        f"{live['missed']} (worst client {live['worst']}), reconnections {live['reconnects']}"
    )
    d = out["duplicates"]
    print(f"duplicates from double submits: forms {d['form']} of {d['pairs']} pairs, API replays {d['api']}")
    print(f"db connections at the end: {bls.connections_text(out['after']['held'], limit)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--live-clients", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--root", type=Path, default=ROOT.parent, help="checkout whose code the server runs")
    parser.add_argument("--debug", action="store_true", help="serve with DEBUG on (default: as deployed, DEBUG off)")
    args = parser.parse_args()
    args.root = args.root.resolve()
    os.environ.pop("REDIS_URL", None)  # this process itself uses no Redis
    bls.setup_django()
    out = asyncio.run(run(args))
    report(out, str(args.root))


if __name__ == "__main__":
    main()
