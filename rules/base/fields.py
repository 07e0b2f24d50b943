"""Field declarations: what a sheet, a setting or a request holds.

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from rules.base.messages import JSON, Msg

# --------------------------------------------------------------------------
# Schema
# --------------------------------------------------------------------------
FieldKind = Literal["int", "str", "text", "bool", "choice", "list", "dict"]

#: Who may set an input (a test request, a combat declaration, a sheet field).
#: ``"player"``: the character's controller; ``"gm"``: the GM and co-GMs only
#: (a difficulty, a GM modifier, "the GM allows overreach", a GM-set sheet
#: value). A service refuses a ``"gm"`` input sent by anyone else.
Audience = Literal["player", "gm"]


@dataclass(frozen=True)
class Field:
    """One stored field of a sheet (or of a campaign setting, or a request).

    ``path`` is dotted (``"attributes.strength"``). For ``kind="list"`` the
    items are objects described by ``item_fields`` (paths relative to the
    item); a ``list`` with ``choices`` and no ``item_fields`` is a multiple
    choice (a list of choice values, each at most once), and a ``list`` with a
    ``value_field`` and no ``item_fields`` a list of plain values (each
    described by ``value_field``, its path ignored). A ``dict`` with
    ``key_field`` and ``value_field`` is a keyed map ``{key: value}`` (the
    key described by ``key_field``, its path ignored; the value by
    ``value_field``, which may be a list of records): forms edit it as rows,
    never as JSON. ``example`` is a value a form may offer to fill in (a
    catalogue's starter content; what the seed does not number is left blank
    for the GM). ``group`` is a display group, ``step`` the creation wizard step.
    """

    path: str
    kind: FieldKind
    label: Msg
    default: JSON = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[str, Msg], ...] = ()
    item_fields: tuple[Field, ...] = ()
    max_items: int | None = None
    max_length: int | None = None
    required: bool = False
    group: str = ""
    step: str = ""
    help: Msg | None = None
    secret: bool = False  # shown only to owner and GMs (e.g. Ambre true points)
    #: Who may set this value (see :data:`Audience`). On a sheet, ``"gm"``
    #: means a player's write of this path is refused or kept at its old value.
    audience: Audience = "player"
    #: For an ``int`` input that is the index of an item of a sheet list
    #: (the SMS module raised by a purchase): that list's path. Forms offer
    #: the items by name, never the bare index.
    item_of: str = ""
    #: For a declaration or test input: the values of the declaration's type
    #: (``results.ACTION_KEY``) for which the rules read it; empty: always.
    #: Forms may show the input only for those (an attack's armour, a spell's range).
    when: tuple[str, ...] = ()
    key_field: Field | None = None
    value_field: Field | None = None
    example: JSON = None
    #: For a free-text (``str``) field the rules also write to: the codes they write and what a
    #: reader reads instead (a Clefs handicap's cause ``harm``, "Blessure au combat"). Any other
    #: text is shown as typed; nothing is validated against these.
    value_labels: tuple[tuple[str, Msg], ...] = ()

    def shown(self, value: Any) -> Msg | None:
        """The label of ``value`` when it is one of :attr:`value_labels`' codes, else ``None``."""
        if self.value_labels and isinstance(value, str):
            for code, label in self.value_labels:
                if code == value:
                    return label
        return None

    @property
    def multiple(self) -> bool:
        """A multiple choice: a list of values from ``choices``."""
        return self.kind == "list" and bool(self.choices) and not self.item_fields

    @property
    def keyed(self) -> bool:
        """A keyed map edited as rows (``key_field`` → ``value_field``)."""
        return self.kind == "dict" and self.key_field is not None and self.value_field is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "label": self.label.to_dict(),
            "default": self.default,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": [[value, label.to_dict()] for value, label in self.choices],
            "item_fields": [f.to_dict() for f in self.item_fields],
            "max_items": self.max_items,
            "max_length": self.max_length,
            "required": self.required,
            "group": self.group,
            "step": self.step,
            "help": self.help.to_dict() if self.help else None,
            "secret": self.secret,
            "audience": self.audience,
            "item_of": self.item_of,
            "when": list(self.when),
            "key_field": self.key_field.to_dict() if self.key_field else None,
            "value_field": self.value_field.to_dict() if self.value_field else None,
            "example": self.example,
            "value_labels": [[value, label.to_dict()] for value, label in self.value_labels],
        }


