"""Per-process fan-out of live events to open streams.

Each web process holds ONE hub. With the Redis backend, the hub keeps a
single pattern subscription (``PSUBSCRIBE prefix*``) and dispatches every
message to the asyncio queues of its own open streams, so one process holds
thousands of streams on one Redis connection. With the in-process backend
(one process, no Redis) publishers hand messages to the hub directly.

Publishing never raises: if Redis is down the event is still in the
database (:class:`live.models.LiveEvent`) and reconnecting browsers catch up
with ``Last-Event-ID``. When the subscription is lost, every open stream of
the process is told (:data:`LOST`) and closes, so its browser reconnects and
catches up from the database; while Redis stays down, streams read the
database every few seconds instead (:attr:`Hub.connected` is false).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Coroutine
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

QUEUE_SIZE = 1000
#: Delivered to every open stream when the Redis subscription is lost.
LOST: dict[str, Any] = {"lost": True}
#: Seconds without any message from Redis after which the subscription is
#: pinged, and after which a silent server counts as lost.
PING_AFTER = 5.0
SILENT_LIMIT = 15.0
#: Seconds during which publishing skips a Redis that just failed.
PUBLISH_RETRY_AFTER = 2.0
#: Seconds between two reads of the database for events of the open streams' channels that the hub
#: never heard: a write whose commit went through while its author saw an error (nobody published
#: it), an event published while the publisher skipped a failing Redis. Once a sweep has read them,
#: the streams receive them as late events.
SWEEP_SECONDS = 15.0
#: How far back a sweep reads (as a stream's overlap, ``live.views.OVERLAP_SECONDS``).
SWEEP_WINDOW = 60.0
#: Seconds an event is left to the normal path (commit, publish, Redis) before a sweep delivers it.
SWEEP_SETTLE = 2.0


class Subscription:
    """One open stream's queue, bound to the event loop that reads it."""

    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=QUEUE_SIZE)
        self.overflowed = False
        self.lost = False

    def deliver(self, message: dict[str, Any]) -> None:
        if message is LOST:
            self.lost = True
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            # The stream is too slow: it will reconnect and catch up from the DB.
            self.overflowed = True


