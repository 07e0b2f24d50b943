"""The ASGI handler: one thread hop per page instead of five.

Django's stock ``ASGIHandler`` runs a request of a sync view as a relay between the event loop
and a worker thread: the ``request_started`` signal, the sync middlewares, the async ones, the
view and ``response.close()`` each cross the thread boundary, five hops for every page. Each hop
is a future, a context copy and a wake-up of the other side; under load they are where a page's
p99 goes (#21), and our middlewares and views are all sync code.

:class:`TableeASGIHandler` serves every sync request whole in one of a few long-lived threads
(``TABLEE_WEB_THREADS``), as WSGI would: ``request_started``, the middleware chain loaded in sync
mode, the view, and ``response.close()`` (which sends ``request_finished`` and so returns that
thread's database connection, see ``CONN_MAX_AGE`` in settings). Only the finished response goes
back to the loop to be written out, so a slow reader never holds a thread; a request's body is
read on the loop before a thread is taken. A streaming response (a download) is sent and closed by
the stock code in a thread-sensitive context of its own, its view's connection closed first.

The stock handler still serves the async views (the live streams, which hold a connection open on
the event loop) and ``/healthz``, which must answer while every page thread waits on a sick
database.
"""

from __future__ import annotations

import asyncio
import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.db import connections
from django.http import FileResponse, HttpResponse, HttpResponseServerError
from django.http.response import HttpResponseBase
from django.urls import Resolver404, get_resolver, set_script_prefix

from config.health import PATH as HEALTH_PATH


class _SyncChain(BaseHandler):
    """The middleware chain in sync mode, as under WSGI."""

    def handle_uncaught_exception(self, request: Any, resolver: Any, exc_info: Any) -> HttpResponseBase:
        try:
            return super().handle_uncaught_exception(request, resolver, exc_info)
        except Exception:  # as the stock ASGI handler: there is no server above to catch it
            return HttpResponseServerError("Internal Server Error", content_type="text/plain")


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
        path = path.removeprefix(root) if root else path
        if path == HEALTH_PATH or self._is_async_view(path):
            # The stock path, a thread of its own per request: async views (live streams), and the
            # health check, which must answer while every page thread waits on a sick database.
            await super().__call__(scope, receive, send)
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        try:
            response = await loop.run_in_executor(self._threads, context.run, self._respond, scope, body_file)
            if not response.streaming:
                try:
                    await self.send_response(response, send)
                except asyncio.CancelledError:
                    pass
                return
            async with ThreadSensitiveContext():  # the stream's reads and its close in one thread
                try:
                    await self.send_response(response, send)
                except asyncio.CancelledError:
                    pass
                finally:
                    await sync_to_async(response.close)()
        finally:
            body_file.close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """The whole request in this thread, as under WSGI: a plain response comes back closed
        (``request_finished`` has closed this thread's database connection) for the loop to write."""
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
            response.close()  # request_finished: this thread's database connection goes back
            return response
        # A streaming response is sent from the event loop as Django's own handler sends it (see
        # __call__), so a slow download never holds one of the few page threads: what the view
        # opened here is closed now, what the stream reads is read in its own context.
        for connection in connections.all(initialized_only=True):
            connection.close_if_unusable_or_obsolete()
        return response


def get_application() -> TableeASGIHandler:
    """``django.core.asgi.get_asgi_application`` with :class:`TableeASGIHandler`."""
    import django

    django.setup(set_prefix=False)
    return TableeASGIHandler()
