"""Template helpers: bilingual messages from the rules, flag labels."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from progression.labels import purchase_kind_label
from progression.services import msg_text

register = template.Library()


@register.filter
def msg(value: Any) -> str:
    """A rules message (``Msg`` or ``{"fr","en"}``) in the current language."""
    if hasattr(value, "get") and hasattr(value, "fr"):
        return value.get(get_language() or "fr")
    return msg_text(value)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    if isinstance(mapping, dict):
        return mapping.get(key, mapping.get(str(key)))
    return None


@register.filter
def signed(value: Any) -> str:
    try:
        return f"{int(value):+d}"
    except (TypeError, ValueError):
        return str(value)


def flag_labels() -> dict[str, str]:
    return {
        "negative_karma": _("Negative karma (a loan repaid by the next awards)"),
        "mortal_wound_negative_karma": _("Mortal wound and negative karma: the GM decides (never automatic)"),
        "negative_xp_balance": _("Negative experience balance"),
        "negative_xp": _("Negative experience balance"),
        "pending_means_exchanges": _("Means exchange offered to the player"),
    }


@register.filter
def flag_label(flag: Any) -> str:
    code = flag.get("code") if isinstance(flag, dict) else str(flag)
    label = flag_labels().get(code, code)
    if isinstance(flag, dict) and "count" in flag:
        return f"{label} ({flag['count']})"
    return label


@register.filter
def currency_label(code: str) -> str:
    return {"xp": _("experience"), "karma": _("karma")}.get(code, code)


@register.filter
def kind_label(kind: str) -> str:
    """A purchase kind's readable name (*type d'achat*)."""
    return purchase_kind_label(kind)