def gm_only_paths(fields: Iterable[Field], prefix: str = "") -> list[str]:
    """Paths of the fields (and list item fields) only a GM may set."""
    out: list[str] = []
    for f in fields:
        path = prefix + f.path
        if f.audience == "gm":
            out.append(path)
        elif f.item_fields:
            out += gm_only_paths(f.item_fields, path + ".")
    return out


@dataclass(frozen=True)
class SheetContext:
    """What the app knows about a sheet beyond its stored data (for :meth:`RuleSystem.locked_paths`).

    ``gm``: the writer is a GM or co-GM of the campaign. ``rolls``: the server's
    stored rolls for this character by kind (``{"creation": record}``), read from
    the campaign's dice chain, never from the sheet. ``in_auction``: the character
    takes part in an attribute auction (Ambre).
    """

    gm: bool = False
    rolls: Mapping[str, Any] = field(default_factory=dict)
    in_auction: bool = False


@dataclass(frozen=True)
class Step:
    """A creation wizard step: a key, a label and the field paths it edits."""

    key: str
    label: Msg
    paths: tuple[str, ...]
    help: Msg | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label.to_dict(),
            "paths": list(self.paths),
            "help": self.help.to_dict() if self.help else None,
        }


@dataclass(frozen=True)
class DerivedSpec:
    """Describes one derived value for display (label, group, gauge max)."""

    key: str
    label: Msg
    group: str = ""
    secret: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label.to_dict(), "group": self.group, "secret": self.secret}


@dataclass(frozen=True)
class SheetLayout:
    """How a player of the game reads a sheet: what comes first, what is for
    creation only and what is the character's current state.

    Every name is a sheet field path, a derived key or a field/derived
    ``group``; the web layer lays the page out from it and computes nothing.
    """

    #: The numbers looked at every post (sheet paths or derived keys), in order.
    headline: tuple[str, ...] = ()
    #: Sheet path of the one-line concept or background shown under the name.
    concept: str = ""
    #: Field and derived groups used only while creating the character (and by the GM).
    creation_groups: tuple[str, ...] = ()
    #: Field and derived groups holding the current state (wounds, pools, fatigue).
    state_groups: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def field_refs(field: Field) -> list[str]:
    """The seed line references a field's label, help and choices cite
    ("L406", "L599-L602"): data for the GM's optional "rules reference",
    never shown in player text."""
    found: list[str] = []
    msgs = [field.label, *([field.help] if field.help else []), *(m for _v, m in field.choices)]
    for msg in msgs:
        found += [r for r in msg.refs() if r not in found]
    return found


def reference_text(refs: Iterable[str]) -> Msg | None:
    """The seed line references ``refs`` in words, for the GM's rules
    reference: ``["L406"]`` → "Texte source, ligne 406" / "Source text, line
    406"; ``["L599-L602", "L610"]`` → "... lignes 599 à 602, 610" / "...
    lines 599–602, 610". ``None`` when there is none."""
    spans: list[tuple[str, str | None]] = []
    for ref in refs:
        tokens = re.findall(r"\d+|[-–/]", ref)
        i = 0
        while i < len(tokens):
            first = tokens[i]
            if not first.isdigit():
                i += 1
                continue
            last = tokens[i + 2] if i + 2 < len(tokens) and tokens[i + 1] in "-–" else None
            if (first, last) not in spans:
                spans.append((first, last))
            i += 3 if last else 1
    if not spans:
        return None
    many = len(spans) > 1 or spans[0][1] is not None
    fr = ", ".join(f"{a} à {b}" if b else a for a, b in spans)
    en = ", ".join(f"{a}–{b}" if b else a for a, b in spans)
    return Msg(
        f"Texte source, ligne{'s' if many else ''} {fr}",
        f"Source text, line{'s' if many else ''} {en}",
    )
