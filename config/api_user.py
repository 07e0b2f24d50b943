"""Who sends an API request authenticated by a token, before DRF runs (middleware need it).

DRF authenticates in the view; the suspension and idempotency middleware run
before it. They ask the configured non-session authentication classes
(``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"]``, dotted paths resolved by
DRF at run time), so this infrastructure module names no app.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request
from rest_framework.settings import api_settings


def api_user(request: HttpRequest) -> Any:
    """The user of a token-authenticated API request, or ``None``."""
    if not request.META.get("HTTP_AUTHORIZATION"):
        return None
    drf_request = Request(request)
    for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES:
        if issubclass(cls, SessionAuthentication):
            continue
        try:
            result = cls().authenticate(drf_request)
        except Exception:
            return None
        if result is not None:
            return result[0]
    return None
