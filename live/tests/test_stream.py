"""The live event stream: authorization, audience, catch-up, delivery after commit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction
from django.test import AsyncClient

from campaigns.models import Thread
from live.events import audience_allows, publish
from live.hub import hub
from live.models import LiveEvent


def make_thread(table: Any) -> Thread:
    board = table.campaign.boards.first()
    return Thread.objects.create(board=board, campaign=table.campaign, title="Scène 1", created_by=table.gm)


async def read_events(response: Any, count: int, timeout: float = 5.0) -> list[str]:
    """Read SSE chunks until ``count`` events (``event:`` lines) arrived."""
    events: list[str] = []
    iterator = response.streaming_content.__aiter__()

    async def consume() -> None:
        while len(events) < count:
            chunk = await iterator.__anext__()
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            events.extend(line[len("event: ") :] for line in text.splitlines() if line.startswith("event: "))

    try:
        await asyncio.wait_for(consume(), timeout)
    except TimeoutError:
        pass
    finally:
        await iterator.aclose()
    return events


async def client_for(user: Any) -> AsyncClient:
    client = AsyncClient()
    if user is not None:
        await client.aforce_login(user)
    return client


@pytest.mark.django_db(transaction=True)
def test_it_answers_404_to_users_who_may_not_see_the_thread(table: Any) -> None:
    thread = make_thread(table)

    async def go() -> list[int]:
        codes = []
        for user in (None, table.outsider):
            response = await (await client_for(user)).get(f"/live/thread/{thread.pk}/")
            codes.append(response.status_code)
        response = await (await client_for(table.player)).get("/live/thread/999999/")
        codes.append(response.status_code)
        response = await (await client_for(table.player)).get(f"/live/nosuchprefix/{thread.pk}/")
        codes.append(response.status_code)
        return codes

    assert async_to_sync(go)() == [404, 404, 404, 404]


@pytest.mark.django_db(transaction=True)
def test_it_replays_what_a_reconnecting_browser_missed(table: Any) -> None:
    thread = make_thread(table)
    first = publish(f"thread:{thread.pk}", "post-created", {"post": 1})
    publish(f"thread:{thread.pk}", "post-created", {"post": 2})
    publish(f"thread:{thread.pk}", "post-edited", {"post": 2})

    async def go() -> list[str]:
        response = await (await client_for(table.player)).get(
            f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(first.pk)}
        )
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        return await read_events(response, 2, timeout=3)

    assert async_to_sync(go)() == ["post-created", "post-edited"]


@pytest.mark.django_db(transaction=True)
def test_it_filters_events_by_audience(table: Any) -> None:
    thread = make_thread(table)
    start = publish(f"thread:{thread.pk}", "start", {})
    publish(f"thread:{thread.pk}", "gm-note", {}, gms_only=True)
    publish(f"thread:{thread.pk}", "whisper", {}, users=[table.player2.pk])
    publish(f"thread:{thread.pk}", "public", {})

    async def events_for(user: Any) -> list[str]:
        response = await (await client_for(user)).get(
            f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(start.pk)}
        )
        return await read_events(response, 3, timeout=1.5)

    assert async_to_sync(events_for)(table.player) == ["public"]
    assert async_to_sync(events_for)(table.player2) == ["whisper", "public"]
    assert async_to_sync(events_for)(table.gm) == ["gm-note", "whisper", "public"]
    assert async_to_sync(events_for)(table.cogm) == ["gm-note", "whisper", "public"]


@pytest.mark.django_db(transaction=True)
def test_it_delivers_new_events_to_open_streams(table: Any) -> None:
    thread = make_thread(table)
    channel = f"thread:{thread.pk}"

    async def go() -> list[str]:
        response = await (await client_for(table.player)).get(f"/live/thread/{thread.pk}/")
        reader = asyncio.ensure_future(read_events(response, 1, timeout=5))
        for _ in range(100):  # wait until the stream has subscribed
            if hub.subscriber_count(channel):
                break
            await asyncio.sleep(0.02)
        await sync_to_async(publish)(channel, "post-created", {"post": 7})
        return await reader

    assert async_to_sync(go)() == ["post-created"]


@pytest.mark.django_db(transaction=True)
def test_it_publishes_nothing_when_the_transaction_rolls_back(table: Any) -> None:
    thread = make_thread(table)
    sent: list[dict] = []
    original = hub.publish
    hub.publish = sent.append  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError), transaction.atomic():
            publish(f"thread:{thread.pk}", "post-created", {"post": 1})
            raise RuntimeError("write failed")
        assert sent == []
        assert LiveEvent.objects.count() == 0
        with transaction.atomic():
            publish(f"thread:{thread.pk}", "post-created", {"post": 2})
            assert sent == []  # not before commit
        assert [m["data"] for m in sent] == [{"post": 2}]
    finally:
        hub.publish = original  # type: ignore[method-assign]


def test_audience_rules() -> None:
    assert audience_allows({}, None, False)
    assert not audience_allows({"gms_only": True}, 1, False)
    assert audience_allows({"gms_only": True}, 1, True)
    assert audience_allows({"users": [3], "gms": True}, 3, False)
    assert not audience_allows({"users": [3], "gms": True}, 4, False)
    assert audience_allows({"users": [3], "gms": True}, 4, True)
    assert not audience_allows({"users": [3], "gms": False}, 4, True)


@pytest.mark.django_db(transaction=True)
def test_a_late_commit_below_the_newest_id_is_replayed_on_reconnection(table: Any) -> None:
    """Ids are given at insert: 2 may commit after 3. The resume point ``floor:ids`` keeps 2 reachable."""
    thread = make_thread(table)
    channel = f"thread:{thread.pk}"
    first = publish(channel, "start", {})
    late = publish(channel, "late", {})
    newest = publish(channel, "newest", {})

    async def go(last_event_id: str) -> list[str]:
        response = await (await client_for(table.player)).get(
            f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": last_event_id}
        )
        return await read_events(response, 2, timeout=1.5)

    # The browser had "start" and "newest", not "late".
    assert async_to_sync(go)(f"{first.pk}:{newest.pk}") == ["late"]
    # A plain id still means "everything up to it".
    assert async_to_sync(go)(str(late.pk)) == ["newest"]


def test_the_resume_point_lags_and_lists_what_it_delivered() -> None:
    from live import views

    resume = views._Resume(10, set())
    resume.add(12)
    resume.add(14)
    assert resume.token() == "10:12,14"
    assert resume.seen(9) and resume.seen(12) and not resume.seen(13)
    resume.window = type(resume.window)((when - views.OVERLAP_SECONDS - 1, i) for when, i in resume.window)
    resume.advance()
    assert resume.token() == "14"


def test_a_late_event_is_delivered_however_many_followed_it() -> None:
    """A transaction that commits late on a busy channel: its event comes after 60 newer ones
    and is still delivered (the floor lags by time); the browser's resume point stays bounded."""
    from live import views

    resume = views._Resume(100, set())
    for event_id in range(102, 222, 2):  # 60 events delivered; 101 is still to commit
        resume.add(event_id)
    assert not resume.seen(101) and resume.seen(100) and resume.seen(150)
    floor, _sep, ids = resume.token().partition(":")
    assert len(ids.split(",")) == views.RESUME_IDS and int(floor) == 120
    assert resume.read_floor() == 120  # a database read starts where a reconnection would
    resume.add(101)
    assert resume.seen(101)
    # Once the overlap has passed, the floor moves up; the ids below it are forgotten in time.
    resume.window = type(resume.window)((when - views.OVERLAP_SECONDS - 1, i) for when, i in resume.window)
    resume.advance()
    assert resume.floor == 220 and resume.token() == "220" and resume.seen(219) and not resume.seen(221)
    for event_id in range(222, 422):
        resume.add(event_id)
    assert len(resume.delivered) <= 2 * len(resume.window) + 64


