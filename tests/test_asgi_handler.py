"""The ASGI handler (config.asgi_handler): a sync page in one worker thread, whole; async views
on the event loop; a database connection closed by the thread that opened it."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.testing import ApplicationCommunicator
from django.contrib.auth import get_user_model
from django.core.signals import request_finished, request_started
from django.db import connections

from config.asgi_handler import TableeASGIHandler
from tests import asgi_urls


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


def _get(app: Any, path: str) -> tuple[int, bytes]:
    async def go() -> tuple[int, bytes]:
        communicator = ApplicationCommunicator(app, _scope(path))
        await communicator.send_input({"type": "http.request", "body": b""})
        start = await communicator.receive_output(5)
        assert start["type"] == "http.response.start"
        body = b""
        while True:
            message = await communicator.receive_output(5)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await communicator.wait(5)
        return start["status"], body

    # In a thread of its own: a browser test of this run may have left an event loop running here.
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, go()).result()


@pytest.fixture
def app(settings: Any) -> Any:
    settings.ROOT_URLCONF = "tests.asgi_urls"
    settings.ALLOWED_HOSTS = ["testserver"]
    asgi_urls.SEEN.clear()
    handler = TableeASGIHandler()
    yield handler
    handler._threads.shutdown(wait=True)


@pytest.fixture
def signals_seen() -> Any:
    """Where request_started and request_finished ran, and whether the connection was closed then."""
    seen: list[tuple[str, str, bool]] = []

    def started(**kwargs: Any) -> None:
        seen.append(("started", threading.current_thread().name, True))

    def finished(**kwargs: Any) -> None:  # connected after Django's close_old_connections: runs after it
        seen.append(("finished", threading.current_thread().name, connections["default"].connection is None))

    request_started.connect(started)
    request_finished.connect(finished)
    yield seen
    request_started.disconnect(started)
    request_finished.disconnect(finished)


def test_a_page_is_served_whole_in_one_worker_thread_and_closes_its_connection(
    app: Any, signals_seen: Any, transactional_db: Any
) -> None:
    get_user_model().objects.create_user("ana")
    status, body = _get(app, "/page/")
    assert (status, body) == (200, b"users: 1")
    threads = {name for _, name, _ in signals_seen} | {name for _, name in asgi_urls.SEEN}
    assert len(threads) == 1 and threads.pop().startswith("tablee-web")
    assert [(kind, closed) for kind, _, closed in signals_seen] == [("started", True), ("finished", True)]


def test_a_streaming_page_does_not_hold_a_page_thread_and_closes_what_it_opened(
    app: Any, signals_seen: Any, transactional_db: Any
) -> None:
    for name in ("ana", "ben", "cid"):
        get_user_model().objects.create_user(name)
    status, body = _get(app, "/rows/")
    assert (status, body) == (200, b"ana\nben\ncid\n")
    streamed = {name for kind, name in asgi_urls.SEEN if kind == "stream"}
    assert len(streamed) == 1 and not streamed.pop().startswith("tablee-web")  # not a page thread
    # The stream's reads and its close in one thread: request_finished closed that connection.
    finished = [(name, closed) for kind, name, closed in signals_seen if kind == "finished"]
    assert len(finished) == 1 and finished[0][1] is True
    assert finished[0][0] == next(name for kind, name in asgi_urls.SEEN if kind == "stream")


def test_the_health_check_answers_while_every_page_thread_is_busy(app: Any, db: Any, settings: Any) -> None:
    settings.ROOT_URLCONF = "config.urls"
    import threading as _threading

    gate = _threading.Event()
    busy = [app._threads.submit(gate.wait, 10) for _ in range(settings.WEB_THREADS)]
    try:
        status, body = _get(app, "/healthz")
        assert status == 200, body
    finally:
        gate.set()
        for future in busy:
            future.result()


def test_a_view_that_fails_gives_the_500_page(app: Any, db: Any) -> None:
    status, _ = _get(app, "/broken/")
    assert status == 500


def test_async_views_take_django_s_own_path(app: Any) -> None:
    status, body = _get(app, "/events/")
    assert (status, body) == (200, b"data: hello\n\n")
    assert asgi_urls.SEEN[0][0] == "async" and not asgi_urls.SEEN[0][1].startswith("tablee-web")
    assert app._is_async_view("/events/") and not app._is_async_view("/page/")
    assert not app._is_async_view("/no/such/page/")


def test_the_site_s_live_stream_is_an_async_view_and_pages_are_not(settings: Any) -> None:
    handler = TableeASGIHandler()
    try:
        assert handler._is_async_view("/live/thread/1/")
        assert not handler._is_async_view("/campaigns/threads/1/")
    finally:
        handler._threads.shutdown(wait=True)
