"""The common interface every rule system implements.

``rules`` is a pure Python domain package: no Django, no database, no I/O.
Other apps call it with plain JSON-like data (dicts, lists, str, int, bool)
and store what it returns. Everything returned here is JSON-serialisable via
``to_dict()`` so the web apps can put it in a ``JSONField`` unchanged.

Conventions
-----------
* A *sheet* is the stored part of a character: a dict whose shape is declared
  by :meth:`RuleSystem.sheet_fields` (the Foundry "defineSchema" idea). Derived
  values are never stored: :meth:`RuleSystem.derive` recomputes them.
* Every user-facing message is a :class:`Msg` holding French and English, so
  the web layer chooses the language (French is the default).
* Randomness is always injected (:class:`RandomSource`). Every draw is
  recorded in the order it was made, so a result can be recomputed from its
  inputs and raw draws (:class:`ScriptedRandom` replays them).
* *settings* are the campaign's options for this system (a dict validated
  by :meth:`RuleSystem.validate_settings`); ``None`` means defaults.
* Results (:class:`Resolution`, :class:`CombatResult`) share their envelope
  (``kind``, ``inputs``, ``draws``, ``outcome``, ``summary``, ``success``,
  ``tags``) and one vocabulary: ``level`` (:data:`LEVELS`), ``margin``
  (signed) and, for combat, ``severity`` (:data:`SEVERITIES`); a combat
  declaration names its type :data:`ACTION_KEY` (``"action"``). The keys
  inside ``outcome`` stay each system's words in its seed's terms.
  ``rules/README.md`` maps each system's seed words onto the shared ones
  (with seed lines) and tells how to add a system; the contract every system
  honours is ``rules/tests/test_contract.py``.
"""

from __future__ import annotations

import random as _random
import re
import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal, Protocol, SupportsIndex, SupportsInt, TypeGuard, final, runtime_checkable

JSON = Any
Lang = Literal["fr", "en"]


# --------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Msg:
    """A bilingual message (French first: it is the default language)."""

    fr: str
    en: str

    def get(self, lang: str = "fr") -> str:
        """The text for a reader: seed line references ("(L406)") removed.

        References belong to docstrings and to the GM's optional "rules
        reference" (``refs()``), never to player text."""
        return strip_line_refs(self.raw(lang))

    def raw(self, lang: str = "fr") -> str:
        """The text as written, line references included."""
        return self.en if (lang or "fr").startswith("en") else self.fr

    def refs(self) -> list[str]:
        """The seed line references cited by this message ("L406", "L599-L602")."""
        return line_refs(self.fr) or line_refs(self.en)

    def format(self, **kwargs: Any) -> Msg:
        return Msg(self.fr.format(**kwargs), self.en.format(**kwargs))

    def to_dict(self) -> dict[str, str]:
        return {"fr": self.get("fr"), "en": self.get("en")}


_REF = r"L\d{2,5}(?:\s?[-–/]\s?L?\d{2,5})*"
_REF_RE = re.compile(_REF)
_PAREN_RE = re.compile(r"\s*\(([^()]*)\)")
_BARE_RE = re.compile(
    r"(?:\b(?:at|see|cf\.|note|footnote|example|exemple|voir|en)\s+)?\b" + _REF + r"\b(?:\s+literal|\s+littéral)?"
)


def line_refs(text: str) -> list[str]:
    """Seed line references ("L406", "L599-L602") cited in ``text``."""
    return _REF_RE.findall(text or "")


@lru_cache(maxsize=8192)
def strip_line_refs(text: str) -> str:
    """``text`` without its seed line references.

    "(L406)" disappears; "(GM, L456)" keeps "(GM)"; a parenthesis made only
    of references and their glue words ("footnote L655-L665", "L434
    literal") disappears; a bare "L173." or "at L583" is removed and the
    punctuation around it tidied."""
    if not text or not _REF_RE.search(text):
        return text

    def paren(match: re.Match[str]) -> str:
        parts = [p for p in re.split(r"\s*[,;]\s*", match.group(1)) if p.strip()]
        kept = [p for p in parts if not _REF_RE.search(p)]
        if len(kept) == len(parts):
            return match.group(0)
        return f" ({', '.join(kept)})" if kept else ""

    out = _PAREN_RE.sub(paren, text)
    out = _BARE_RE.sub("", out)
    out = re.sub(r"^\s*[:.,;/]+\s*", "", out)
    out = re.sub(r"\s+([.,])", r"\1", out)
    out = re.sub(r"([.,;:])[.,;:/]+", r"\1", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    if out in {".", ":", ";", ","}:
        return ""
    if out and out[0].islower() and _REF_RE.match(text.lstrip()):
        out = out[0].upper() + out[1:]  # "L456: rarely allowed." → "Rarely allowed."
    return out


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


@dataclass(frozen=True)
class FieldError:
    """A validation error attached to a dotted path of the sheet or request.

    ``path`` is ``""`` for errors about the whole object. ``code`` is stable
    and machine-readable (the API exposes it), ``message`` is for people.
    """

    path: str
    code: str
    message: Msg

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "code": self.code}
        if lang:
            data["message"] = self.message.get(lang)
        else:
            data["message"] = self.message.to_dict()
        return data


class RulesError(ValueError):
    """Raised when a request cannot be resolved; carries field errors."""

    def __init__(self, errors: Sequence[FieldError]):
        self.errors = list(errors)
        super().__init__("; ".join(f"{e.path}: {e.message.en}" for e in self.errors))


def error(path: str, code: str, fr: str, en: str, **fmt: Any) -> FieldError:
    """Shorthand to build a :class:`FieldError` with a formatted message."""
    return FieldError(path, code, Msg(fr, en).format(**fmt) if fmt else Msg(fr, en))


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
    item). ``group`` is a display group, ``step`` the creation wizard step.
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


_MISSING = object()
_IMMUTABLE = frozenset((str, int, bool, float, type(None), tuple))


def is_digits(text: object) -> bool:
    """Whether ``text`` is a non-empty string of ASCII digits ``0-9``.

    ``str.isdigit()`` also accepts "²" (which ``int()`` rejects) and "١" (which
    ``int()`` reads as 1): ids, indexes and counts from the outside use this.
    """
    return isinstance(text, str) and text.isascii() and text.isdigit()


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an int (a bool is not: ``True`` is not a rank)."""
    return isinstance(value, int) and not isinstance(value, bool)


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a dict, else a new empty one: a stored group read defensively."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a list, else a new empty one: a stored list read defensively."""
    return value if isinstance(value, list) else []


def as_int(value: object, default: int = 0) -> int:
    """A stored number read defensively: ``value`` when it is an int (a bool is not), else ``default``.

    For values a sheet or a state should already hold as ints (after :func:`clean`): a malformed one
    gives ``default`` instead of an exception, and validation reports it."""
    if type(value) is int:  # the common case first (hot path)
        return value
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def to_int(value: object, default: int = 0, *, bools: bool = False) -> int:
    """A number typed or stored loosely: ``int(value)`` for an int, a float or a numeric string
    (``" 3 "``), ``default`` for anything else. A bool gives ``default`` unless ``bools`` (then 0 or 1)."""
    if type(value) is int:  # the common cases first, without raising (hot path)
        return value
    if value is None:
        return default
    if type(value) is bool:
        return int(value) if bools else default
    if isinstance(value, str | float | bytes | bytearray | SupportsInt | SupportsIndex):
        try:
            return int(value)
        except (TypeError, ValueError):
            return default
    return default