@pytest.mark.django_db(transaction=True)
def test_when_the_hub_comes_back_the_stream_reads_what_it_missed_first(table: Any, monkeypatch: Any) -> None:
    """A stream opened while Redis was down reads the database every few seconds. The first event
    the hub delivers once back comes with one last read: what was published while the hub was
    not yet subscribed is not lost, even while events keep coming (no pause for a poll)."""
    from live import views

    thread = make_thread(table)
    channel = f"thread:{thread.pk}"
    start = publish(channel, "start", {})

    async def down(_timeout: float) -> bool:
        return False

    monkeypatch.setattr(hub, "wait_connected", down)
    monkeypatch.setattr(views, "POLL_SECONDS", 30.0)  # no poll within the test

    async def go() -> list[str]:
        response = await (await client_for(table.player)).get(
            f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(start.pk)}
        )
        reader = asyncio.ensure_future(read_events(response, 2, timeout=3))
        while not hub.subscriber_count(channel):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # the stream is in its polling wait
        # Published to a Redis nobody in this process listened to yet: only in the database.
        await sync_to_async(LiveEvent.objects.create)(channel=channel, kind="unheard", data={})
        await sync_to_async(publish)(channel, "heard", {})  # the hub is back
        return await reader

    assert async_to_sync(go)() == ["unheard", "heard"]


