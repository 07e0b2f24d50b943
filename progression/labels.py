"""Readable names of the rules' purchase kinds (*types d'achat*).

The systems name their own kinds (``RuleSystem.purchase_kind_labels()``);
an unknown kind falls back to its key made readable ("raise_talent" →
"Raise talent"), never to the raw code.
"""

from __future__ import annotations

from functools import cache

from django.utils.translation import get_language

import rules
from rules.base import Msg, RuleSystem


@cache
def _registered_labels() -> dict[str, Msg]:
    """Every registered system's names, for a caller that does not pass its system."""
    merged: dict[str, Msg] = {}
    for system in rules.available_systems():
        for kind, label in system.purchase_kind_labels().items():
            merged.setdefault(kind, label)
    return merged


def purchase_kind_label(kind: str, system: RuleSystem | None = None) -> str:
    """The kind's name in the current language (the system's words); unknown keys made readable."""
    labels = system.purchase_kind_labels() if system is not None else _registered_labels()
    label = labels.get(kind)
    if label is not None:
        return label.get(get_language() or "fr")
    return str(kind).replace("_", " ").replace("-", " ").strip().capitalize()