_TRUE = frozenset({"true", "on", "yes", "1"})
_FALSE = frozenset({"false", "off", "no", "0", ""})


def clean(data: Any, fields: Iterable[Field]) -> dict[str, Any]:
    """``data`` coerced to the declared kinds and completed with the defaults, once (Foundry's
    ``DataModel.cleanData``): the values a form or an old record sends become the ones the rules read.

    * a missing or ``None`` value takes the field's default (a fresh copy; ``[]``, ``{}``, ``False``
      or ``""`` by kind when the field has none, as :func:`default_from_fields`);
    * ``int``: a string of digits (with a sign, spaces around) becomes an int, a float with no
      fraction too; ``bool``: ``"true"``/``"on"``/``"yes"``/``"1"`` and ``1`` become ``True``,
      ``"false"``/``"off"``/``"no"``/``"0"``/``""`` and ``0`` become ``False``; ``choice``: a
      number whose text is one of the choices becomes that text; ``list`` of records: each dict item
      is cleaned with ``item_fields`` (other items are kept for validation to report);
    * anything else is kept as it is: :func:`validate_fields` then reports what is still wrong.
      Keys no field declares are kept too. ``data`` is never changed (a new dict is returned; a
      non-dict gives the defaults).
    """
    out: dict[str, Any] = _copy(data) if isinstance(data, dict) else {}
    for f in fields:
        value = get_path(out, f.path, None)
        if value is None:
            if _settable(out, f.path):
                default = f.default
                if default is None:
                    default = {"list": [], "dict": {}, "bool": False, "str": "", "text": ""}.get(f.kind)
                set_path(out, f.path, _copy(default))
            continue
        cleaned = _clean_value(value, f)
        if cleaned is not value:
            set_path(out, f.path, cleaned)
    return out


def _settable(data: dict[str, Any], path: str) -> bool:
    """Whether every container on the way to ``path`` is a dict or missing (a wrong one is kept)."""
    current: Any = data
    for part in path.split(".")[:-1]:
        current = current.get(part)
        if current is None:
            return True
        if not isinstance(current, dict):
            return False
    return True


def _clean_value(value: Any, f: Field) -> Any:
    kind = f.kind
    if kind == "int":
        if isinstance(value, str):
            text = value.strip()
            digits = text[1:] if text[:1] in "+-" else text
            if is_digits(digits):
                return int(text)
        elif isinstance(value, float) and value.is_integer():
            return int(value)
    elif kind == "bool":
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
        elif value.__class__ is int and value in (0, 1):
            return bool(value)
    elif kind == "choice":
        if isinstance(value, int | float) and not isinstance(value, bool):
            allowed: set[object] = {v for v, _ in f.choices}
            if value not in allowed and str(value) in allowed:
                return str(value)
    elif kind == "list" and f.item_fields and isinstance(value, list):
        return [clean(item, f.item_fields) if isinstance(item, dict) else item for item in value]
    return value


def get_path(data: JSON, path: str, default: JSON = None) -> JSON:
    """Read a dotted path (``a.b.0.c``) from nested dicts/lists."""
    current = data
    for part in path.split(".") if path else []:
        if isinstance(current, dict):
            current = current.get(part, _MISSING)
        elif isinstance(current, list) and is_digits(part) and int(part) < len(current):
            current = current[int(part)]
        else:
            return default
        if current is _MISSING:
            return default
    return current


def set_path(data: dict[str, Any], path: str, value: JSON) -> None:
    """Write a dotted path into nested dicts, creating dicts on the way."""
    parts = path.split(".")
    current: Any = data
    for part in parts[:-1]:
        if isinstance(current, list):
            current = current[int(part)]
            continue
        if not isinstance(current.get(part), dict | list):
            current[part] = {}
        current = current[part]
    if isinstance(current, list):
        current[int(parts[-1])] = value
    else:
        current[parts[-1]] = value


def default_from_fields(fields: Iterable[Field]) -> dict[str, Any]:
    """Build a default object from field declarations."""
    data: dict[str, Any] = {}
    for f in fields:
        default = f.default
        if default is None:
            default = {"list": [], "dict": {}, "bool": False, "str": "", "text": ""}.get(f.kind)
        if isinstance(default, list | dict):
            default = _copy(default)
        set_path(data, f.path, default)
    return data


