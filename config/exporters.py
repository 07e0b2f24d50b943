"""Registry of account-data exporters ("my data", GDPR art. 15 and 20).

Each app that holds personal data registers, in its ``AppConfig.ready``, a
function returning its part of a member's export::

    register_exporter("campaigns", export_user_data, order=20)

:func:`export_parts` calls them in ``order`` and merges their top-level keys;
``moderation.services.export_account_data`` adds the envelope. The moderation
app therefore imports no other app's models to build the export.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

Exporter = Callable[[Any], dict[str, Any]]

_EXPORTERS: dict[str, tuple[int, Exporter]] = {}


def register_exporter(name: str, func: Exporter, *, order: int = 100) -> None:
    """Register (or replace) the exporter of an app; ``order`` fixes the keys' order in the file."""
    _EXPORTERS[name] = (order, func)


def registered_exporters() -> list[str]:
    return [name for name, _ in sorted(_EXPORTERS.items(), key=lambda item: (item[1][0], item[0]))]


def export_parts(user: Any) -> dict[str, Any]:
    """Every registered app's part of ``user``'s data, merged in order (a key twice is a bug)."""
    data: dict[str, Any] = {}
    for name in registered_exporters():
        part = _EXPORTERS[name][1](user)
        clash = set(part) & set(data)
        if clash:
            raise ValueError(f"exporter {name!r} repeats keys {sorted(clash)}")
        data.update(part)
    return data


def iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def rows(queryset: Any, *fields: str) -> list[dict[str, Any]]:
    """``queryset.values(*fields)`` with dates as ISO strings (JSON-ready)."""
    return [{k: iso(v) for k, v in row.items()} for row in queryset.values(*fields)]
