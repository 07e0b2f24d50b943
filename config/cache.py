"""A Redis cache that never empties the whole Redis database.

Django's ``RedisCache.clear()`` runs ``FLUSHDB``: with the cache sharing its
Redis database with the Celery broker (``REDIS_URL`` is both), a
``cache.clear()`` would drop queued tasks. This one deletes only the keys
under its own ``KEY_PREFIX`` (tests get a prefix per process, see settings).
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache


class PrefixedRedisCache(RedisCache):
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


def glob_escape(text: str) -> str:
    """Escape Redis glob metacharacters."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)