def _copy(value: JSON) -> JSON:
    """A copy of nested dicts and lists (leaves shared: they are immutable or not JSON)."""
    if isinstance(value, dict):
        return {k: v if v.__class__ in _IMMUTABLE else _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [v if v.__class__ in _IMMUTABLE else _copy(v) for v in value]
    return value


def validate_fields(data: JSON, fields: Iterable[Field], prefix: str = "") -> list[FieldError]:
    """Type, range, choice and size checks shared by every system.

    Systems call this first, then add their own rule checks (budgets,
    prerequisites...). Unknown keys are not errors here (migrations may
    keep them); systems may reject them explicitly.
    """
    if _is_valid(data, fields):
        return []  # the common case, checked in one pass; errors are built by the loop below
    errors: list[FieldError] = []
    for f in fields:
        value = get_path(data, f.path, _MISSING)
        full = f"{prefix}{f.path}"
        if value is _MISSING or value is None:
            if f.required:
                errors.append(error(full, "required", "Ce champ est obligatoire.", "This field is required."))
            continue
        errors.extend(_check_value(value, f, full))
    return errors


class _Compiled:
    """Field declarations as plain tuples ``(path, dotted, kind, required, a, b)``.

    ``a``/``b`` are the kind's limits (minimum/maximum, max length, the set of
    choices, max items/the items' compiled fields). When every path is flat
    and unique, ``by_path`` lets a request be checked key by key: a
    declaration of 24 fields that sets 2 of them costs 2 checks, plus one
    lookup per required field."""

    __slots__ = ("by_path", "checks", "nested", "required")

    def __init__(self, checks: tuple[tuple[Any, ...], ...]) -> None:
        self.checks = checks
        flat = [c for c in checks if not c[1]]
        paths = [c[0] for c in flat]
        keyed = len(set(paths)) == len(paths) and all(c[0] for c in checks)
        self.by_path = {c[0]: c for c in flat} if keyed else None
        self.required = tuple(c[0] for c in flat if c[3])
        # Dotted paths grouped by their first key: a group whose key is absent is skipped at once.
        nested: dict[str, list[tuple[Any, ...]]] = {}
        for c in checks:
            if c[1]:
                nested.setdefault(c[0].split(".", 1)[0], []).append(c)
        self.nested = tuple((head, tuple(group), any(c[3] for c in group)) for head, group in nested.items())


_CHECKERS: dict[int, tuple[Sequence[Field], _Compiled]] = {}


def _compiled(fields: Iterable[Field]) -> _Compiled | None:
    """The compiled form of a tuple of fields, cached by identity (None: not compiled).

    Only tuples are cached (the declarations are static module-level tuples);
    the cache keeps a reference to each, so an identity is never reused."""
    if not isinstance(fields, tuple):
        return None
    entry = _CHECKERS.get(id(fields))
    if entry is not None and entry[0] is fields:
        return entry[1]
    checks: list[tuple[Any, ...]] = []
    for f in fields:
        a: Any = None
        b: Any = None
        if f.kind == "int":
            a, b = f.minimum, f.maximum
        elif f.kind in ("str", "text"):
            a = f.max_length
        elif f.kind == "choice":
            a = {v for v, _ in f.choices}
        elif f.kind == "list":
            a, b = f.max_items, _compiled(f.item_fields) if f.item_fields else None
            if f.item_fields and b is None:
                return None  # item fields given as a list: not compiled
        checks.append((f.path, "." in f.path or not f.path, f.kind, f.required, a, b))
    compiled = _Compiled(tuple(checks))
    if len(_CHECKERS) > 512:
        _CHECKERS.clear()
    _CHECKERS[id(fields)] = (fields, compiled)
    return compiled


def _is_valid(data: JSON, fields: Iterable[Field]) -> bool:
    """True when :func:`validate_fields` would report no error (one pass, no message built).

    Mirrors :func:`_check_value` condition by condition; whatever it cannot
    compile answers False, and the full check runs."""
    if not isinstance(data, dict):
        return False
    compiled = _compiled(fields)
    return compiled is not None and _valid(data, compiled)


def _valid(data: dict[str, Any], compiled: _Compiled) -> bool:
    by_path = compiled.by_path
    if by_path is not None:
        get = data.get
        for path in compiled.required:
            if get(path) is None:
                return False
        for key, value in data.items():
            check = by_path.get(key)
            if check is not None and value is not None and not _value_ok(value, check):
                return False
        for head, group, any_required in compiled.nested:
            if get(head) is None:
                if any_required:
                    return False
                continue
            for check in group:
                value = get_path(data, check[0], None)
                if value is None:
                    if check[3]:
                        return False
                elif not _value_ok(value, check):
                    return False
        return True
    for check in compiled.checks:
        value = get_path(data, check[0], None) if check[1] else data.get(check[0])
        if value is None:
            if check[3]:
                return False
        elif not _value_ok(value, check):
            return False
    return True


def _value_ok(value: Any, check: tuple[Any, ...]) -> bool:
    """:func:`_check_value` finds nothing to report (``value`` is not None)."""
    _path, _dotted, kind, required, a, b = check
    cls = value.__class__
    if kind == "int":
        if cls is not int and (cls is bool or not isinstance(value, int)):
            return False
        return not ((a is not None and value < a) or (b is not None and value > b))
    if kind == "choice":
        return isinstance(value, str | int | float | bool) and value in a
    if kind == "bool":
        return cls is bool
    if kind in ("str", "text"):
        if not isinstance(value, str):
            return False
        if required and not value.strip():
            return False
        return a is None or len(value) <= a
    if kind == "list":
        if not isinstance(value, list) or (a is not None and len(value) > a):
            return False
        if b is not None:
            for item in value:
                if not isinstance(item, dict) or not _valid(item, b):
                    return False
        return True
    if kind == "dict":
        return isinstance(value, dict)
    return True


def _check_value(value: JSON, f: Field, full: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if f.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return [error(full, "invalid_int", "Entrez un nombre entier.", "Enter a whole number.")]
        if f.minimum is not None and value < f.minimum:
            errors.append(error(full, "min_value", "Doit être au moins {n}.", "Must be at least {n}.", n=f.minimum))
        if f.maximum is not None and value > f.maximum:
            errors.append(error(full, "max_value", "Doit être au plus {n}.", "Must be at most {n}.", n=f.maximum))
    elif f.kind in ("str", "text"):
        if not isinstance(value, str):
            return [error(full, "invalid_str", "Entrez un texte.", "Enter some text.")]
        if f.required and not value.strip():
            errors.append(error(full, "required", "Ce champ est obligatoire.", "This field is required."))
        if f.max_length is not None and len(value) > f.max_length:
            errors.append(
                error(
                    full,
                    "max_length",
                    "{n} caractères au plus.",
                    "At most {n} characters.",
                    n=f.max_length,
                )
            )
    elif f.kind == "bool":
        if not isinstance(value, bool):
            errors.append(error(full, "invalid_bool", "Valeur oui/non attendue.", "Expected yes or no."))
    elif f.kind == "choice":
        allowed = {c for c, _ in f.choices}
        if not isinstance(value, str | int | float | bool) or value not in allowed:
            errors.append(error(full, "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=value))
    elif f.kind == "list":
        if not isinstance(value, list):
            return [error(full, "invalid_list", "Liste attendue.", "Expected a list.")]
        if f.max_items is not None and len(value) > f.max_items:
            errors.append(error(full, "max_items", "{n} éléments au plus.", "At most {n} items.", n=f.max_items))
        for index, item in enumerate(value):
            if f.item_fields:
                if not isinstance(item, dict):
                    errors.append(error(f"{full}.{index}", "invalid_item", "Élément invalide.", "Invalid item."))
                    continue
                errors.extend(validate_fields(item, f.item_fields, prefix=f"{full}.{index}."))
    elif f.kind == "dict":
        if not isinstance(value, dict):
            errors.append(error(full, "invalid_dict", "Objet attendu.", "Expected an object."))
    return errors


# --------------------------------------------------------------------------
# Randomness
# --------------------------------------------------------------------------
@runtime_checkable
class RandomSource(Protocol):
    """What the rules need from a random source: inclusive integer draws."""

    def randint(self, a: int, b: int) -> int: ...


class SecureRandom:
    """Cryptographically secure draws (what the server uses for real rolls)."""

    def __init__(self) -> None:
        self._sys = secrets.SystemRandom()

    def randint(self, a: int, b: int) -> int:
        return self._sys.randint(a, b)


class SeededRandom:
    """Reproducible draws from a seed (tests, benchmarks, creation replays)."""

    def __init__(self, seed: int | str) -> None:
        self._rng = _random.Random(seed)

    def randint(self, a: int, b: int) -> int:
        return self._rng.randint(a, b)


class ScriptedRandom:
    """Returns the given draws in order: replays a recorded roll exactly.

    Raises :class:`ValueError` if a scripted draw is outside ``[a, b]`` or if
    the script runs out, so a replay that diverges is detected.
    """

    def __init__(self, draws: Iterable[int]) -> None:
        self._draws = list(draws)
        self._index = 0

    def randint(self, a: int, b: int) -> int:
        if self._index >= len(self._draws):
            raise ValueError("scripted random source exhausted")
        value = self._draws[self._index]
        self._index += 1
        if not a <= value <= b:
            raise ValueError(f"scripted draw {value} outside [{a}, {b}]")
        return value

    @property
    def remaining(self) -> int:
        return len(self._draws) - self._index


class RecordingRandom:
    """Wraps a source and records every draw with its die size, in order."""

    def __init__(self, source: RandomSource | None = None) -> None:
        self.source = source or SecureRandom()
        self.draws: list[int] = []
        self.dice: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        value = self.source.randint(a, b)
        self.draws.append(value)
        self.dice.append((a, b))
        return value

    # ``random.Random``-like API used by d20's expression evaluator.
    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        count = (stop - start + step - 1) // step
        return start + step * (self.randint(1, count) - 1)


# --------------------------------------------------------------------------
# Results: one vocabulary across systems
# --------------------------------------------------------------------------
#: The outcome level every :class:`Resolution` and :class:`CombatResult` carries, seen from the side
#: that acts (side ``a``, the actor): a closed set, the same in every system. ``"tie"``: neither side
#: prevails; ``"none"``: the notion does not apply (a spell builder, a heal, a GM adjustment).
#: A level is consistent with ``success``: ``True`` → a success level, ``False`` → a failure level,
#: ``None`` → ``"tie"`` or ``"none"``. Each system maps its seed's words in ``rules/README.md``.
LEVELS: tuple[str, ...] = ("critical_success", "success", "failure", "critical_failure", "tie", "none")
SUCCESS_LEVELS = frozenset({"critical_success", "success"})
FAILURE_LEVELS = frozenset({"failure", "critical_failure"})

#: How bad the harm a combat step inflicted is (:attr:`CombatResult.severity`), on one scale for every
#: system; the seed's own word stays in ``outcome``. ``"none"``: no harm.
SEVERITIES: tuple[str, ...] = ("none", "light", "serious", "grave", "mortal")

#: The key naming a combat declaration's type in every system: ``action_fields()`` declares it.
ACTION_KEY = "action"


def level_of(success: bool | None, critical: bool = False) -> str:
    """The :data:`LEVELS` word of a plain result: ``None`` → ``"none"``."""
    if success is None:
        return "none"
    if success:
        return "critical_success" if critical else "success"
    return "critical_failure" if critical else "failure"


def with_action_key(declaration: Any, legacy: str) -> Any:
    """``declaration`` with its type under :data:`ACTION_KEY`.

    A declaration stored before the key was shared names its type ``legacy``
    (Ambre's ``mode``, Clefs' and SMS's ``kind``): it is renamed, order kept,
    so declarations already in a database still resolve. Anything else is
    returned as it is (a non-dict is refused by the validation that follows)."""
    if isinstance(declaration, dict) and legacy in declaration and ACTION_KEY not in declaration:
        return {ACTION_KEY if k == legacy else k: v for k, v in declaration.items()}
    return declaration


@dataclass
class Resolution:
    """The result of one test or roll: everything needed to audit it.

    ``kind`` names the test (e.g. ``"skill_test"``); ``inputs`` are the
    validated request; ``draws`` the raw dice in draw order (empty for a
    diceless comparison); ``outcome`` the computed values, in the seed's
    words; ``success`` is ``None`` when the notion does not apply; ``tags``
    are facts other apps read (e.g. ``"natural_1"`` for Altaride's
    experience). ``level`` (one of :data:`LEVELS`) and ``margin`` (signed:
    by how much side ``a`` beat the threshold or the other side, negative
    when it fell short; ``None`` when the system has no such number) are the
    same words in every system.
    """

    system: str
    kind: str
    inputs: dict[str, Any]
    draws: list[int]
    outcome: dict[str, Any]
    summary: Msg
    success: bool | None = None
    tags: list[str] = field(default_factory=list)
    level: str = "none"
    margin: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["summary"] = self.summary.to_dict()
        return data


@dataclass
class Budget:
    """A creation budget: what is spent, what remains, what is invalid."""

    currency: str  # "karma", "xp", "points"...
    total: int
    spent: int
    lines: list[dict[str, Any]] = field(default_factory=list)  # {"label": Msg dict, "amount": int, "path": str}
    errors: list[FieldError] = field(default_factory=list)
    pools: dict[str, dict[str, int]] = field(default_factory=dict)  # sub-budgets: {"talents": {"total":..,"spent":..}}

    @property
    def remaining(self) -> int:
        return self.total - self.spent

    @property
    def valid(self) -> bool:
        return not self.errors

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "total": self.total,
            "spent": self.spent,
            "remaining": self.remaining,
            "lines": self.lines,
            "errors": [e.to_dict(lang) for e in self.errors],
            "pools": self.pools,
            "valid": self.valid,
        }


@dataclass
class Combatant:
    """A participant as the rules see it (built by the combat app)."""

    id: str
    name: str
    side: str
    sheet: dict[str, Any]
    state: dict[str, Any]
    is_npc: bool = False


@dataclass
class StateChange:
    participant_id: str
    path: str
    before: JSON
    after: JSON

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CombatResult:
    """One resolved combat step (an exchange, an attack...).

    ``state_changes`` say which participant state paths change; the combat
    app applies them in the same transaction that appends the log entry.
    ``secret`` holds details only GMs may see (e.g. NPC values). ``level``
    and ``margin`` are the actor's, as on :class:`Resolution`; ``severity``
    (one of :data:`SEVERITIES`) is how bad the harm the step inflicted is.
    """

    system: str
    kind: str
    inputs: dict[str, Any]
    draws: list[int]
    outcome: dict[str, Any]
    summary: Msg
    state_changes: list[StateChange] = field(default_factory=list)
    secret: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    level: str = "none"
    margin: int | None = None
    severity: str = "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "kind": self.kind,
            "inputs": self.inputs,
            "draws": self.draws,
            "outcome": self.outcome,
            "summary": self.summary.to_dict(),
            "state_changes": [c.to_dict() for c in self.state_changes],
            "secret": self.secret,
            "tags": self.tags,
            "level": self.level,
            "margin": self.margin,
            "severity": self.severity,
        }


#: What :meth:`RuleSystem.combat_condition` answers.
COMBAT_CONDITIONS = ("active", "unconscious", "dead")


def acts_sentence(actor: str, target: str | None = None) -> Msg:
    """A neutral public sentence: "X agit contre Y." / "X acts against Y."."""
    if target:
        return Msg(f"{actor} agit contre {target}.", f"{actor} acts against {target}.")
    return Msg(f"{actor} agit.", f"{actor} acts.")


def fallen_sentence(name: str, condition: str) -> Msg | None:
    """The public sentence for a participant a step put out of the fight (or ``None``)."""
    if condition == "dead":
        return Msg(f"{name} meurt.", f"{name} dies.")
    if condition == "unconscious":
        return Msg(f"{name} perd connaissance.", f"{name} falls unconscious.")
    return None


def join_sentences(*parts: Msg | None) -> Msg:
    """Sentences one after the other (``None`` parts are left out)."""
    kept = [p for p in parts if p is not None and (p.fr or p.en)]
    return Msg(" ".join(p.fr for p in kept), " ".join(p.en for p in kept))


def sentence(fr: str, en: str) -> Msg:
    """A sentence with its final full stop (added when missing)."""
    return Msg(fr if fr.endswith((".", "!", "?")) else fr + ".", en if en.endswith((".", "!", "?")) else en + ".")


@dataclass
class LedgerDraft:
    """A ledger entry the rules propose; the app stores it append-only.

    ``currency`` is ``"xp"`` or ``"karma"``; ``kind`` one of
    ``creation_budget, rank_refund, auction_bid, purchase, gm_award,
    gm_penalty, system_award, correction``.
    """

    currency: str
    amount: int
    kind: str
    note: Msg
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "amount": self.amount,
            "kind": self.kind,
            "note": self.note.to_dict(),
            "data": self.data,
        }


@dataclass
class PurchaseResult:
    """What a purchase (experience or karma spending) does to a sheet."""

    sheet: dict[str, Any]
    entries: list[LedgerDraft]
    errors: list[FieldError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class ProgressionResult:
    """The outcome of applying a closed session to one character."""

    balances: dict[str, int]  # {"xp": .., "karma": ..}
    sheet: dict[str, Any]
    flags: list[dict[str, Any]] = field(default_factory=list)  # e.g. {"code": "mortal_wound_negative_karma", ...}
    notes: list[Msg] = field(default_factory=list)


# --------------------------------------------------------------------------
# Tests built from the sheet
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class SheetRead:
    """One value a test reads from the character: where it comes from, its label, its value.

    ``path`` is a stored sheet path (``"skills.3.level"``) or, for a value the
    rules derive, ``"derived.<key>"``. Stored with the roll, so the roll keeps
    showing what it read after the sheet changes.
    """

    path: str
    label: Msg
    value: JSON

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "label": self.label.to_dict(), "value": self.value}


@dataclass(frozen=True)
class SheetTest:
    """One test a character can make, as :meth:`RuleSystem.sheet_tests` lists it.

    ``key`` is stable for a given sheet (a choice in a form or an API call);
    ``label`` and ``group`` are in the system's words; ``kind`` is the
    :meth:`RuleSystem.test_kinds` request it builds; ``reads`` are the sheet
    values it will use; ``declared`` are the inputs a caller may add (each with
    its :data:`Audience`: a player may set only ``"player"`` ones);
    ``impossible`` says why the test cannot be made now (e.g. not enough
    Occult Endurance), ``None`` when it can.
    """

    key: str
    label: Msg
    group: Msg
    kind: str
    reads: tuple[SheetRead, ...] = ()
    declared: tuple[Field, ...] = ()
    impossible: Msg | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label.to_dict(),
            "group": self.group.to_dict(),
            "kind": self.kind,
            "reads": [r.to_dict() for r in self.reads],
            "declared": [f.to_dict() for f in self.declared],
            "impossible": self.impossible.to_dict() if self.impossible else None,
        }


