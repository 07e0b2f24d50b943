"""The Server-Sent Events endpoint: ``/live/<prefix>/<id>/``.

An async view under the ASGI server. It authorizes the viewer, replays what
the browser missed since ``Last-Event-ID`` from the database, then streams
what the process hub delivers, filtered by each event's audience. htmx's SSE
extension connects with ``sse-connect`` and triggers ``sse:<kind>``.

An open stream holds no database connection and no thread while idle, so
one process holds thousands: every database read (authorization, catch-up)
runs in a short block on a shared worker thread that gives its connection
back at once (:func:`_db`), the request's own thread (where Django's
middleware ran) is given back once the stream starts
(:func:`_release_request_thread`), and waiting is pure asyncio on the
process hub. When the hub loses its Redis subscription the stream ends:
the browser reconnects with ``Last-Event-ID`` and catches up. While Redis
stays down, streams read the database every ``LIVE_POLL_SECONDS``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections
from django.http import Http404, HttpRequest, StreamingHttpResponse

from live import registry
from live.events import audience_allows
from live.hub import hub
from live.models import LiveEvent

logger = logging.getLogger(__name__)

CATCH_UP_LIMIT = 500
#: Seconds between database reads of a stream while Redis is down.
POLL_SECONDS = 5.0
#: Seconds a new stream waits for the process's Redis subscription.
CONNECT_WAIT = 2.0

T = TypeVar("T")


def _db(function: Callable[..., T]) -> Callable[..., Any]:
    """``function`` as a short async block on a shared worker thread that closes its connection.

    Not thread-sensitive on purpose: the request's own thread is released
    while the stream is open, and the loop's bounded default executor caps
    how many streams read at once.
    """

    def run(*args: Any) -> T:
        try:
            return function(*args)
        finally:
            connections.close_all()

    return sync_to_async(run, thread_sensitive=False)


def _close_request_connections() -> None:
    connections.close_all()


def _release_request_thread() -> None:
    """Let the per-request thread of Django's ASGI handler end now rather than with the stream.

    Django runs each request's sync code (middleware, ``auser``) on one
    thread of its own (asgiref's ``ThreadSensitiveContext``), kept until the
    response ends: for a stream, its whole life. Once the middleware has run,
    nothing of this request needs that thread any more; a later sync call of
    the request (``response.close()``) gets a fresh one.
    """
    try:
        from asgiref.sync import SyncToAsync

        context = SyncToAsync.thread_sensitive_context.get(None)
        if context is None:
            return
        executor = SyncToAsync.context_to_thread_executor.pop(context, None)
        if executor is not None:
            executor.shutdown(wait=False)
    except Exception:  # asgiref internals changed: keep the thread, lose nothing else
        logger.debug("live: could not release the request thread", exc_info=True)


def _last_event_id(request: HttpRequest) -> int:
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id") or ""
    try:
        return max(0, int(raw))
    except ValueError:
        return 0


def format_event(message: dict[str, Any]) -> str:
    # The hub hands the same dict to every stream of the process: format once.
    text = message.get("_sse")
    if text is None:
        payload = json.dumps({"id": message["id"], **message.get("data", {})}, separators=(",", ":"))
        text = message["_sse"] = f"id: {message['id']}\nevent: {message['kind']}\ndata: {payload}\n\n"
    return text


def _missed(channel: str, after: int) -> list[dict[str, Any]]:
    rows = LiveEvent.objects.filter(channel=channel, id__gt=after).order_by("id")[:CATCH_UP_LIMIT]
    return [row.message() for row in rows]


def _latest_id(channel: str) -> int:
    row = LiveEvent.objects.filter(channel=channel).order_by("-id").values_list("id", flat=True).first()
    return row or 0


async def stream(request: HttpRequest, prefix: str, object_id: int) -> StreamingHttpResponse:
    user = await request.auser()
    viewer = await _db(registry.authorize)(prefix, user, object_id)
    if viewer is None:
        raise Http404
    channel = f"{prefix}:{object_id}"
    last_id = _last_event_id(request)
    if not last_id:
        # A fresh page already shows the current state: start from now.
        last_id = await _db(_latest_id)(channel)
    # Subscribe before reading what was missed: nothing falls in between.
    subscription = hub.subscribe(channel)
    keepalive = settings.LIVE_KEEPALIVE_SECONDS

    async def events() -> AsyncIterator[str]:
        sent = last_id
        # Ids already delivered: transactions may commit out of id order, so
        # dedupe by id rather than by "greater than the last one".
        delivered: set[int] = set()

        def fresh(message: dict[str, Any]) -> bool:
            nonlocal delivered, sent
            if message["id"] in delivered or message["id"] <= last_id:
                return False
            delivered.add(message["id"])
            if len(delivered) > 5000:
                delivered = set(sorted(delivered)[-1000:])
            sent = max(sent, message["id"])
            return audience_allows(message.get("audience", {}), viewer.user_id, viewer.is_gm)

        async def catch_up() -> AsyncIterator[str]:
            for message in await _db(_missed)(channel, sent):
                if fresh(message):
                    yield format_event(message)

        try:
            # The middleware has run: give back its connection and its thread.
            await sync_to_async(_close_request_connections)()
            _release_request_thread()
            yield f"retry: 3000\nid: {sent}\n\n" if sent else "retry: 3000\n\n"
            live = await hub.wait_connected(CONNECT_WAIT)
            async for chunk in catch_up():
                yield chunk
            while True:
                timeout = keepalive if live else min(keepalive, POLL_SECONDS)
                try:
                    async with asyncio.timeout(timeout):
                        message = await subscription.queue.get()
                except TimeoutError:
                    if subscription.overflowed:
                        return  # the browser reconnects and catches up
                    if not live:
                        # Redis is down: read the database; once it is back, one
                        # last read covers what came before the subscription.
                        live = hub.connected
                        async for chunk in catch_up():
                            yield chunk
                    yield ": keep-alive\n\n"
                    continue
                if subscription.lost:
                    return  # events may have been missed: reconnect and catch up
                if fresh(message):
                    yield format_event(message)
        finally:
            hub.unsubscribe(subscription)

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
