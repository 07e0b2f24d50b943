"""Rate limits of the API: per member and per IP address.

Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` and are read at
request time (so settings overrides apply). Both throttles apply to every
request: a member is limited whatever address they use, and an address is
limited whatever accounts it uses. Writes on the forum have their own,
stricter scope (``posting``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle


class _SettingsRateThrottle(SimpleRateThrottle):
    def get_rate(self) -> str | None:
        rates = settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {})
        return rates.get(self.scope)


class UserThrottle(_SettingsRateThrottle):
    """Per authenticated member (session or token); anonymous requests skip it."""

    scope = "user"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AnonThrottle(_SettingsRateThrottle):
    """Anonymous requests, per address: stricter than the per-IP ceiling."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class IPThrottle(_SettingsRateThrottle):
    """Per client address, for every request (anonymous or not)."""

    scope = "ip"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PostingThrottle(_SettingsRateThrottle):
    """Writes that create content (posts, threads): per member, stricter.

    Views opt in with ``throttle_classes``/``get_throttles``; only unsafe
    methods count.
    """

    scope = "posting"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        ident = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}
