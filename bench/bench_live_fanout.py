"""Benchmark: live fan-out of a resolved combat step to N subscribed browsers.

Run: ``.venv/bin/python bench/bench_live_fanout.py [--sizes 10 100 500] [--steps 10]``

The script starts a real uvicorn server (``config.asgi``) on 127.0.0.1 in a
subprocess, opens N Server-Sent Events streams on ``/live/encounter/<id>/``
(anonymous viewers of a public campaign, like spectators), then the GM
resolves steps through the real ``POST /combat/<id>/resolve/`` route. For
each step it measures the delay from the moment the POST is sent to the
arrival of the ``combat-updated`` event at EVERY client, and prints p50 /
p95 / max over all (client, step) arrivals, the time until the last client
has it, and the POST's own duration (the resolution and its transaction)
as a baseline from the same run.

It runs once with the in-process hub and once through Redis pub/sub (one
subscription per web process, fanned out to its streams) when a Redis
answers at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``).

The database is a scratch SQLite file unless ``DATABASE_URL`` is set (then
point it at a SCRATCH database: it is migrated and gets ``bench-`` rows).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CSRF = "benchbenchbenchbenchbenchbench42"  # a 32-character CSRF secret, sent as cookie and header


def setup_django() -> None:
    if not os.environ.get("DATABASE_URL"):
        path = Path(tempfile.gettempdir()) / f"tablee-bench-live-{os.getpid()}.sqlite3"
        os.environ["TABLEE_SQLITE_PATH"] = str(path)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
    os.environ.pop("REDIS_URL", None)  # the bench process itself never publishes: the server does
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build(tag: str, steps: int) -> tuple[int, str]:
    """A public Ambre campaign, an encounter whose round holds ``steps`` declared actions."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Board, Campaign, Membership, Role, Thread
    from combat import services

    User = get_user_model()
    gm = User.objects.create_user(username=f"bench-gm-{tag}", password=None)
    campaign = Campaign.objects.create(
        title=f"bench {tag}", slug=f"bench-live-{tag}", system="ambre", created_by=gm, is_public=True
    )
    Membership.objects.create(campaign=campaign, user=gm, role=Role.GM)
    board = Board.objects.create(campaign=campaign, name="En jeu", kind=Board.Kind.IN_CHARACTER)
    thread = Thread.objects.create(board=board, campaign=campaign, title="Bench", created_by=gm)
    encounter = services.create_encounter(gm, thread, title="Bench")
    npcs = services.add_participant(gm, encounter, name="Garde", count=min(steps, 20), side="opponents")
    while len(npcs) < steps:
        npcs += services.add_participant(gm, encounter, name="Renfort", count=min(steps - len(npcs), 20))
    services.start_encounter(gm, encounter)
    for npc in npcs:
        services.declare_action(gm, npc, data={"action": "power", "energy_cost": 1})
    services.reveal_declarations(gm, encounter)
    client = Client()
    client.force_login(gm)
    return encounter.pk, client.cookies[settings.SESSION_COOKIE_NAME].value


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, backend: str, redis_url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["TABLEE_LIVE_BACKEND"] = backend
    env["DJANGO_ALLOWED_HOSTS"] = "127.0.0.1,localhost"
    env["TABLEE_LIVE_KEEPALIVE"] = "15"
    if backend == "redis":
        env["REDIS_URL"] = redis_url
    else:
        env.pop("REDIS_URL", None)
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
        "warning",
        "--lifespan",
        "off",
        "--backlog",
        "2048",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("uvicorn did not start")


class SSEClient:
    """A minimal SSE reader on a raw asyncio connection (one per simulated browser)."""

    def __init__(self, port: int, path: str) -> None:
        self.port, self.path = port, path
        self.arrivals: dict[int, float] = {}
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=2**20)
        writer.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"retry:"):
                    self.ready.set()
                elif line.startswith(b"data: "):
                    now = time.perf_counter()
                    try:
                        payload = json.loads(line[6:])
                    except ValueError:
                        continue
                    if "sequence" in payload:
                        self.arrivals.setdefault(payload["sequence"], now)
        finally:
            writer.close()


