"""The ASGI handler: one thread hop per page instead of five.

Django's stock ``ASGIHandler`` runs a request of a sync view as a relay between the event loop
and a worker thread: the ``request_started`` signal, the sync middlewares, the async ones, the
view and ``response.close()`` each cross the thread boundary, five hops for every page. Each hop
is a future, a context copy and a wake-up of the other side; under load they are where a page's
p99 goes (#21), and our middlewares and views are all sync code.

:class:`TableeASGIHandler` keeps the stock handler for async views (the live streams, which hold
a connection open on the event loop) and serves every other request whole in one worker thread,
as WSGI would: ``request_started``, the middleware chain loaded in sync mode, the view, and
``response.close()`` (which sends ``request_finished`` and so closes that thread's database
connection, see ``CONN_MAX_AGE`` in settings). Only the finished response goes back to the loop
to be written out. A streaming response is sent and closed by the stock code, in the same
thread-sensitive context as its view, so a generator reading the database closes what it opened.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse, HttpResponse, HttpResponseServerError
from django.http.response import HttpResponseBase
from django.urls import Resolver404, get_resolver, set_script_prefix


class _SyncChain(BaseHandler):
    """The middleware chain in sync mode, as under WSGI."""

    def handle_uncaught_exception(self, request: Any, resolver: Any, exc_info: Any) -> HttpResponseBase:
        try:
            return super().handle_uncaught_exception(request, resolver, exc_info)
        except Exception:  # as the stock ASGI handler: there is no server above to catch it
            return HttpResponseServerError("Internal Server Error", content_type="text/plain")


def _headers(response: HttpResponseBase) -> list[tuple[bytes, bytes]]:
    """The response's headers and cookies as ASGI wants them (as ``ASGIHandler.send_response``)."""
    headers = []
    for header, value in response.items():
        headers.append(
            (
                header.encode("ascii") if isinstance(header, str) else bytes(header),
                value.encode("latin1") if isinstance(value, str) else bytes(value),
            )
        )
    for cookie in response.cookies.values():
        headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
    return headers


class TableeASGIHandler(ASGIHandler):
    """Django's ASGI handler, serving sync views in one thread hop (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._sync_chain = _SyncChain()
        self._sync_chain.load_middleware(is_async=False)
        self._async_paths: dict[str, bool] = {}
        #: The threads that serve pages: a few long-lived ones, not one new thread per request.
        self._threads = ThreadPoolExecutor(max_workers=settings.WEB_THREADS, thread_name_prefix="tablee-web")

    def _is_async_view(self, path: str) -> bool:
        """Whether ``path`` resolves to an async view (remembered per path, bounded)."""
        known = self._async_paths.get(path)
        if known is None:
            try:
                match = get_resolver().resolve(path)
                known = asyncio.iscoroutinefunction(match.func)
            except Resolver404:
                known = False
            if len(self._async_paths) > 4096:
                self._async_paths.clear()
            self._async_paths[path] = known
        return known

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        path = scope.get("path", "") or "/"
        root = scope.get("root_path", "")
        if self._is_async_view(path.removeprefix(root) if root else path):
            await super().__call__(scope, receive, send)  # the stock path: async views
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        try:
            response = await loop.run_in_executor(
                self._threads, context.run, self._respond, scope, body_file, send, loop
            )
            if response is not None:
                try:
                    await self.send_response(response, send)
                except asyncio.CancelledError:
                    pass
        finally:
            body_file.close()

    def _respond(
        self, scope: dict[str, Any], body_file: Any, send: Any, loop: asyncio.AbstractEventLoop
    ) -> HttpResponseBase | None:
        """The whole request in this thread, as under WSGI.

        A plain response comes back closed (``request_finished`` has closed this thread's database
        connection) for the loop to write out. A streaming response is written from here, chunk by
        chunk, so a generator that reads the database does it in this thread, and is closed here.
        """
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        response: HttpResponseBase
        if request is None:
            response = error_response if error_response is not None else HttpResponse(status=400)
        else:
            response = self._sync_chain.get_response(request)
            response._handler_class = self.__class__  # type: ignore[attr-defined]
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        if not response.streaming:
            response.close()
            return response
        try:
            if getattr(response, "is_async", False):
                asyncio.run_coroutine_threadsafe(self.send_response(response, send), loop).result()
            else:
                self._stream(response, send, loop)
        except (asyncio.CancelledError, OSError):
            pass  # the client left
        finally:
            response.close()
        return None

    def _stream(self, response: Any, send: Any, loop: asyncio.AbstractEventLoop) -> None:
        def push(message: dict[str, Any]) -> None:
            asyncio.run_coroutine_threadsafe(send(message), loop).result()

        push({"type": "http.response.start", "status": response.status_code, "headers": _headers(response)})
        for part in response.streaming_content:
            for chunk, _ in self.chunk_bytes(part):
                push({"type": "http.response.body", "body": chunk, "more_body": True})
        push({"type": "http.response.body"})


def get_application() -> TableeASGIHandler:
    """``django.core.asgi.get_asgi_application`` with :class:`TableeASGIHandler`."""
    import django

    django.setup(set_prefix=False)
    return TableeASGIHandler()
