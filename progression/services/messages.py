"""Ledger notes: stored in French (the default), both languages in ``data``."""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language

from characters.models import LedgerEntry
from progression.models import (
    SessionAward,
)
from rules.base import Msg


def msg_text(value: Any, lang: str | None = None) -> str:
    """Text of a stored ``{"fr":..., "en":...}`` message (or a plain string)."""
    lang = lang or get_language() or "fr"
    if isinstance(value, Msg):
        return value.get(lang)
    if isinstance(value, dict) and ("fr" in value or "en" in value):
        return str(value.get("en") if lang.startswith("en") else value.get("fr")) or ""
    return "" if value is None else str(value)


def entry_note(entry: LedgerEntry | SessionAward, lang: str | None = None) -> str:
    data = entry.data if isinstance(entry.data, dict) else {}
    if "note_i18n" in data:
        return msg_text(data["note_i18n"], lang)
    return entry.note