@pytest.mark.django_db(transaction=True)
def test_an_event_nobody_published_reaches_the_streams_through_the_sweep(table: Any, monkeypatch: Any) -> None:
    """A write whose commit went through while its author saw an error (the connection dropped
    with the COMMIT): its event is in the database, nobody published it. The hub's sweep finds
    it; an event the hub heard is not delivered twice."""
    from live import hub as hub_module

    monkeypatch.setattr(hub_module, "SWEEP_SETTLE", 0.0)
    thread = make_thread(table)
    channel = f"thread:{thread.pk}"
    start = publish(channel, "start", {})

    async def go() -> tuple[list[str], list[int]]:
        response = await (await client_for(table.player)).get(
            f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(start.pk)}
        )
        reader = asyncio.ensure_future(read_events(response, 3, timeout=3))
        while not hub.subscriber_count(channel):
            await asyncio.sleep(0.02)
        delivered = [await hub.sweep()]  # the first sweep of the process notes where it starts
        await sync_to_async(publish)(channel, "heard", {})
        await sync_to_async(LiveEvent.objects.create)(channel=channel, kind="unpublished", data={})
        await sync_to_async(LiveEvent.objects.create)(channel="thread:0", kind="elsewhere", data={})
        delivered.append(await hub.sweep())
        delivered.append(await hub.sweep())  # nothing new: nothing twice
        return await reader, delivered

    events, delivered = async_to_sync(go)()
    assert events == ["heard", "unpublished"]
    assert delivered == [0, 1, 0]


@pytest.mark.django_db(transaction=True)
def test_an_event_committed_unpublished_before_the_first_sweep_is_swept(table: Any, monkeypatch: Any) -> None:
    """The sweeps start from the newest id when the first stream opens, not when the first sweep
    runs 15 s later: ``bench/fault_run.py`` lost a post whose COMMIT went through as PostgreSQL
    went away, 3 s after the live clients opened."""
    from live import hub as hub_module

    monkeypatch.setattr(hub_module, "SWEEP_SETTLE", 0.0)
    thread = make_thread(table)
    channel = f"thread:{thread.pk}"
    start = publish(channel, "start", {})

    async def go() -> tuple[list[str], int]:
        with hub._lock:
            hub._marks.clear()  # as a fresh process
        response = await (await client_for(table.player)).get(
            f"/live/thread/{thread.pk}/", headers={"Last-Event-ID": str(start.pk)}
        )
        reader = asyncio.ensure_future(read_events(response, 1, timeout=3))
        for _ in range(150):  # the stream opened, its sweeper noted where it starts
            if hub.subscriber_count(channel) and hub._marks:
                break
            await asyncio.sleep(0.02)
        await sync_to_async(LiveEvent.objects.create)(channel=channel, kind="unpublished", data={})
        delivered = await hub.sweep()  # the first sweep
        return await reader, delivered

    events, delivered = async_to_sync(go)()
    assert events == ["unpublished"]
    assert delivered == 1


@pytest.mark.django_db(transaction=True)
def test_while_redis_is_down_the_sweeps_restart_from_the_newest_id(table: Any, monkeypatch: Any) -> None:
    """While Redis is down the hub hears nothing (the streams read the database themselves): its
    next sweep starts from the newest id then, and so still finds what is committed unpublished
    after it, once Redis is back."""
    from live import hub as hub_module

    monkeypatch.setattr(hub_module, "SWEEP_SECONDS", 0.05)
    monkeypatch.setattr(hub_module, "SWEEP_SETTLE", 0.0)
    thread = make_thread(table)
    channel = f"thread:{thread.pk}"
    publish(channel, "before", {})
    connected = [True]
    monkeypatch.setattr(type(hub), "connected", property(lambda self: connected[0]))

    async def go() -> tuple[int, int, int]:
        subscription = hub.subscribe(channel)
        try:
            connected[0] = False  # Redis goes away
            newest = await sync_to_async(lambda: LiveEvent.objects.create(channel=channel, kind="down", data={}).pk)()
            for _ in range(100):  # a check while down notes the newest id
                await asyncio.sleep(0.05)
                if hub._marks and hub._marks[-1][1] >= newest:
                    break
            floor = hub._marks[-1][1]
            connected[0] = True
            late = await sync_to_async(lambda: LiveEvent.objects.create(channel=channel, kind="late", data={}).pk)()
            await asyncio.sleep(0.3)  # sweeps run: the late event is delivered once
            got = []
            while not subscription.queue.empty():
                got.append(subscription.queue.get_nowait()["id"])
            return floor - newest, got.count(late), got.count(newest)
        finally:
            hub.unsubscribe(subscription)

    assert async_to_sync(go)() == (0, 1, 0)
