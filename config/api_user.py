"""Who sends an API request authenticated by a token, before DRF runs (middleware need it).

DRF authenticates in the view; the suspension and idempotency middleware run
before it. They ask the configured non-session authentication classes
(``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"]``, dotted paths resolved by
DRF at run time), so this infrastructure module names no app.

What an authentication class found is remembered on the request (:func:`remembered`): the
middleware's lookup and DRF's own are one query, not two (three with idempotency). A database
error is not caught: the request answers 503 after one wait for the database, not two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.settings import api_settings

#: The request attribute where :func:`remembered` keeps each class's result (or refusal).
MEMO = "_tablee_api_auth"


def remembered(request: HttpRequest, cls: type, authenticate: Callable[[], Any]) -> Any:
    """``authenticate()`` once per request and authentication class: its result again, or its
    refusal (an ``APIException``, e.g. 401) raised again."""
    memo: dict[type, Any] = request.__dict__.setdefault(MEMO, {})
    if cls not in memo:
        try:
            memo[cls] = authenticate()
        except APIException as refusal:
            memo[cls] = refusal
    found = memo[cls]
    if isinstance(found, APIException):
        raise found
    return found


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
        except APIException:  # refused (401 from DRF, later); a database error is not caught
            return None
        if result is not None:
            return result[0]
    return None