@dataclass
class BuiltTest:
    """A validated resolution request built from a sheet, with what it read."""

    key: str
    label: Msg
    request: dict[str, Any]
    reads: list[SheetRead]
    declared: dict[str, Any] = field(default_factory=dict)
    #: The inputs the test declares (what a GM may still add after the roll: the ``"gm"`` ones).
    declarable: tuple[Field, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label.to_dict(),
            "request": self.request,
            "reads": [r.to_dict() for r in self.reads],
            "declared": self.declared,
        }


def pick_fields(fields: Iterable[Field], *paths: str) -> tuple[Field, ...]:
    """The declared fields of ``paths`` (in that order) from a test kind's fields."""
    by_path = {f.path: f for f in fields}
    return tuple(by_path[p] for p in paths if p in by_path)


# --------------------------------------------------------------------------
# The system interface
# --------------------------------------------------------------------------
class RuleSystem(ABC):
    """One rule system. Subclasses are stateless singletons.

    Every method is pure: same inputs (and same random draws) give the same
    outputs.
    """

    slug: str
    name: Msg
    schema_version: int = 1
    diceless: bool = False
    currencies: tuple[str, ...] = ("xp",)
    #: The key a combat declaration's type had before every system shared :data:`ACTION_KEY`
    #: (declarations stored or sent with it are renamed by :meth:`migrate_declaration`).
    legacy_action_key: str | None = None

    # ---- schema -----------------------------------------------------------
    @abstractmethod
    def sheet_fields(self) -> tuple[Field, ...]:
        """Stored fields of a sheet, with types, ranges and defaults."""

    def default_sheet(self) -> dict[str, Any]:
        return default_from_fields(self.sheet_fields())

    def creation_steps(self) -> tuple[Step, ...]:
        """Creation wizard steps in order (default: one step per group)."""
        groups: dict[str, list[str]] = {}
        for f in self.sheet_fields():
            groups.setdefault(f.step or f.group or "sheet", []).append(f.path)
        return tuple(Step(key, Msg(key, key), tuple(paths)) for key, paths in groups.items())

    def derived_specs(self) -> tuple[DerivedSpec, ...]:
        """Labels of the derived values, for display."""
        return ()

    def sheet_layout(self) -> SheetLayout:
        """How the sheet page is read (default: fields in declaration order,
        no headline, nothing reserved to creation)."""
        return SheetLayout()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        """Options a GM may set for this system in a campaign."""
        return ()

    def default_campaign_settings(self) -> dict[str, Any]:
        return default_from_fields(self.campaign_settings_fields())

    def starter_settings(self) -> dict[str, Any]:
        """Starter content copied into a new campaign's settings, for the GM to
        edit (a catalogue built from what the text gives); default: none."""
        return {}

    def settings(self, settings: dict[str, Any] | None) -> dict[str, Any]:
        """Campaign settings merged over the defaults.

        The defaults are built from the field declarations once per system
        object (they are static) and copied for each call, so a caller may
        still change the merged dict, nested lists included."""
        cached = self.__dict__.get("_cached_default_settings")
        if cached is None:
            defaults = self.default_campaign_settings()
            mutable = tuple(k for k, v in defaults.items() if v.__class__ not in _IMMUTABLE)
            cached = self.__dict__["_cached_default_settings"] = (defaults, mutable)
        defaults, mutable = cached
        # Same keys, order and values as a fresh defaults dict updated with ``settings``; only the
        # nested defaults (lists, dicts) that ``settings`` does not replace are copied.
        merged = defaults.copy()
        for key in mutable:
            if not settings or key not in settings:
                value = defaults[key]
                merged[key] = _copy(value) if value else value.__class__()  # most are empty: [] or {}
        if settings:
            merged.update(settings)
        return merged

    @final
    def validate_settings(self, settings: dict[str, Any] | None) -> list[FieldError]:
        """Field-level errors of a campaign's settings for this system.

        Called by the campaigns app before it saves the GM's options. Default:
        the types, ranges and choices of :meth:`campaign_settings_fields`. A
        system adds its own checks (Altaride: a skill formula is talent codes;
        Ambre: the shape of a power table) after these.
        """
        return self._validate_settings(self.settings(settings))

    def _validate_settings(self, settings: dict[str, Any]) -> list[FieldError]:
        """The system's part of :meth:`validate_settings`, with the merged ``settings``."""
        return validate_fields(settings, self.campaign_settings_fields())

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Bring a stored sheet from ``from_version`` to :attr:`schema_version`.

        Migrations are static and repeatable (Foundry's ``migrateData``):
        override and chain one step per version.
        """
        if from_version > self.schema_version:
            raise ValueError(f"sheet version {from_version} is newer than {self.schema_version}")
        return sheet

    def locked_paths(self, sheet: dict[str, Any], context: SheetContext) -> list[str]:
        """Schema paths (no list indexes) this writer may not set on this sheet.

        A write keeps the stored value at these paths whatever the client sent
        (edit, API, import). Default: nothing for a GM, the GM-only fields
        (:func:`gm_only_paths` of :meth:`sheet_fields`) for anyone else.
        Systems add dynamic locks (a choice made with a server roll, a value an
        auction decided) and paths only the server writes (locked for GMs too).
        """
        return [] if context.gm else gm_only_paths(self.sheet_fields())

    def verify_server_rolls(self, sheet: dict[str, Any], rolls: Mapping[str, Any]) -> list[FieldError]:
        """Errors if the sheet disagrees with the server's stored rolls (``rolls`` by kind).

        The app passes the records it stored in the dice chain (see
        :class:`SheetContext`); a sheet is checked against them, not against
        draws it carries itself. Default: no server roll, nothing to check.
        """
        return []

    @final
    def follow_edit(
        self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The sheet once an edit (``before`` → ``after``) is carried through by the rules.

        Called when a creation step is saved or previewed: a change may set
        values that depend on it (SMS: a new race brings its modules; Clefs: a
        new placement of the rolled aspects restarts the exchanges). Returns a
        new sheet, never mutates its inputs. Default: ``after`` unchanged.
        """
        return self._follow_edit(before, after, self.settings(settings))

    def _follow_edit(self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """The system's part of :meth:`follow_edit`, with the merged ``settings``."""
        return after

    # ---- validation and derived values ------------------------------------
    @final
    def validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        """Field-level errors (types and ranges, then the system's rules)."""
        return self._validate_sheet(sheet, self.settings(settings))

    def _validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
        """The system's part of :meth:`validate_sheet`, with the merged ``settings``."""
        return validate_fields(sheet, self.sheet_fields())

    @final
    def validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        """Field-level errors of an NPC's sheet, by the system's NPC rules.

        An NPC is not built with a player character's creation rules (budget,
        creation rolls, skill packages): the GM sets its values. Default: the
        types and ranges of the stored fields only. A system with NPC rules
        (SMS: definition methods, L987–1035) adds its checks.
        """
        return self._validate_npc(sheet, self.settings(settings))

    def _validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
        """The system's part of :meth:`validate_npc`, with the merged ``settings``."""
        return validate_fields(sheet, self.sheet_fields())

    @final
    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        """Derived values, recomputed from the stored sheet."""
        return self._derive(sheet, self.settings(settings))

    @abstractmethod
    def _derive(self, sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """The system's part of :meth:`derive`, with the merged ``settings``."""

    @final
    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        """What the sheet spends of its creation budget."""
        return self._creation_budget(sheet, self.settings(settings))

    @abstractmethod
    def _creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any]) -> Budget:
        """The system's part of :meth:`creation_budget`, with the merged ``settings``."""

    @final
    def creation_ledger(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[LedgerDraft]:
        """Ledger entries written when the GM approves the sheet (e.g. a creation leftover kept as
        experience, karma spent at creation). Default: none."""
        return self._creation_ledger(sheet, self.settings(settings))

    def _creation_ledger(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[LedgerDraft]:
        """The system's part of :meth:`creation_ledger`, with the merged ``settings``."""
        return []

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        """Request kinds :meth:`resolve` accepts, with their fields."""
        return {}

    @final
    def resolve(
        self,
        request: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> Resolution:
        """Resolve a test request (``{"kind": ..., ...}``).

        Raises :class:`RulesError` with field errors for a bad request.
        """
        return self._resolve(request, rng, self.settings(settings))

    def _resolve(
        self,
        request: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any],
    ) -> Resolution:
        """The system's part of :meth:`resolve`, with the merged ``settings``."""
        raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])

    @final
    def odds(self, request: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Exact odds of a test, if the system defines them."""
        return self._odds(request, self.settings(settings))

    def _odds(self, request: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any] | None:
        """The system's part of :meth:`odds`, with the merged ``settings``."""
        return None

    # ---- tests built from the sheet ----------------------------------------
    @final
    def sheet_tests(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
    ) -> list[SheetTest]:
        """The tests this character can make, in the system's words (default: none).

        ``state`` is the current situation the app knows beyond the sheet
        (e.g. a combat participant's gauges); ``None`` means the sheet alone.
        """
        return self._sheet_tests(sheet, self.settings(settings), state)

    def _sheet_tests(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any] | None = None,
    ) -> list[SheetTest]:
        """The system's part of :meth:`sheet_tests`, with the merged ``settings``."""
        return []

    def sheet_test_request(
        self,
        sheet: dict[str, Any],
        test: SheetTest,
        declared: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any],
    ) -> tuple[dict[str, Any], list[SheetRead]]:
        """The request of ``test`` (one of :meth:`sheet_tests`) and the values it read.

        ``declared`` is already checked (only ``test.declared`` paths, audience
        respected, types and ranges). Systems listing sheet tests override this.
        """
        raise RulesError([error("test", "unsupported", "Test non pris en charge.", "Unsupported test.")])

    def build_test(
        self,
        sheet: dict[str, Any],
        choice: str,
        declared: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
        *,
        gm: bool = False,
    ) -> BuiltTest:
        """The validated resolution request of the sheet test ``choice``.

        Every number comes from the sheet (and ``state``); ``declared`` may only
        hold the test's declared inputs, and a GM-only one (``audience="gm"``)
        only when ``gm`` is true. Raises :class:`RulesError` otherwise: an
        unknown test, an impossible one, an undeclared or GM-only input, a bad
        value. Not meant to be overridden (override :meth:`_sheet_tests` and
        :meth:`sheet_test_request`).
        """
        merged = self.settings(settings)
        options = {t.key: t for t in self._sheet_tests(sheet, merged, state)}
        test = options.get(str(choice or ""))
        if test is None:
            raise RulesError(
                [error("test", "unknown_test", "Ce test n'est pas sur la feuille.", "This test is not on the sheet.")]
            )
        if test.impossible is not None:
            raise RulesError([FieldError("test", "impossible", test.impossible)])
        values = {k: v for k, v in (declared or {}).items() if v is not None and v != ""}
        allowed = {f.path: f for f in test.declared}
        errors: list[FieldError] = []
        for key in values:
            spec = allowed.get(key)
            if spec is None:
                errors.append(
                    error(
                        key,
                        "not_declarable",
                        "Cette valeur vient de la feuille : elle ne se saisit pas.",
                        "This value comes from the sheet: it cannot be typed in.",
                    )
                )
            elif spec.audience == "gm" and not gm:
                errors.append(
                    FieldError(
                        key,
                        "gm_only",
                        Msg(f"Seul le MJ fixe « {spec.label.fr} ».", f"Only the GM sets “{spec.label.en}”."),
                    )
                )
        if errors:
            raise RulesError(errors)
        errors = validate_fields(values, [replace(f, required=False) for f in test.declared])
        if errors:
            raise RulesError(errors)
        request, reads = self.sheet_test_request(sheet, test, values, merged, dict(state or {}))
        request = {**request, "kind": test.kind}
        kinds = self.test_kinds()
        if test.kind in kinds:
            errors = validate_fields(request, kinds[test.kind])
            if errors:
                raise RulesError(errors)
        return BuiltTest(test.key, test.label, request, reads, values, test.declared)

    # ---- after the roll: a stored test re-read ------------------------------
    def can_lower_die(self, resolution: Mapping[str, Any]) -> bool:
        """Whether a stored test's die may be lowered by spending experience
        (Altaride's *baisser le dé*). Default: never."""
        return False

    @final
    def lower_die(
        self,
        stored: Resolution | dict[str, Any],
        points: int,
        xp_balance: int,
        side: str = "active",
        settings: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], LedgerDraft]:
        """Spend ``points`` of experience to lower a stored test's die: ``(re-judged resolution, ledger draft)``.

        The resolution is a new dict: the stored one with its ``outcome``, ``success``, ``level`` and
        ``margin`` judged again on the lowered die (the draws never change). Refused with
        :class:`RulesError` where :meth:`can_lower_die` is false (the default)."""
        return self._lower_die(stored, points, xp_balance, side, self.settings(settings))

    def _lower_die(
        self,
        stored: Resolution | dict[str, Any],
        points: int,
        xp_balance: int,
        side: str,
        settings: dict[str, Any],
    ) -> tuple[dict[str, Any], LedgerDraft]:
        """The system's part of :meth:`lower_die`, with the merged ``settings``."""
        raise RulesError([error("lower_die", "unsupported", "Non prévu par ce système.", "Not in this system.")])

    def can_reevaluate(self, resolution: Mapping[str, Any]) -> bool:
        """Whether the GM may set a difficulty after the roll and have the stored draws
        re-judged (Clefs de l'Aube's *ND fixé après le jet*). Default: never."""
        return False

    def reevaluate(
        self,
        resolution: dict[str, Any],
        difficulty: int | None,
        negative_nd: bool | None = None,
        nd_hidden: bool | None = None,
    ) -> dict[str, Any]:
        """The stored test judged again against ``difficulty``, without re-rolling: a new
        resolution dict. Refused with :class:`RulesError` where :meth:`can_reevaluate` is false."""
        raise RulesError([error("difficulty", "unsupported", "Non prévu par ce système.", "Not in this system.")])

    def gm_aids(self) -> dict[str, Any] | None:
        """GM-only help tables (JSON values, texts as ``Msg`` dicts); ``None``: the system has none."""
        return None

    # ---- combat -----------------------------------------------------------
    @final
    def combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        """Initial combat state of a participant (gauges, pools, wounds).

        ``balances`` are the character's ledger balances (``{"karma": 3}``) when it has a
        ledger (``None`` for a quick NPC): a system whose combat reads one (Ambre's karma
        decides what a mortal wound means) takes it from there."""
        return self._combat_state(sheet, self.settings(settings), balances)

    def _combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any],
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        """The system's part of :meth:`combat_state`, with the merged ``settings``."""
        return {}

    def private_state_keys(self) -> frozenset[str]:
        """Top-level combat state keys only the participant's controller and the GMs may see.

        Default: the balances (:attr:`currencies`, e.g. karma, which are the
        owner's and the GMs' business). A system adds the values from which
        another player could work out secret sheet values (Ambre: gauges that
        are sums of attribute points). ``"initiative"`` in the set means an
        initiative score is itself a secret sheet value: only the order is shown.
        """
        return frozenset(self.currencies)

    def migrate_declaration(self, declaration: dict[str, Any]) -> dict[str, Any]:
        """A declaration as :meth:`action_fields` names it today: a type sent or stored under the
        system's key from before the shared :data:`ACTION_KEY` (:attr:`legacy_action_key`) is renamed."""
        key = self.legacy_action_key
        return with_action_key(declaration, key) if key else declaration

    def action_fields(self) -> tuple[Field, ...]:
        """Fields of a combat declaration for this system."""
        return ()

    @final
    def validate_action(
        self,
        actor_sheet: dict[str, Any],
        declaration: dict[str, Any],
        target_sheet: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> list[FieldError]:
        """Errors of a declaration (already checked against :meth:`action_fields`) against the sheets
        involved: e.g. a skill the character does not have. Default: none."""
        return self._validate_action(actor_sheet, declaration, target_sheet, self.settings(settings))

    def _validate_action(
        self,
        actor_sheet: dict[str, Any],
        declaration: dict[str, Any],
        target_sheet: dict[str, Any] | None,
        settings: dict[str, Any],
    ) -> list[FieldError]:
        """The system's part of :meth:`validate_action`, with the merged ``settings``."""
        return []

    @final
    def initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Initiative order: ``[{"id": ..., "score": ..., "draws": [...]}, ...]``."""
        return self._initiative(combatants, declarations, rng, self.settings(settings))

    def _initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """The system's part of :meth:`initiative`, with the merged ``settings``."""
        return [{"id": c.id, "score": 0, "draws": []} for c in combatants]

    @final
    def resolve_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        declaration: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> CombatResult:
        """Resolve one declared action into a result and state changes."""
        return self._resolve_action(actor, target, declaration, rng, self.settings(settings))

    def _resolve_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        declaration: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any],
    ) -> CombatResult:
        """The system's part of :meth:`resolve_action`, with the merged ``settings``."""
        raise RulesError([error("kind", "unsupported", "Action non prise en charge.", "Unsupported action.")])

    @final
    def action_options(
        self,
        sheet: dict[str, Any],
        state: dict[str, Any],
        settings: dict[str, Any] | None = None,
        *,
        defending: bool = False,
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        """The choices a combatant's sheet gives for declaration inputs: ``{path: ((value, label), ...)}``
        (its skills, weapons, spells). ``defending``: the inputs of :meth:`defence_fields`, from the
        defender's sheet. A player's value outside these choices is refused; the GMs may enter any.
        Default: none (free inputs)."""
        return self._action_options(sheet, state, self.settings(settings), defending=defending)

    def _action_options(
        self,
        sheet: dict[str, Any],
        state: dict[str, Any],
        settings: dict[str, Any],
        *,
        defending: bool = False,
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        """The system's part of :meth:`action_options`, with the merged ``settings``."""
        return {}

    def defence_fields(self, declaration: dict[str, Any], actor: Combatant, target: Combatant) -> tuple[Field, ...]:
        """Inputs of ``actor``'s declared action that belong to its TARGET (a parry or a dodge, a
        reaction's score): the combat app asks them of the target's controller, and the values
        chosen replace the attacker's at resolution. Default: none."""
        return ()

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        """The sentence every viewer of the fight may read about a resolved step.

        It names what happened in the game's words ("Brand touche le garde :
        blessure grave") and never quotes a hidden value: no NPC
        characteristic, no GM input, no threshold or margin. The combat app
        appends :func:`fallen_sentence` for whoever the step put out of the
        fight. Default: a neutral "X acts (against Y)".
        """
        return acts_sentence(actor.name, target.name if target else None)

    def combat_condition(self, state: dict[str, Any]) -> str:
        """``"dead"``, ``"unconscious"`` or ``"active"``: what the combat app reads to skip a
        participant and to mark a character dead. Default: the ``dead``, ``unconscious`` and
        ``coma`` flags of the combat state."""
        if state.get("dead"):
            return "dead"
        if state.get("unconscious") or state.get("coma"):
            return "unconscious"
        return "active"

    @final
    def carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The sheet with a participant's combat state carried into it (wounds, pools,
        fatigue, handicaps, conditions), as the system keeps them between fights.
        Returns a new dict; the default carries nothing (returns the sheet unchanged)."""
        return self._carry_combat_state(sheet, state, self.settings(settings))

    def _carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """The system's part of :meth:`carry_combat_state`, with the merged ``settings``."""
        return sheet

    def combat_state_for_others(self, state: dict[str, Any]) -> dict[str, Any]:
        """What a viewer other than the combatant's controller and the GMs may see of its
        combat state. Default: everything but :meth:`private_state_keys` (the balances, and
        the values that give secret sheet values away)."""
        private = self.private_state_keys()
        return {k: v for k, v in state.items() if k not in private}

    def combat_value_labels(self) -> dict[str, Msg]:
        """Names of the combat state's values (dotted paths or keys) in the system's words,
        for the GM's "adjust a value" menu and the log. Default: none."""
        return {}

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        """Purchase kinds a player may request, with their fields."""
        return {}

    @final
    def purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
    ) -> PurchaseResult:
        """Cost and effect of spending experience/karma on the sheet."""
        return self._purchase(sheet, request, balances, self.settings(settings))

    def _purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any],
    ) -> PurchaseResult:
        """The system's part of :meth:`purchase`, with the merged ``settings``."""
        return PurchaseResult(
            sheet,
            [],
            [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")],
        )

    @final
    def purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The simple purchases the character can pay now, each priced by :meth:`purchase`.

        Returns ``[{"kind": str, "request": {path: value}, "label": Msg, "cost": int}]``; ``facts``
        are inputs the app knows (e.g. ``already_bought``), passed to the kinds that declare them.
        Default: every purchase kind whose only required input is a choice, one offer per choice.
        """
        return self._purchase_offers(sheet, balances, self.settings(settings), facts)

    def _purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any],
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The system's part of :meth:`purchase_offers`, with the merged ``settings``."""
        facts = facts or {}
        out: list[dict[str, Any]] = []
        for kind, fields in self.purchase_fields().items():
            required = [f for f in fields if f.required]
            if len(required) != 1 or required[0].kind != "choice":
                continue
            paths = {f.path for f in fields}
            known = {k: v for k, v in facts.items() if k in paths}
            for value, label in required[0].choices:
                if not value:
                    continue
                offer = {required[0].path: value}
                result = self._purchase(sheet, {"kind": kind, **offer, **known}, balances, settings)
                if result.errors or not result.entries:
                    continue
                cost = -sum(d.amount for d in result.entries)
                out.append({"kind": kind, "request": offer, "label": label, "cost": cost})
        return out

    def session_fact_fields(self) -> tuple[Field, ...]:
        """The GM's inputs on the session award screen that :meth:`suggest_session_awards` reads."""
        return ()

    @final
    def suggest_session_awards(
        self,
        sheet: dict[str, Any],
        facts: dict[str, Any],
        settings: dict[str, Any] | None = None,
    ) -> list[LedgerDraft]:
        """Awards the system suggests for a closed session.

        ``facts`` come from the app: ``{"resolutions": [Resolution dicts of
        the character's rolls in the session], "present": bool, ...}``.
        """
        return self._suggest_session_awards(sheet, facts, self.settings(settings))

    def _suggest_session_awards(
        self,
        sheet: dict[str, Any],
        facts: dict[str, Any],
        settings: dict[str, Any],
    ) -> list[LedgerDraft]:
        """The system's part of :meth:`suggest_session_awards`, with the merged ``settings``."""
        return []

    @final
    def apply_progression(
        self,
        sheet: dict[str, Any],
        entries: Sequence[dict[str, Any]],
        settings: dict[str, Any] | None = None,
    ) -> ProgressionResult:
        """Recompute balances and progression effects from ledger entries.

        ``entries`` are all approved ledger entries of the character (dicts
        with ``currency``, ``amount``, ``kind``, ``data``), in order. Must be
        idempotent: same entries, same result.
        """
        return self._apply_progression(sheet, entries, self.settings(settings))

    def _apply_progression(
        self,
        sheet: dict[str, Any],
        entries: Sequence[dict[str, Any]],
        settings: dict[str, Any],
    ) -> ProgressionResult:
        """The system's part of :meth:`apply_progression`, with the merged ``settings``."""
        balances: dict[str, int] = {c: 0 for c in self.currencies}
        for entry in entries:
            balances[entry["currency"]] = balances.get(entry["currency"], 0) + int(entry["amount"])
        return ProgressionResult(balances=balances, sheet=sheet)

    @final
    def campaign_progression(
        self, sheets: Mapping[int, dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> dict[int, dict[str, Any]] | None:
        """A campaign-wide step after every character's :meth:`apply_progression`, for effects
        that compare characters (Ambre's ladders after buy-ups).

        ``sheets`` maps a character id to its current sheet. Returns ``{id: {"sheet": new sheet,
        "state": {...}}}`` for the characters it changes, or ``None`` (the default) when the
        system has no such step."""
        return self._campaign_progression(sheets, self.settings(settings))

    def _campaign_progression(
        self, sheets: Mapping[int, dict[str, Any]], settings: dict[str, Any]
    ) -> dict[int, dict[str, Any]] | None:
        """The system's part of :meth:`campaign_progression`, with the merged ``settings``."""
        return None

    def balance_state(self, balances: Mapping[str, int]) -> dict[str, Any]:
        """What the balances mean in the game (Ambre's good or bad karma, a loan), as JSON values
        with texts as ``Msg`` dicts; default: nothing beyond the numbers."""
        return {}

    # ---- words ------------------------------------------------------------
    def group_labels(self) -> dict[str, Msg]:
        """Names of the sheet's group keys and budget pools (``Field.group``, ``Budget.pools``),
        in the system's words. Default: none (the caller humanizes the key)."""
        return {}

    def column_labels(self) -> dict[str, Msg]:
        """Names of the keys of the records in derived tables (a list of dicts returned by
        :meth:`derive`, such as Clefs' skills with their BC and default CA). Default: none (the caller
        humanizes the key)."""
        return {}

    def test_kind_labels(self) -> dict[str, Msg]:
        """Names of the :meth:`test_kinds` keys. Default: none."""
        return {}

    def purchase_kind_labels(self) -> dict[str, Msg]:
        """Names of the :meth:`purchase_fields` kinds (*types d'achat*). Default: none."""
        return {}

    def currency_labels(self) -> dict[str, Msg]:
        """Names of :attr:`currencies` (experience, karma). Default: the common two."""
        names = {"xp": Msg("expérience", "experience"), "karma": Msg("karma", "karma")}
        return {c: names.get(c, Msg(c, c)) for c in self.currencies}

    # ---- description ------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """A JSON description of the system (for the API and the wizard)."""
        return {
            "slug": self.slug,
            "name": self.name.to_dict(),
            "schema_version": self.schema_version,
            "diceless": self.diceless,
            "currencies": list(self.currencies),
            "sheet_fields": [f.to_dict() for f in self.sheet_fields()],
            "creation_steps": [s.to_dict() for s in self.creation_steps()],
            "derived": [d.to_dict() for d in self.derived_specs()],
            "campaign_settings": [f.to_dict() for f in self.campaign_settings_fields()],
            "test_kinds": {k: [f.to_dict() for f in v] for k, v in self.test_kinds().items()},
            "action_fields": [f.to_dict() for f in self.action_fields()],
            "purchase_kinds": {k: [f.to_dict() for f in v] for k, v in self.purchase_fields().items()},
        }
