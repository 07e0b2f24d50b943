"""Fixed-window rate limits in the shared cache (posting, reports...).

One helper for every app so limits read and count the same way; the cache
is Redis with ``REDIS_URL`` (shared by all web processes), local memory
otherwise.
"""

from __future__ import annotations

import time

from django.core.cache import cache
from django.core.exceptions import ValidationError


class RateLimited(ValidationError):
    """Too many actions in the period: pages and the API answer 429 with the message.

    ``retry_after`` is the number of seconds until the window ends.
    """

    def __init__(self, message: object, retry_after: int = 0, **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.retry_after = int(retry_after)


def parse_rate(value: str) -> tuple[int, int]:
    """``"5/10m"`` → (5, 600). Periods: a number of seconds, or ``[n]s|m|h|d``; count 0 = no limit."""
    count_text, _sep, period_text = str(value).strip().partition("/")
    count = int(count_text)
    period_text = period_text.strip() or "60"
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if period_text[-1] in units:
        number = period_text[:-1] or "1"
        seconds = int(number) * units[period_text[-1]]
    else:
        seconds = int(period_text)
    if count < 0 or seconds <= 0:
        raise ValueError(value)
    return count, seconds


def hit(bucket: str, period: int, now: float | None = None) -> tuple[int, int]:
    """Count one action in ``bucket`` for the current window of ``period`` seconds.

    Returns ``(used, wait)``: the actions counted in this window, including
    this one, and the seconds until the window ends.
    """
    now = time.time() if now is None else now
    key = f"tablee:rate:{bucket}:{int(now // period)}"
    cache.add(key, 0, timeout=period + 5)
    try:
        used = cache.incr(key)
    except ValueError:  # the key expired between add and incr
        cache.set(key, 1, timeout=period + 5)
        used = 1
    return used, max(1, int(period - now % period))
