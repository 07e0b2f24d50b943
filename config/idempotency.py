"""Writes are idempotent: a double submit or a replayed request writes once.

* HTML forms that create something (post, thread, roll, bid, purchase,
  awards) carry a one-time token: ``{% once_field %}`` (a template builtin,
  see ``TEMPLATES``) renders ``<input type="hidden" name="once" ...>``.
* The API honours an ``Idempotency-Key`` header on POST.

:class:`IdempotencyMiddleware` runs such a request inside one transaction
that first inserts a row of the registered store (:func:`register_store`:
``accounts`` registers :class:`accounts.models.IdempotentWrite`) for
(member, key, route). A second request with the same key either finds the
stored answer and gets it again (same status, body, ``Location``...) or, if
the first one is still running, waits for it on the row's unique index and
then gets its answer. Only successful answers (2xx, 3xx) are kept: after a
refusal (a form error, 4xx) the whole transaction, row included, is rolled
back, so the corrected form can be sent again with the same token. Rows are
in the database (works without Redis, across processes) and forgotten after
``TABLEE_IDEMPOTENCY_SECONDS`` (24 h by default).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django import template
from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _

from config.api_user import api_user

logger = logging.getLogger(__name__)

FORM_FIELD = "once"
HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 100
#: Response headers replayed with a stored answer.
KEPT_HEADERS = (
    "Content-Type",
    "Location",
    "HX-Redirect",
    "HX-Location",
    "HX-Trigger",
    "HX-Refresh",
    "Content-Language",
)
#: Answers larger than this are not kept (the row is still, as a lock).
MAX_STORED_BODY = 512 * 1024

register = template.Library()

#: The model keeping the answers (member, key, route...), registered by the app that owns it
#: (``accounts``, in its ``AppConfig.ready()``): this infrastructure module names no app.
_store: type[Any] | None = None


def register_store(model: type[Any]) -> None:
    """Keep answers in ``model`` (fields ``user``, ``key``, ``route``, ``fingerprint``, ``status``,
    ``headers``, ``body``, ``created``; unique on user, key and route)."""
    global _store
    _store = model


def store() -> type[Any]:
    if _store is None:
        raise RuntimeError("No idempotency store registered (accounts.apps.AccountsConfig.ready registers it).")
    return _store


@register.simple_tag
def once_field() -> str:
    """The hidden one-time token of a form that creates something."""
    return format_html('<input type="hidden" name="{}" value="{}">', FORM_FIELD, secrets.token_urlsafe(18))


def _lifetime() -> timedelta:
    return timedelta(seconds=int(getattr(settings, "TABLEE_IDEMPOTENCY_SECONDS", 86400)))


def _request_key(request: HttpRequest) -> tuple[str, bool] | None:
    """(key, from the API header) of a POST that carries one."""
    if request.method != "POST":
        return None
    header = request.headers.get(HEADER, "").strip()
    if header:
        return header[:MAX_KEY_LENGTH], True
    content_type = request.content_type or ""
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        token = request.POST.get(FORM_FIELD, "").strip()
        if token:
            # A form with several actions (the awards' "update suggestions" and
            # "confirm"): each action is its own write.
            action = request.POST.get("action", "")[:20]
            return f"{token[: MAX_KEY_LENGTH - 21]}:{action}", False
    return None


def _user(request: HttpRequest) -> Any:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    if request.path_info.startswith("/api/"):
        return api_user(request)
    return None


def _replay(record: Any) -> HttpResponse:
    response = HttpResponse(bytes(record.body), status=record.status)
    for name, value in record.headers.items():
        response[name] = value
    response["Idempotent-Replayed"] = "true"
    return response


class IdempotencyMiddleware:
    """Answer a replayed write with the stored answer (add after authentication and suspension)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = _request_key(request)
        if found is None:
            return self.get_response(request)
        user = _user(request)
        if user is None:
            return self.get_response(request)
        key, from_api = found
        fingerprint = hashlib.sha256(request.body).hexdigest() if from_api else ""
        return self._once(request, user, key, fingerprint, from_api)

    def _once(self, request: HttpRequest, user: Any, key: str, fingerprint: str, from_api: bool) -> HttpResponse:
        model = store()
        route = request.path[:300]
        for _attempt in range(3):
            with transaction.atomic():
                try:
                    # On PostgreSQL a concurrent twin waits here until the first commits.
                    with transaction.atomic():
                        record = model.objects.create(user=user, key=key, route=route, fingerprint=fingerprint)
                except IntegrityError:
                    existing = model.objects.filter(user=user, key=key, route=route).first()
                    if existing is None:
                        continue  # the first one was refused and rolled back: run this one
                    if existing.created < timezone.now() - _lifetime():
                        existing.delete()
                        continue
                    if from_api and existing.fingerprint != fingerprint:
                        return JsonResponse(
                            {
                                "code": "idempotency_key_reused",
                                "detail": _("This Idempotency-Key was already used for another request."),
                                "errors": [],
                            },
                            status=422,
                        )
                    return _replay(existing)
                response = self.get_response(request)
                if not (200 <= response.status_code < 400) or response.streaming:
                    # A refusal writes nothing: forget the key too.
                    transaction.set_rollback(True)
                    return response
                record.status = response.status_code
                record.headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
                if len(response.content) <= MAX_STORED_BODY:
                    record.body = response.content
                record.save(update_fields=["status", "headers", "body"])
                if secrets.randbelow(200) == 0:
                    model.objects.filter(created__lt=timezone.now() - _lifetime()).delete()
                return response
        return self.get_response(request)
