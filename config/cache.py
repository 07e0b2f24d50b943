"""A Redis cache that fails open: Redis is optional at run time.

Everything Tablée keeps in the cache can be lost: page fragments, rate-limit
counters (``config.ratelimit``), DRF throttle histories and allauth's
rate limits. When Redis does not answer, :class:`FailOpenRedisCache` logs one
line, answers as an empty cache that keeps nothing (``get`` returns the default,
writes do nothing, ``add`` says "added" so cache locks such as allauth's
are granted, ``incr`` says "no such key") and skips
Redis for ``RETRY_AFTER`` seconds so a request never waits on a dead server
more than once per period. Rate limits therefore fail open: nobody is
throttled while Redis is down, and pages, login, posting and the API keep
working.

The breaker and the Redis client (its connection pool) are per process and server, shared by
every instance of the cache (:func:`_shared`). Django makes a cache instance per context, and the
ASGI handler (``config.asgi_handler``) runs each request in a context of its own: with state per
instance, every request that touched the cache opened a new connection to Redis, and while Redis
was down every request tried it again and logged a line.

``clear()`` never empties the Redis database: it deletes only the keys under
this cache's ``KEY_PREFIX`` (Django's ``RedisCache.clear()`` is ``FLUSHDB``,
and the database may also hold the Celery broker's queues). Tests get a
prefix per process (settings), so their ``cache.clear()`` touches only their keys.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache
from django.utils.functional import cached_property

logger = logging.getLogger("tablee.cache")

#: Seconds during which a failed Redis is not tried again.
RETRY_AFTER = 5.0

_SHARED: dict[tuple[Any, ...], Any] = {}
_SHARED_LOCK = threading.Lock()


def _shared(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """The process's one object for ``key``, made by ``make`` the first time."""
    found = _SHARED.get(key)
    if found is None:
        with _SHARED_LOCK:
            found = _SHARED.get(key)
            if found is None:
                found = _SHARED[key] = make()
    return found


class _Breaker:
    def __init__(self) -> None:
        self.down_until = 0.0
        self.lock = threading.Lock()

    def is_open(self) -> bool:
        return time.monotonic() < self.down_until

    def trip(self, error: BaseException) -> None:
        with self.lock:
            first = not self.is_open()
            self.down_until = time.monotonic() + RETRY_AFTER
        if first:
            logger.warning(
                "cache: Redis unavailable (%s); failing open for %.0fs", error.__class__.__name__, RETRY_AFTER
            )


def _redis_errors() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


def _fail_open(fallback: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run the method, or answer ``fallback`` (a callable raising, or a value) when Redis is down."""

    def decorator(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(self: FailOpenRedisCache, *args: Any, **kwargs: Any) -> Any:
            if not self._breaker.is_open():
                try:
                    return method(self, *args, **kwargs)
                except _redis_errors() as error:
                    self._breaker.trip(error)
            return fallback(args, kwargs) if callable(fallback) else fallback

        return wrapper

    return decorator


def _default(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``get(key, default=None)``'s default."""
    if len(args) > 1:
        return args[1]
    return kwargs.get("default")


def _no_such_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    raise ValueError(f"Key {args[0]!r} not found (cache unavailable)")


class FailOpenRedisCache(RedisCache):
    """Django's Redis cache, answering as an empty cache while Redis is down."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._breaker: _Breaker = _shared(("breaker", *self._servers), _Breaker)

    @cached_property
    def _cache(self) -> Any:
        """Django's client for these servers and options, one per process (see the module docstring)."""
        key = ("client", self._class, repr(sorted(self._options.items())), *self._servers)
        return _shared(key, lambda: self._class(self._servers, **self._options))

    def redis_available(self) -> bool:
        return not self._breaker.is_open()

    get = _fail_open(_default)(RedisCache.get)
    add = _fail_open(True)(RedisCache.add)
    set = _fail_open(None)(RedisCache.set)
    touch = _fail_open(False)(RedisCache.touch)
    delete = _fail_open(False)(RedisCache.delete)
    has_key = _fail_open(False)(RedisCache.has_key)
    incr = _fail_open(_no_such_key)(RedisCache.incr)
    get_many = _fail_open(lambda args, kwargs: {})(RedisCache.get_many)
    set_many = _fail_open(lambda args, kwargs: [])(RedisCache.set_many)
    delete_many = _fail_open(None)(RedisCache.delete_many)

    @_fail_open(False)
    def clear(self) -> bool:
        client = self._cache.get_client(None, write=True)
        pattern = f"{glob_escape(self.key_prefix)}:*" if self.key_prefix else "*:*"
        batch: list[bytes] = []
        for key in client.scan_iter(match=pattern, count=500):
            batch.append(key)
            if len(batch) >= 500:
                client.delete(*batch)
                batch.clear()
        if batch:
            client.delete(*batch)
        return True


#: The former name (the prefixed clear now lives in the fail-open cache).
PrefixedRedisCache = FailOpenRedisCache


def glob_escape(text: str) -> str:
    """Escape Redis glob metacharacters."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)
