"""Publishing live events from services (Zulip's ``send_event_on_commit``).

Call :func:`publish` inside the service's transaction: the event row is
written in the same transaction (so a rollback leaves no trace) and the
notification goes out with ``transaction.on_commit`` (so nobody hears about
a write that did not happen).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from live.hub import hub
from live.models import LiveEvent


def publish(
    channel: str,
    kind: str,
    data: dict[str, Any] | None = None,
    *,
    users: list[int] | None = None,
    gms: bool = True,
    gms_only: bool = False,
) -> LiveEvent:
    """Record an event on ``channel`` and notify its viewers after commit.

    ``kind`` is the SSE event name (use ``a-b`` style names: htmx triggers on
    ``sse:<kind>``). ``data`` must be safe for every allowed viewer. Narrow
    the audience with ``users`` (plus the GMs unless ``gms=False``) or
    ``gms_only``.
    """
    audience: dict[str, Any] = {}
    if gms_only:
        audience = {"gms_only": True}
    elif users is not None:
        audience = {"users": sorted(set(users)), "gms": gms}
    event = LiveEvent.objects.create(channel=channel, kind=kind, data=data or {}, audience=audience)
    message = event.message()
    transaction.on_commit(lambda: hub.publish(message))
    return event


def audience_allows(audience: dict[str, Any], user_id: int | None, is_gm: bool) -> bool:
    """Whether a viewer may receive an event with this audience."""
    if not audience:
        return True
    if audience.get("gms_only"):
        return is_gm
    if is_gm and audience.get("gms", True):
        return True
    return user_id is not None and user_id in audience.get("users", [])


def publish_many(events: list[tuple[str, str, dict[str, Any] | None]], *, gms_only: bool = False) -> list[LiveEvent]:
    """:func:`publish` for many ``(channel, kind, data)`` events at once (one INSERT), e.g. a job
    telling each changed character's page; every viewer of each channel (or its GMs) may hear it."""
    audience: dict[str, Any] = {"gms_only": True} if gms_only else {}
    if connection.vendor == "postgresql":
        messages = _insert_events(events, audience)
        transaction.on_commit(lambda: hub.publish_many(messages))
        return [
            LiveEvent(id=m["id"], channel=m["channel"], kind=m["kind"], data=m["data"], audience=audience)
            for m in messages
        ]
    created = LiveEvent.objects.bulk_create(
        [LiveEvent(channel=channel, kind=kind, data=data or {}, audience=audience) for channel, kind, data in events],
        batch_size=500,
    )
    messages = [event.message() for event in created]
    transaction.on_commit(lambda: hub.publish_many(messages))
    return created


def _insert_events(events: list[tuple[str, str, dict[str, Any] | None]], audience: dict[str, Any]) -> list[dict]:
    """PostgreSQL: the events in one ``INSERT … SELECT FROM jsonb_to_recordset … RETURNING id`` per
    thousand (a session job tells a thousand sheets at once; the ORM's rows cost ten times more)."""
    quote = connection.ops.quote_name
    table = quote(LiveEvent._meta.db_table)
    sql = (
        f"INSERT INTO {table} (channel, kind, data, audience, created) "
        "SELECT x.channel, x.kind, x.data, %s::jsonb, %s "
        "FROM ROWS FROM (jsonb_to_recordset(%s::jsonb) AS (channel varchar(120), kind varchar(60), data jsonb)) "
        "WITH ORDINALITY AS x(channel, kind, data, n) ORDER BY x.n RETURNING id"
    )
    messages: list[dict] = []
    now = timezone.now()
    with connection.cursor() as cursor:
        for start in range(0, len(events), 1000):
            part = [{"channel": c, "kind": k, "data": d or {}} for c, k, d in events[start : start + 1000]]
            cursor.execute(sql, [json.dumps(audience), now, json.dumps(part, cls=DjangoJSONEncoder)])
            ids = sorted(row[0] for row in cursor.fetchall())
            messages += [{"id": i, **event, "audience": audience} for i, event in zip(ids, part, strict=True)]
    return messages
