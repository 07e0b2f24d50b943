"""URLs of ``tests/test_asgi_handler.py``: one view of each kind the handler tells apart."""

import threading
from collections.abc import AsyncIterator, Iterator

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import path

SEEN: list[tuple[str, str]] = []


def page(request: HttpRequest) -> HttpResponse:
    SEEN.append(("view", threading.current_thread().name))
    return HttpResponse(f"users: {get_user_model().objects.count()}")


def rows(request: HttpRequest) -> StreamingHttpResponse:
    def lines() -> Iterator[bytes]:
        for user in get_user_model().objects.order_by("pk"):  # the database, read while streaming
            SEEN.append(("stream", threading.current_thread().name))
            yield f"{user.username}\n".encode()

    return StreamingHttpResponse(lines(), content_type="text/plain")


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


async def events(request: HttpRequest) -> StreamingHttpResponse:
    SEEN.append(("async", threading.current_thread().name))

    async def one() -> AsyncIterator[bytes]:
        yield b"data: hello\n\n"

    return StreamingHttpResponse(one(), content_type="text/event-stream")


urlpatterns = [
    path("page/", page),
    path("rows/", rows),
    path("broken/", broken),
    path("events/", events),
]
