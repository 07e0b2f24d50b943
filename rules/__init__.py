"""Tablée's rules engine: a pure Python domain package.

No Django, no database, no I/O. One subpackage per rule system, each
exposing a ``SYSTEM`` object implementing :class:`rules.base.RuleSystem`.

>>> from rules import get_system
>>> get_system("ambre").diceless
True
"""

from __future__ import annotations

from importlib import import_module

from rules.base import RuleSystem

#: slug -> module path of the subpackage defining ``SYSTEM``.
SYSTEM_MODULES: dict[str, str] = {
    "ambre": "rules.ambre",
    "clefs-de-l-aube": "rules.clefs",
    "sms": "rules.sms",
    "altaride": "rules.altaride",
}

_cache: dict[str, RuleSystem] = {}


class UnknownSystem(KeyError):
    pass


def get_system(slug: str) -> RuleSystem:
    """Return the rule system registered under ``slug``."""
    if slug not in SYSTEM_MODULES:
        raise UnknownSystem(slug)
    if slug not in _cache:
        _cache[slug] = import_module(SYSTEM_MODULES[slug]).SYSTEM
    return _cache[slug]


def available_systems() -> list[RuleSystem]:
    """All registered systems, in a stable order."""
    return [get_system(slug) for slug in SYSTEM_MODULES]


def system_choices(lang: str = "fr") -> list[tuple[str, str]]:
    """``(slug, name)`` pairs for forms."""
    return [(s.slug, s.name.get(lang)) for s in available_systems()]