class Hub:
    def __init__(self) -> None:
        self._subs: dict[str, set[Subscription]] = defaultdict(set)
        self._lock = threading.Lock()
        self._listener: asyncio.Task[None] | None = None
        self._listener_loop: asyncio.AbstractEventLoop | None = None
        self._redis_sync: Any = None
        self._publish_down_until = 0.0
        #: Whether the Redis subscription is active (always true in-process).
        self._connected = False
        self._connected_event: asyncio.Event | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._sweeper_loop: asyncio.AbstractEventLoop | None = None
        #: Event id -> when the hub dispatched it (within :data:`SWEEP_WINDOW`).
        self._heard: dict[int, float] = {}
        #: (when, the highest id heard then), one per sweep: where the next sweeps start.
        self._marks: deque[tuple[float, int]] = deque()

    @property
    def connected(self) -> bool:
        return settings.LIVE_BACKEND != "redis" or self._connected

    async def wait_connected(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the Redis subscription; whether it is active."""
        if self.connected:
            return True
        if self._connected_event is None:
            self._connected_event = asyncio.Event()
        try:
            await asyncio.wait_for(self._connected_event.wait(), timeout)
        except TimeoutError:
            pass
        return self.connected

    def _set_connected(self, value: bool) -> None:
        self._connected = value
        if value:
            if self._connected_event is not None:
                self._connected_event.set()
        else:
            self._connected_event = None

    # -- subscribers --------------------------------------------------------
    def subscribe(self, channel: str) -> Subscription:
        sub = Subscription(channel)
        with self._lock:
            self._subs[channel].add(sub)
        if settings.LIVE_BACKEND == "redis":
            self._ensure_listener()
        self._ensure_sweeper()
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._subs.get(sub.channel)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.channel]

    def subscriber_count(self, channel: str | None = None) -> int:
        with self._lock:
            if channel is None:
                return sum(len(s) for s in self._subs.values())
            return len(self._subs.get(channel, ()))

    def dispatch(self, message: dict[str, Any]) -> None:
        """Hand a message to every local stream of its channel (any thread)."""
        with self._lock:
            subs = list(self._subs.get(message["channel"], ()))
            if subs:
                self._heard[message["id"]] = time.monotonic()
        self._deliver(subs, message)

    def lose_subscription(self) -> None:
        """Tell every open stream that events may have been missed: they close."""
        self._set_connected(False)
        self._drop_streams()

    def _drop_streams(self) -> None:
        with self._lock:
            subs = [sub for channel_subs in self._subs.values() for sub in channel_subs]
        self._deliver(subs, LOST)

    def _deliver(self, subs: list[Subscription], message: dict[str, Any]) -> None:
        for sub in subs:
            try:
                sub.loop.call_soon_threadsafe(sub.deliver, message)
            except RuntimeError:  # loop closed: the stream is gone
                self.unsubscribe(sub)

    # -- publishing -----------------------------------------------------------
    def publish(self, message: dict[str, Any]) -> None:
        self.publish_many([message])

    def publish_many(self, messages: list[dict[str, Any]]) -> None:
        """Publish messages in order, in one Redis round trip (a pipeline)."""
        if settings.LIVE_BACKEND != "redis":
            for message in messages:
                self.dispatch(message)
            return
        if not messages or time.monotonic() < self._publish_down_until:
            return  # Redis failed a moment ago: the event is in the database
        try:
            if self._redis_sync is None:
                import redis

                self._redis_sync = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
            if len(messages) == 1:
                message = messages[0]
                self._redis_sync.publish(settings.LIVE_REDIS_PREFIX + message["channel"], json.dumps(message))
            else:
                pipe = self._redis_sync.pipeline(transaction=False)
                for message in messages:
                    pipe.publish(settings.LIVE_REDIS_PREFIX + message["channel"], json.dumps(message))
                pipe.execute()
        except Exception as error:
            if not self._publish_down_until:
                logger.warning("live: could not publish to Redis (%s); viewers will catch up", error)
                # This process's streams would not hear of it: they reconnect and catch up.
                self._drop_streams()
            self._publish_down_until = time.monotonic() + PUBLISH_RETRY_AFTER
            self._redis_sync = None
        else:
            if self._publish_down_until:
                logger.warning("live: publishing to Redis again")
            self._publish_down_until = 0.0

    # -- the sweep ---------------------------------------------------------------
    def _ensure_sweeper(self) -> None:
        sweeper, self._sweeper_loop = _running(self._sweeper, self._sweeper_loop, self._sweep_forever)
        if sweeper is not self._sweeper:
            with self._lock:
                self._marks.clear()  # a new sweeper starts afresh (a test's loop ended with the last one)
        self._sweeper = sweeper

    async def _sweep_forever(self) -> None:
        # Sweeps start from the newest id now, when the first stream opens: an event committed
        # unpublished before the first sweep is found by it (streams opened earlier caught up
        # from the database themselves).
        await self._restart_marks()
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            with self._lock:
                if not self._subs:
                    self._heard.clear()
                    self._marks.clear()
                    return  # nobody listens: the next stream starts a sweeper again
            if not self.connected:
                # Redis is down: the streams read the database themselves and the hub hears
                # nothing, so once back it sweeps from the newest id of its last check while down,
                # not from the events it did not hear during the outage.
                await self._restart_marks()
                continue
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database is down: the next sweep covers the same window
                logger.info("live: sweep skipped (%s)", error)

    async def _restart_marks(self) -> None:
        """The next sweeps read ids above the newest one now (forgotten if the database is away:
        the next sweep then notes where it starts, as a first sweep)."""
        try:
            newest = await asyncio.to_thread(_newest_id)
        except Exception as error:
            logger.info("live: sweep start not noted (%s)", error)
            with self._lock:
                self._marks.clear()
            return
        with self._lock:
            self._marks.clear()
            self._marks.append((time.monotonic(), newest))

    async def sweep(self) -> int:
        """Read the database for events of the open channels the hub did not hear, deliver them.

        Reads ids above the highest id heard :data:`SWEEP_WINDOW` seconds ago (the first sweeps of
        a process: above the newest id when its first stream opened, see :meth:`_restart_marks`).
        Returns how many events were delivered."""
        now = time.monotonic()
        with self._lock:
            channels = list(self._subs)
            horizon = now - SWEEP_WINDOW
            for event_id in [i for i, when in self._heard.items() if when < horizon]:
                del self._heard[event_id]
            floor = None
            while self._marks and self._marks[0][0] < horizon:
                floor = self._marks.popleft()[1]
            if floor is not None:
                self._marks.appendleft((horizon, floor))  # still the floor until a newer mark ages
            elif self._marks:
                floor = self._marks[0][1]
        if not channels:
            return 0
        if floor is None:
            floor = await asyncio.to_thread(_newest_id)
            with self._lock:
                self._marks.append((now, floor))
            return 0
        messages = await asyncio.to_thread(_unheard_events, channels, floor, SWEEP_SETTLE)
        with self._lock:
            heard = self._heard
            missed = [m for m in messages if m["id"] not in heard]
            newest = max([floor, *heard.keys(), *(m["id"] for m in messages)])
            self._marks.append((now, newest))
        for message in missed:
            self.dispatch(message)
        if missed:
            logger.info("live: the sweep delivered %d event(s) nobody published: %s", len(missed), missed[0]["id"])
        return len(missed)

    # -- the Redis listener -----------------------------------------------------
    def _ensure_listener(self) -> None:
        self._listener, self._listener_loop = _running(self._listener, self._listener_loop, self._listen)

    async def _listen(self) -> None:
        import redis.asyncio as aioredis

        prefix = settings.LIVE_REDIS_PREFIX
        delay = 0.5
        while True:
            client = aioredis.Redis.from_url(settings.REDIS_URL)
            subscribed = False
            try:
                pubsub = client.pubsub()
                await pubsub.psubscribe(prefix + "*")
                subscribed = True
                self._set_connected(True)
                # The streams catch up from the database as they see the hub back; the sweeps
                # start from here, not from the events the hub could not hear while away.
                await self._restart_marks()
                delay = 0.5
                heard = time.monotonic()
                pinged = False
                while True:
                    raw = await pubsub.get_message(timeout=PING_AFTER)
                    now = time.monotonic()
                    if raw is None:
                        # A silent server may be dead without a reset (network cut):
                        # ping it, and give up if nothing comes back.
                        if now - heard > SILENT_LIMIT:
                            raise ConnectionError("Redis subscription silent")
                        if not pinged or now - heard > PING_AFTER:
                            await asyncio.wait_for(pubsub.ping(), PING_AFTER)
                            pinged = True
                        continue
                    heard, pinged = now, False
                    if raw.get("type") != "pmessage":
                        continue
                    try:
                        message = json.loads(raw["data"])
                    except (TypeError, ValueError):
                        continue
                    self.dispatch(message)
                    if not self._subs:
                        # Nobody listens in this process any more.
                        self._set_connected(False)
                        await pubsub.aclose()
                        return
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("live: Redis subscription lost; streams close and catch up; retrying in %.1fs", delay)
                if subscribed or self._connected:
                    self.lose_subscription()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10)
            finally:
                try:
                    await client.aclose()
                except Exception:
                    pass


def _running(
    task: asyncio.Task[None] | None,
    loop: asyncio.AbstractEventLoop | None,
    start: Callable[[], Coroutine[Any, Any, None]],
) -> tuple[asyncio.Task[None], asyncio.AbstractEventLoop]:
    """``task`` if it runs on the current loop, else ``start()`` as a new task there (a test's
    loop ends with its test; the server's lives as long as the process)."""
    current = asyncio.get_running_loop()
    if task is not None and not task.done() and loop is current:
        return task, current
    return current.create_task(start()), current


def _newest_id() -> int:
    from django.db import connections

    from live.models import LiveEvent

    try:
        return LiveEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0
    finally:
        connections.close_all()


def _unheard_events(channels: list[str], floor: int, settle: float) -> list[dict[str, Any]]:
    """Events of ``channels`` above ``floor``, older than ``settle`` seconds (index: channel, id)."""
    from datetime import timedelta

    from django.db import connections
    from django.utils import timezone

    from live.models import LiveEvent

    cutoff = timezone.now() - timedelta(seconds=settle)
    try:
        messages: list[dict[str, Any]] = []
        for start in range(0, len(channels), 500):
            rows = LiveEvent.objects.filter(
                channel__in=channels[start : start + 500], id__gt=floor, created__lte=cutoff
            )
            messages += [row.message() for row in rows.order_by("id")[:2000]]
        return messages
    finally:
        connections.close_all()


hub = Hub()
