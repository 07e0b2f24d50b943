"""Helpers shared by the character views."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import HttpRequest

from characters import access
from characters.models import Character
from rules.base import is_digits


def error_messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "message_dict"):
        return [m for messages_ in exc.message_dict.values() for m in messages_]
    return list(exc.messages)


def posted_version(request: HttpRequest) -> int | None:
    raw = request.POST.get("version", "")
    return int(raw) if is_digits(raw) else None


def _locked_paths(user: Any, character: Character) -> list[str]:
    return access.locked_paths(user, character)
