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
import time
from collections import deque
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
from rules.base import is_digits

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


#: Seconds within which an event may still commit after a later one (ids are
#: given at insert, transactions commit out of id order): a stream treats an id
#: below what it delivered as possibly still to come for this long.
OVERLAP_SECONDS = 60.0
#: At most this many delivered ids in a resume point (the browser's ``Last-Event-ID``).
RESUME_IDS = 50
#: At most this many ids a stream remembers as delivered within the overlap (a bound on memory:
#: a channel this busy pushes its floor up by count too).
REMEMBERED_IDS = 5000


def _resume_point(request: HttpRequest) -> tuple[int, set[int]] | None:
    """``Last-Event-ID`` as (floor, ids delivered above it), or ``None`` for a fresh page.

    The ``id:`` of each event is ``"<floor>:<id>,<id>..."``: the browser has
    every event up to ``floor`` and these above it, so a late commit below
    the newest id is not lost on reconnection. A plain ``"<n>"`` means all
    up to ``n``.
    """
    raw = (request.headers.get("Last-Event-ID") or request.GET.get("last_event_id") or "").strip()
    head, _sep, tail = raw.partition(":")
    try:
        floor = max(0, int(head))
    except ValueError:
        return None
    ids = {int(part) for part in tail.split(",")[: RESUME_IDS * 2] if is_digits(part) and int(part) > floor}
    return floor, ids


def format_event(message: dict[str, Any], resume: str | None = None) -> str:
    # The hub hands the same dict to every stream of the process: format once.
    text = message.get("_sse")
    if text is None:
        payload = json.dumps({"id": message["id"], **message.get("data", {})}, separators=(",", ":"))
        text = message["_sse"] = f"event: {message['kind']}\ndata: {payload}\n\n"
    return f"id: {resume if resume is not None else message['id']}\n{text}"


def _missed(channel: str, after: int) -> list[dict[str, Any]]:
    rows = LiveEvent.objects.filter(channel=channel, id__gt=after).order_by("id")[:CATCH_UP_LIMIT]
    return [row.message() for row in rows]


def _latest_id(channel: str) -> int:
    row = LiveEvent.objects.filter(channel=channel).order_by("-id").values_list("id", flat=True).first()
    return row or 0


class _Resume:
    """What a stream delivered: the floor and the ids above it (see :func:`_resume_point`).

    In memory the floor lags by time only: an event delivered less than
    :data:`OVERLAP_SECONDS` ago keeps every lower id open, however many events
    followed it, so a transaction that commits (and publishes) late on a busy
    channel is still delivered. The resume point handed to the browser is
    bounded: its floor is raised so that at most :data:`RESUME_IDS` ids follow."""

    def __init__(self, floor: int, ids: set[int]) -> None:
        self.floor = floor
        now = time.monotonic()
        self.window: deque[tuple[float, int]] = deque((now, i) for i in sorted(ids) if i > floor)
        self.delivered: set[int] = {i for i in ids if i > floor}

    def seen(self, event_id: int) -> bool:
        return event_id <= self.floor or event_id in self.delivered

    def add(self, event_id: int) -> None:
        self.delivered.add(event_id)
        self.window.append((time.monotonic(), event_id))
        self.advance()

    def advance(self) -> None:
        horizon = time.monotonic() - OVERLAP_SECONDS
        window = self.window
        while window and (window[0][0] < horizon or len(window) > REMEMBERED_IDS):
            _when, event_id = window.popleft()
            self.floor = max(self.floor, event_id)
        if len(self.delivered) > len(window) * 2 + 64:
            self.delivered = {i for i in self.delivered if i > self.floor}

    def _bounded(self) -> tuple[int, list[int]]:
        ids = sorted({i for _when, i in self.window if i > self.floor})
        if len(ids) > RESUME_IDS:
            return ids[-RESUME_IDS - 1], ids[-RESUME_IDS:]
        return self.floor, ids

    def read_floor(self) -> int:
        """Where a database read of missed events starts: the resume point's floor (a read covers
        late commits among the last :data:`RESUME_IDS` ids, as a reconnection does)."""
        return self._bounded()[0]

    def token(self) -> str:
        floor, ids = self._bounded()
        return f"{floor}:{','.join(map(str, ids))}" if ids else str(floor)


async def stream(request: HttpRequest, prefix: str, object_id: int) -> StreamingHttpResponse:
    user = await request.auser()
    viewer = await _db(registry.authorize)(prefix, user, object_id)
    if viewer is None:
        raise Http404
    channel = f"{prefix}:{object_id}"
    point = _resume_point(request)
    if point is None or point == (0, set()):
        # A fresh page already shows the current state: start from now.
        point = (await _db(_latest_id)(channel), set())
    # Subscribe before reading what was missed: nothing falls in between.
    subscription = hub.subscribe(channel)
    keepalive = settings.LIVE_KEEPALIVE_SECONDS

    async def events() -> AsyncIterator[str]:
        # Transactions commit out of id order: dedupe by id, and resume from
        # a floor that lags (see _Resume), never from "the newest id".
        resume = _Resume(*point)

        def deliver(message: dict[str, Any]) -> str | None:
            if resume.seen(message["id"]):
                return None
            resume.add(message["id"])
            if audience_allows(message.get("audience", {}), viewer.user_id, viewer.is_gm):
                return format_event(message, resume.token())
            return None

        async def catch_up() -> AsyncIterator[str]:
            for message in await _db(_missed)(channel, resume.read_floor()):
                if (chunk := deliver(message)) is not None:
                    yield chunk

        try:
            # The middleware has run: give back its connection and its thread.
            await sync_to_async(_close_request_connections)()
            _release_request_thread()
            yield f"retry: 3000\nid: {resume.token()}\n\n" if resume.floor else "retry: 3000\n\n"
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
                    resume.advance()
                    yield ": keep-alive\n\n"
                    continue
                if subscription.lost:
                    return  # events may have been missed: reconnect and catch up
                if not live:
                    # The hub is back while this stream was reading the database: one last
                    # read covers what was published before the subscription, then live.
                    live = hub.connected
                    async for chunk in catch_up():
                        yield chunk
                if (chunk := deliver(message)) is not None:
                    yield chunk
        finally:
            hub.unsubscribe(subscription)

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
