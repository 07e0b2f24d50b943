"""One error format for every API response that is not a success.

Body::

    {"code": "invalid", "detail": "Données invalides.",
     "errors": [{"field": "body", "code": "max_length", "message": "..."}]}

``code`` is stable and machine-readable; ``detail`` and ``message`` are for
people, in the member's language (French by default). ``errors`` is empty
except for validation errors, where ``field`` is the dotted path of the
offending input (``""`` for the whole object, ``"sheet.attributes.0.value"``
inside JSON documents).

Exceptions raised by services are mapped here: ``Http404`` → 404
``not_found``, ``django.core.exceptions.PermissionDenied`` → 403
``permission_denied``, ``django.core.exceptions.ValidationError`` and
``rules.base.RulesError`` → 400 ``invalid`` with field errors.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from config.ratelimit import RateLimited
from rules.base import RulesError


class PreconditionFailed(exceptions.APIException):
    """``If-Match`` names a version that is no longer the current one."""

    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = _("The object changed since you read it: fetch it again.")
    default_code = "precondition_failed"


class PreconditionRequired(exceptions.APIException):
    status_code = 428
    default_detail = _("This change needs an If-Match header or a version field.")
    default_code = "precondition_required"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = _("Conflict with the current state.")
    default_code = "conflict"


def field_errors_from_django(exc: DjangoValidationError) -> list[dict[str, str]]:
    """Flatten a Django ``ValidationError`` into ``[{"field", "code", "message"}]``."""
    errors: list[dict[str, str]] = []
    if hasattr(exc, "error_dict"):
        for field, items in exc.error_dict.items():
            name = "" if field in ("__all__", None) else str(field)
            for item in items:
                errors.extend(_one(name, item))
    else:
        for item in exc.error_list:
            errors.extend(_one("", item))
    return errors


def _one(field: str, item: DjangoValidationError) -> list[dict[str, str]]:
    message = item.message
    if item.params:
        try:
            message = message % item.params
        except (TypeError, ValueError, KeyError):
            pass
    return [{"field": field, "code": str(item.code or "invalid"), "message": str(message)}]


def field_errors_from_rules(exc: RulesError) -> list[dict[str, str]]:
    lang = get_language() or "fr"
    return [{"field": e.path, "code": e.code, "message": e.message.get(lang)} for e in exc.errors]


def _flatten_drf(detail: Any, prefix: str = "") -> list[dict[str, str]]:
    """Flatten DRF's nested ``get_full_details()`` into dotted paths."""
    if isinstance(detail, dict):
        if set(detail) == {"message", "code"} and not isinstance(detail["message"], dict | list):
            return [{"field": prefix, "code": str(detail["code"]), "message": str(detail["message"])}]
        out: list[dict[str, str]] = []
        for key, value in detail.items():
            name = "" if key in ("non_field_errors", "__all__") else str(key)
            out.extend(_flatten_drf(value, f"{prefix}.{name}" if prefix and name else (name or prefix)))
        return out
    if isinstance(detail, list):
        out = []
        all_leaves = all(isinstance(v, dict) and set(v) == {"message", "code"} for v in detail)
        for index, value in enumerate(detail):
            path = prefix if all_leaves else (f"{prefix}.{index}" if prefix else str(index))
            out.extend(_flatten_drf(value, path))
        return out
    return [{"field": prefix, "code": "invalid", "message": str(detail)}]


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF ``EXCEPTION_HANDLER``: every error in the one format above."""
    errors: list[dict[str, str]] = []
    from characters.services import VersionConflict

    field_errors = getattr(exc, "field_errors", None)
    retry_after = None
    if isinstance(exc, RateLimited):
        # A service's own limit (posting, reports): 429 like the API throttles, with the message.
        errors = field_errors_from_django(exc)
        retry_after = max(1, exc.retry_after)
        exc = exceptions.Throttled(wait=retry_after)
    elif isinstance(exc, VersionConflict):
        # characters.services.VersionConflict: someone saved a newer version.
        exc = PreconditionFailed()
    elif isinstance(exc, DjangoValidationError) and field_errors is not None:
        # characters.services.SheetInvalid keeps the rules engine's codes.
        errors = field_errors_from_rules(RulesError(field_errors))
        exc = exceptions.ValidationError()
    elif isinstance(exc, DjangoValidationError):
        errors = field_errors_from_django(exc)
        exc = exceptions.ValidationError()
    elif isinstance(exc, RulesError):
        errors = field_errors_from_rules(exc)
        exc = exceptions.ValidationError()
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, exceptions.ValidationError):
        errors = _flatten_drf(exc.get_full_details())
        exc = exceptions.ValidationError()
    elif isinstance(exc, exceptions.ParseError):
        # The parsers' own details are English ("JSON parse error - ..."): say it in the user's language.
        exc = exceptions.ParseError(_("Malformed request body: send valid JSON."))

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        code, detail = "invalid", str(_("Invalid input."))
    elif isinstance(exc, exceptions.APIException):
        full = exc.get_full_details()
        if isinstance(full, dict) and "code" in full:
            code, detail = str(full["code"]), str(full["message"])
        else:
            code, detail = exc.default_code, str(exc.default_detail)
    else:  # pragma: no cover - DRF only handles APIException subclasses
        code, detail = "error", str(exc)
    response.data = {"code": code, "detail": detail, "errors": errors}
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response
