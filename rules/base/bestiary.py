"""A campaign's bestiary: named entries a GM's quick NPC starts from (issue #23).

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.base.clean import get_path
from rules.base.fields import Field
from rules.base.messages import Msg


@dataclass(frozen=True)
class BestiaryEntry:
    """One creature or NPC of a campaign's bestiary, ready for a quick NPC.

    ``key`` is what a form or the API sends (the entry's name, never an
    index); ``values`` are quick NPC values by :meth:`RuleSystem.quick_npc_fields`
    path (those the entry leaves out keep the rules' defaults)."""

    key: str
    label: Msg
    values: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label.to_dict(), "values": dict(self.values)}


#: A yes/no input of a bestiary entry that may also be left to the rules ("").
_UNSET_YES_NO: tuple[tuple[str, Msg], ...] = (
    ("", Msg("Selon les règles", "As the rules say")),
    ("yes", Msg("Oui", "Yes")),
    ("no", Msg("Non", "No")),
)


def bestiary_setting(quick_fields: Iterable[Field], help: Msg | None = None) -> Field:
    """A ``bestiary`` campaign setting: a list of named entries whose inputs are a
    system's quick NPC fields (all optional: left empty, the rules' default)."""
    items = [Field("name", "str", Msg("Nom", "Name"), default="", max_length=90, required=True)]
    for f in quick_fields:
        if f.kind == "bool":
            items.append(replace(f, kind="choice", choices=_UNSET_YES_NO, default="", required=False, help=None))
        elif f.kind in ("int", "str", "text", "choice"):
            items.append(replace(f, required=False, default=None, help=None))
    return Field(
        "bestiary",
        "list",
        Msg("Bestiaire (MJ)", "Bestiary (GM)"),
        default=[],
        max_items=200,
        item_fields=tuple(items),
        help=help
        or Msg(
            "Une entrée par créature ou PNJ type, pour les PNJ rapides ; une valeur laissée vide suit les règles.",
            "One entry per creature or stock NPC, for quick NPCs; a value left empty follows the rules.",
        ),
    )


def bestiary_entries(rows: Any, quick_fields: Iterable[Field]) -> tuple[BestiaryEntry, ...]:
    """The entries of a :func:`bestiary_setting` (by name, the first of a name kept)."""
    fields = tuple(quick_fields)
    out: list[BestiaryEntry] = []
    seen: set[str] = set()
    for row in rows if isinstance(rows, list) else []:
        name = str(row.get("name") or "").strip() if isinstance(row, dict) else ""
        if not name or name in seen:
            continue
        seen.add(name)
        values: dict[str, Any] = {}
        for f in fields:
            value = get_path(row, f.path)
            if f.kind == "bool" and isinstance(value, str):
                value = {"yes": True, "no": False}.get(value)
            if value is not None and value != "":
                values[f.path] = value
        out.append(BestiaryEntry(name, Msg(name, name), values))
    return tuple(out)
