"""The Server-Sent Events endpoint: ``/live/<prefix>/<id>/``.

An async view under the ASGI server. It authorizes the viewer, replays what
the browser missed since ``Last-Event-ID`` from the database, then streams
what the process hub delivers, filtered by each event's audience. htmx's SSE
extension connects with ``sse-connect`` and triggers ``sse:<kind>``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import Http404, HttpRequest, StreamingHttpResponse

from live import registry
from live.events import audience_allows
from live.hub import hub
from live.models import LiveEvent

CATCH_UP_LIMIT = 500


def _last_event_id(request: HttpRequest) -> int:
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id") or ""
    try:
        return max(0, int(raw))
    except ValueError:
        return 0


def format_event(message: dict[str, Any]) -> str:
    payload = json.dumps({"id": message["id"], **message.get("data", {})}, separators=(",", ":"))
    return f"id: {message['id']}\nevent: {message['kind']}\ndata: {payload}\n\n"


def _missed(channel: str, after: int) -> list[dict[str, Any]]:
    rows = LiveEvent.objects.filter(channel=channel, id__gt=after).order_by("id")[:CATCH_UP_LIMIT]
    return [row.message() for row in rows]


def _latest_id(channel: str) -> int:
    row = LiveEvent.objects.filter(channel=channel).order_by("-id").values_list("id", flat=True).first()
    return row or 0


async def stream(request: HttpRequest, prefix: str, object_id: int) -> StreamingHttpResponse:
    user = await request.auser()
    viewer = await sync_to_async(registry.authorize)(prefix, user, object_id)
    if viewer is None:
        raise Http404
    channel = f"{prefix}:{object_id}"
    last_id = _last_event_id(request)
    if not last_id:
        # A fresh page already shows the current state: start from now.
        last_id = await sync_to_async(_latest_id)(channel)
    subscription = hub.subscribe(channel)
    keepalive = settings.LIVE_KEEPALIVE_SECONDS

    async def events() -> AsyncIterator[str]:
        sent = last_id
        # Ids already delivered: transactions may commit out of id order, so
        # dedupe by id rather than by "greater than the last one".
        delivered: set[int] = set()
        try:
            yield f"retry: 3000\nid: {sent}\n\n" if sent else "retry: 3000\n\n"
            for message in await sync_to_async(_missed)(channel, sent):
                if audience_allows(message.get("audience", {}), viewer.user_id, viewer.is_gm):
                    yield format_event(message)
                delivered.add(message["id"])
                sent = max(sent, message["id"])
            while True:
                try:
                    message = await asyncio.wait_for(subscription.queue.get(), timeout=keepalive)
                except TimeoutError:
                    if subscription.overflowed:
                        return  # the browser reconnects and catches up
                    yield ": keep-alive\n\n"
                    continue
                if message["id"] in delivered or message["id"] <= last_id:
                    continue
                delivered.add(message["id"])
                if len(delivered) > 5000:
                    delivered = set(sorted(delivered)[-1000:])
                sent = max(sent, message["id"])
                if audience_allows(message.get("audience", {}), viewer.user_id, viewer.is_gm):
                    yield format_event(message)
        finally:
            hub.unsubscribe(subscription)

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
