"""Small helpers shared by the API views."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter

from rules.base import is_digits

T = TypeVar("T")

CAMPAIGN = OpenApiParameter(
    "campaign", {"type": "string", "minLength": 1}, OpenApiParameter.PATH, description="Campaign id or slug."
)


def id_param(name: str, description: str = "") -> OpenApiParameter:
    """A positive integer id in the path (other values do not match the route)."""
    return OpenApiParameter(
        name,
        {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
        OpenApiParameter.PATH,
        description=description or None,
    )


def get_or_404(model: type[T], pk: Any, **filters: Any) -> T:
    """``model`` by primary key (digits only), else 404. Visibility is the caller's job."""
    if not is_digits(str(pk)):
        raise Http404
    obj = model.objects.filter(pk=pk, **filters).first()  # type: ignore[attr-defined]
    if obj is None:
        raise Http404
    return obj


def rename_fields(call: Callable[[], T], mapping: Callable[[str], str]) -> T:
    """Run a service call, renaming the fields of a ``ValidationError`` it raises.

    Services name fields after their HTML forms (``system__difficulty``); the
    API names them after its JSON input (``system_settings.difficulty``).
    """
    try:
        return call()
    except ValidationError as exc:
        if not hasattr(exc, "error_dict"):
            raise
        raise ValidationError({mapping(field): errors for field, errors in exc.error_dict.items()}) from exc


def system_settings_field(field: str) -> str:
    if field.startswith("system__"):
        return "system_settings." + field[len("system__") :].replace("__", ".")
    return field