def post(port: int, path: str, session: str, data: str = "") -> tuple[int, float]:
    from django.conf import settings

    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={CSRF}"
    conn.request(
        "POST",
        path,
        body=data,
        headers={"Cookie": cookie, "X-CSRFToken": CSRF, "Content-Type": "application/x-www-form-urlencoded"},
    )
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status, time.perf_counter() - start


def last_sequence(encounter_id: int) -> int:
    from combat.models import Encounter

    return Encounter.objects.get(pk=encounter_id).last_sequence


async def measure(port: int, encounter_id: int, session: str, clients: int, steps: int) -> dict[str, Any]:
    readers = [SSEClient(port, f"/live/encounter/{encounter_id}/") for _ in range(clients)]
    for r in readers:
        r.task = asyncio.create_task(r.run())
        await asyncio.sleep(0)  # spread the connection storm a little
    await asyncio.wait_for(asyncio.gather(*(r.ready.wait() for r in readers)), timeout=120)
    await asyncio.sleep(0.5)
    delays: list[float] = []
    last_client: list[float] = []
    post_times: list[float] = []
    missing = 0
    for _ in range(steps):
        before = await asyncio.to_thread(last_sequence, encounter_id)
        sent = time.perf_counter()
        status, duration = await asyncio.to_thread(post, port, f"/combat/{encounter_id}/resolve/", session)
        if status not in (200, 302):
            raise RuntimeError(f"resolve answered {status}")
        post_times.append(duration)
        sequence = before + 1
        deadline = time.perf_counter() + 15
        while time.perf_counter() < deadline and not all(sequence in r.arrivals for r in readers):
            await asyncio.sleep(0.002)
        arrived = [r.arrivals[sequence] - sent for r in readers if sequence in r.arrivals]
        missing += clients - len(arrived)
        delays.extend(arrived)
        if arrived:
            last_client.append(max(arrived))
        await asyncio.sleep(0.05)
    for r in readers:
        if r.task:
            r.task.cancel()
    await asyncio.gather(*(r.task for r in readers if r.task), return_exceptions=True)
    return {"delays": delays, "last": last_client, "posts": post_times, "missing": missing}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def redis_available(url: str) -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--backends", nargs="+", default=["inprocess", "redis"])
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    setup_django()
    backends = [b for b in args.backends if b != "redis" or redis_available(redis_url)]
    if "redis" in args.backends and "redis" not in backends:
        print("Redis not reachable: the Redis run is skipped.")
    print(f"Live fan-out: delay from the GM's resolve POST to the event at every SSE client ({args.steps} steps)")
    print(
        f"{'backend':<10} {'N':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'last p50':>9} "
        f"{'POST ms':>8} {'p50/POST':>9} {'missed':>7}"
    )
    tag = str(os.getpid())
    for backend in backends:
        port = free_port()
        server = start_server(port, backend, redis_url)
        try:
            for size in args.sizes:
                encounter_id, session = build(f"{tag}-{backend}-{size}", args.steps)
                result = asyncio.run(measure(port, encounter_id, session, size, args.steps))
                d = [x * 1000 for x in result["delays"]]
                posts = [x * 1000 for x in result["posts"]]
                baseline = statistics.median(posts)
                worst = max(d, default=float("nan"))
                print(
                    f"{backend:<10} {size:>5} {pct(d, 0.5):>8.1f} {pct(d, 0.95):>8.1f} {worst:>8.1f} "
                    f"{pct([x * 1000 for x in result['last']], 0.5):>9.1f} {baseline:>8.1f} "
                    f"{pct(d, 0.5) / baseline:>9.2f} {result['missing']:>7}"
                )
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
