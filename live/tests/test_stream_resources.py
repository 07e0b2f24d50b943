"""An open live stream holds no database connection and no thread; it closes when Redis is lost."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import threading
import time
import weakref
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.db.backends.signals import connection_created
from django.test import AsyncClient, Client

from campaigns.models import Thread
from live.events import publish
from live.hub import hub


def make_thread(table: Any) -> Thread:
    board = table.campaign.boards.first()
    return Thread.objects.create(board=board, campaign=table.campaign, title="Scène 1", created_by=table.gm)


def open_stream(port: int, path: str, cookie: str) -> socket.socket:
    """A raw SSE request; returns once the stream has sent its ``retry:`` line."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nCookie: {cookie}\r\n\r\n".encode()
    )
    received = b""
    while b"retry:" not in received:
        chunk = sock.recv(4096)
        assert chunk, received
        received += chunk
    assert received.startswith(b"HTTP/1.1 200"), received[:200]
    return sock


@pytest.mark.django_db(transaction=True)
def test_open_streams_hold_no_database_connection_and_no_thread(table: Any, asgi_server: Any) -> None:
    thread = make_thread(table)
    client = Client()
    client.force_login(table.player)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    path = f"/live/thread/{thread.pk}/"
    channel = f"thread:{thread.pk}"
    opened: list[weakref.ref[Any]] = []

    def created(sender: Any, connection: Any, **kwargs: Any) -> None:
        opened.append(weakref.ref(connection))

    connection_created.connect(created, weak=False)
    sockets: list[socket.socket] = []
    try:
        # A few streams first: the shared worker threads exist from now on.
        sockets += [open_stream(asgi_server.port, path, cookie) for _ in range(4)]
        time.sleep(0.3)
        threads_before = threading.active_count()
        sockets += [open_stream(asgi_server.port, path, cookie) for _ in range(16)]
        deadline = time.monotonic() + 5
        while hub.subscriber_count(channel) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert hub.subscriber_count(channel) == 20
        time.sleep(0.5)  # let released threads end
        # Every connection the server opened for these streams was closed again.
        assert opened, "the streams read the database (authorization, catch-up)"
        still_open = [ref() for ref in opened if ref() is not None and ref().connection is not None]
        assert still_open == []
        # And 16 more open streams did not cost 16 more threads.
        assert threading.active_count() - threads_before <= 2
        # The streams still deliver.
        publish(channel, "post-created", {"post": 1})
        for sock in sockets[:3]:
            received = b""
            while b"post-created" not in received:
                chunk = sock.recv(4096)
                assert chunk
                received += chunk
    finally:
        connection_created.disconnect(created)
        for sock in sockets:
            sock.close()


async def read_until_end(response: Any, timeout: float) -> tuple[bool, list[str]]:
    """Read a stream; (whether it ended by itself within ``timeout``, event names)."""
    events: list[str] = []
    iterator = response.streaming_content.__aiter__()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in iterator:
                text = chunk.decode() if isinstance(chunk, bytes) else chunk
                events += [line[7:] for line in text.splitlines() if line.startswith("event: ")]
        return True, events
    except TimeoutError:
        return False, events
    finally:
        await iterator.aclose()


@pytest.mark.django_db(transaction=True)
def test_a_stream_closes_when_the_subscription_is_lost_and_the_browser_catches_up(table: Any) -> None:
    thread = make_thread(table)
    channel = f"thread:{thread.pk}"
    start = publish(channel, "start", {})

    async def go() -> tuple[bool, list[str], list[str]]:
        client = AsyncClient()
        await client.aforce_login(table.player)
        response = await client.get(f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(start.pk)})
        reader = asyncio.ensure_future(read_until_end(response, 5))
        while not hub.subscriber_count(channel):
            await asyncio.sleep(0.02)
        hub.lose_subscription()
        ended, events = await reader
        # Published while nobody listened: the reconnecting browser gets it.
        missed = await sync_to_async(publish)(channel, "post-created", {"post": 9})
        again = await client.get(f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(start.pk)})
        _ended, caught_up = await read_until_end(again, 1)
        assert missed.pk
        return ended, events, caught_up

    ended, events, caught_up = async_to_sync(go)()
    assert ended is True
    assert events == []
    assert caught_up == ["post-created"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")
@pytest.mark.django_db(transaction=True)
def test_killing_redis_closes_open_streams(table: Any, settings: Any) -> None:
    """A Redis server of the test's own: killed while a stream is open, the stream ends."""
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        settings.LIVE_BACKEND = "redis"
        settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
        settings.LIVE_REDIS_PREFIX = f"tablee:test-{port}:live:"
        thread = make_thread(table)

        async def go() -> tuple[bool, bool]:
            client = AsyncClient()
            await client.aforce_login(table.player)
            for _ in range(50):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            response = await client.get(f"/live/thread/{thread.pk}/")
            reader = asyncio.ensure_future(read_until_end(response, 8))
            connected = await hub.wait_connected(5)
            redis.kill()
            ended, _events = await reader
            return connected, ended

        connected, ended = async_to_sync(go)()
        assert connected is True
        assert ended is True
    finally:
        redis.kill()
        redis.wait()
        hub._listener = None
        hub._set_connected(False)
