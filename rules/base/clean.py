"""Reading, cleaning and validating data against its field declarations.

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, SupportsIndex, SupportsInt, TypeGuard

from rules.base.fields import Field
from rules.base.messages import JSON, FieldError, error

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
    elif kind == "list" and f.value_field is not None and isinstance(value, list):
        return [v if v is None else _clean_value(v, f.value_field) for v in value]
    elif kind == "dict" and f.value_field is not None and isinstance(value, dict):
        return {k: v if v is None else _clean_value(v, f.value_field) for k, v in value.items()}
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
    if data.__class__ is dict:
        compiled = _compiled(fields)
        if compiled is not None and _valid(data, compiled):
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


def fields_checker(fields: tuple[Field, ...]) -> Callable[[Any], bool]:
    """A one-pass check of ``fields`` for a hot path: ``check(data)`` is True when
    :func:`validate_fields` would report nothing (its errors are still built by that function).

    For a static tuple of declarations checked on every call (a combat declaration): the
    compiled checks are looked up once, here, instead of on every call."""
    compiled = _compiled(fields)
    if compiled is not None and compiled.straight is not None:
        return compiled.straight  # checks the class of ``data`` itself
    if compiled is not None and compiled.by_path is not None:  # one call: the keyed loop itself
        return partial(_keyed_valid, compiled.by_path, compiled.required, compiled.nested)

    def check(data: Any) -> bool:
        if data.__class__ is not dict:
            return False
        if compiled is None:
            return not validate_fields(data, fields)
        return _valid(data, compiled)

    return check


class _Compiled:
    """Field declarations as plain tuples ``(path, dotted, kind, required, a, b)``.

    ``a``/``b`` are the kind's limits (minimum/maximum, max length, the set of
    choices, max items/the items' compiled fields). When every path is flat
    and unique, ``by_path`` lets a request be checked key by key: a
    declaration of 24 fields that sets 2 of them costs 2 checks, plus one
    lookup per required field."""

    __slots__ = ("by_path", "checks", "nested", "required", "straight")

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
        self.straight = _straight_check(checks) if keyed and not nested else None


#: Kinds :func:`_straight_check` writes out; a declaration with another kind keeps the loop.
_STRAIGHT_KINDS = frozenset(("int", "str", "text", "bool", "choice"))


def _straight_check(checks: tuple[tuple[Any, ...], ...]) -> Callable[[dict[str, Any]], bool] | None:
    """A short flat declaration (a test request: up to 8 fields, all plain kinds) as one
    straight-line function: one lookup and the kind's checks per field, no loop, no dispatch.

    The same verdict as :func:`_valid`'s loop (``rules/tests/test_hot_path_lazy.py``); the
    code is written from the compiled tuples only (paths and limits are ``repr``'d, choice sets are
    passed in the namespace), as :mod:`dataclasses` writes its ``__init__``."""
    return _straight_function(checks, None)


def _straight_function(
    checks: tuple[tuple[Any, ...], ...], defaults: tuple[Any, ...] | None, constants: dict[str, Any] | None = None
) -> Callable[[Any], Any] | None:
    """The code of :func:`_straight_check` (``defaults`` None: returns True/False) or of
    :func:`fields_reader` (``defaults`` given, one per check: returns the inputs dict, then
    ``constants``, or None)."""
    if not checks or len(checks) > 8 or any(c[2] not in _STRAIGHT_KINDS for c in checks):
        return None
    for _path, _dotted, kind, _required, a, b in checks:
        if kind != "choice" and any(x is not None and x.__class__ is not int for x in (a, b)):
            return None  # a limit that is not a plain int (a float bound): the loop checks it
    reading = defaults is not None
    no = "None" if reading else "False"
    namespace: dict[str, Any] = {"_int": int, "_bool": bool, "_str": str, "_dict": dict, "_isinstance": isinstance}
    namespace["_scalar"] = str | int | float | bool
    lines = ["def check(data):", "    if data.__class__ is not _dict:", f"        return {no}", "    get = data.get"]
    for i, (path, _dotted, kind, required, a, b) in enumerate(checks):
        lines.append(f"    v = v{i} = get({path!r})" if reading else f"    v = get({path!r})")
        lines.append("    if v is None:")
        if required:
            lines.append(f"        return {no}")
        elif reading:  # absent: the declared default; given as None: None (``data.get(path, default)``)
            namespace[f"_default{i}"] = defaults[i]  # type: ignore[index]
            lines.append(f"        if {path!r} not in data:")
            lines.append(f"            v{i} = _default{i}")
        else:
            lines.append("        pass")
        lines.append("    else:")
        body: list[str] = []
        if kind == "int":
            body.append("if v.__class__ is not _int and (v.__class__ is _bool or not _isinstance(v, _int)):")
            body.append(f"    return {no}")
            if a is not None and b is not None:
                body += [f"if not {int(a)!r} <= v <= {int(b)!r}:", f"    return {no}"]
            elif a is not None:
                body += [f"if v < {int(a)!r}:", f"    return {no}"]
            elif b is not None:
                body += [f"if v > {int(b)!r}:", f"    return {no}"]
        elif kind in ("str", "text"):
            body += ["if v.__class__ is not _str and not _isinstance(v, _str):", f"    return {no}"]
            if required:
                body += ["if not v.strip():", f"    return {no}"]
            if a is not None:
                body += [f"if len(v) > {int(a)!r}:", f"    return {no}"]
        elif kind == "bool":
            body += ["if v.__class__ is not _bool:", f"    return {no}"]
        else:  # choice
            namespace[f"_choices{i}"] = a
            body += [f"if not _isinstance(v, _scalar) or v not in _choices{i}:", f"    return {no}"]
        lines += [f"        {line}" for line in body]
    if reading:
        items = [f"{c[0]!r}: v{i}" for i, c in enumerate(checks)]
        for j, (key, value) in enumerate((constants or {}).items()):
            namespace[f"_constant{j}"] = value
            items.append(f"{key!r}: _constant{j}")
        lines.append("    return {" + ", ".join(items) + "}")
    else:
        lines.append("    return True")
    exec("\n".join(lines), namespace)  # code written above from ints and repr'd paths only
    written: Callable[[Any], Any] = namespace["check"]
    return written


def fields_reader(
    fields: tuple[Field, ...], constants: dict[str, Any] | None = None
) -> Callable[[Any], dict[str, Any] | None]:
    """A one-pass check-and-read of a short flat declaration (top-level paths only) (a test request) for a hot path.

    ``read(data)`` is ``None`` when :func:`validate_fields` would report an error (its errors are
    then built by that function), else the inputs ``{path: data.get(path, default)}`` in the
    declaration's order, then ``constants`` (e.g. the request's ``kind``): each value is read once,
    for its check and for the inputs. A declaration :func:`fields_checker` cannot write out
    straight is checked by it, then read."""
    compiled = _compiled(fields)
    defaults = tuple(f.default for f in fields)
    written = _straight_function(compiled.checks, defaults, constants) if compiled is not None else None
    if written is not None:
        return written
    check = fields_checker(fields)
    pairs = tuple((f.path, f.default) for f in fields)

    def read(data: Any) -> dict[str, Any] | None:
        if not check(data):
            return None
        get = data.get
        return {**{path: get(path, default) for path, default in pairs}, **(constants or {})}

    return read


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
        kind: str = f.kind
        if f.kind == "list":
            if (f.choices or f.value_field is not None) and not f.item_fields:
                kind = "empty_list"  # a multiple choice or a list of plain values: empty, or checked in full
            a, b = f.max_items, _compiled(f.item_fields) if f.item_fields else None
            if f.item_fields and b is None:
                return None  # item fields given as a list: not compiled
        elif f.kind == "dict" and (f.key_field is not None or f.value_field is not None):
            kind = "empty_dict"  # a keyed map: empty, or checked in full
        checks.append((f.path, "." in f.path or not f.path, kind, f.required, a, b))
    compiled = _Compiled(tuple(checks))
    if len(_CHECKERS) > 512:
        _CHECKERS.clear()
    _CHECKERS[id(fields)] = (fields, compiled)
    return compiled


def _valid(data: dict[str, Any], compiled: _Compiled) -> bool:
    if compiled.straight is not None:
        return compiled.straight(data)
    by_path = compiled.by_path
    if by_path is not None:
        return _keyed_valid(by_path, compiled.required, compiled.nested, data)
    return _checks_ok(data, compiled.checks)


def _checks_ok(data: dict[str, Any], checks: tuple[tuple[Any, ...], ...]) -> bool:
    """Each compiled check in turn, its value read by path (dotted or not)."""
    for check in checks:
        value = get_path(data, check[0], None) if check[1] else data.get(check[0])
        if value is None:
            if check[3]:
                return False
        elif not _value_ok(value, check):
            return False
    return True


def _keyed_valid(
    by_path: dict[str, tuple[Any, ...]],
    required: tuple[str, ...],
    nested: tuple[tuple[str, tuple[tuple[Any, ...], ...], bool], ...],
    data: Any,
) -> bool:
    """:func:`_valid` of a keyed declaration: one pass over the keys ``data`` sets (``data`` last:
    :func:`fields_checker` binds the rest with :func:`functools.partial`, one call per check)."""
    if data.__class__ is not dict:
        return False
    get = data.get
    for path in required:
        if get(path) is None:
            return False
    check_of = by_path.get
    for key, value in data.items():
        check = check_of(key)
        if check is None or value is None:
            continue
        # The common kinds inline (one pass over the keys the request sets); the rest as _value_ok.
        kind = check[2]
        cls = value.__class__
        if kind == "int":
            if cls is not int:
                if cls is bool or not isinstance(value, int):
                    return False
            lo, hi = check[4], check[5]
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                return False
        elif kind == "choice":
            if cls is not str and not isinstance(value, str | int | float | bool):
                return False
            if value not in check[4]:
                return False
        elif kind == "bool":
            if cls is not bool:
                return False
        elif kind == "str" and cls is str:
            if check[3] and not value.strip():
                return False
            if check[4] is not None and len(value) > check[4]:
                return False
        elif not _value_ok(value, check):
            return False
    for head, group, any_required in nested:
        if get(head) is None:
            if any_required:
                return False
            continue
        if not _checks_ok(data, group):
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
    if kind == "empty_list":
        return cls is list and not value
    if kind == "empty_dict":
        return cls is dict and not value
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
        if f.multiple:
            allowed = {c for c, _ in f.choices}
            for item in value:
                if not isinstance(item, str | int | float | bool) or item not in allowed:
                    errors.append(
                        error(full, "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=item)
                    )
            if len({str(v) for v in value}) < len(value):
                errors.append(error(full, "duplicate", "Chaque choix une seule fois.", "Each choice only once."))
        for index, item in enumerate(value):
            if f.value_field is not None and not f.item_fields:
                if item is None or (isinstance(item, str) and not item.strip() and f.value_field.required):
                    errors.append(
                        error(f"{full}.{index}", "required", "Ce champ est obligatoire.", "This field is required.")
                    )
                else:
                    errors.extend(_check_value(item, f.value_field, f"{full}.{index}"))
            elif f.item_fields:
                if not isinstance(item, dict):
                    errors.append(error(f"{full}.{index}", "invalid_item", "Élément invalide.", "Invalid item."))
                    continue
                errors.extend(validate_fields(item, f.item_fields, prefix=f"{full}.{index}."))
    elif f.kind == "dict":
        if not isinstance(value, dict):
            errors.append(error(full, "invalid_dict", "Objet attendu.", "Expected an object."))
        else:
            errors.extend(_check_map(value, f, full))
    return errors


def _check_map(value: dict[str, Any], f: Field, full: str) -> list[FieldError]:
    """A keyed map's keys (``key_field``) and values (``value_field``), each at ``full.<key>``."""
    errors: list[FieldError] = []
    if f.max_items is not None and len(value) > f.max_items:
        errors.append(error(full, "max_items", "{n} éléments au plus.", "At most {n} items.", n=f.max_items))
    key_field, value_field = f.key_field, f.value_field
    for key, item in value.items():
        at = f"{full}.{key}"
        if key_field is not None:
            typed: Any = int(key) if key_field.kind == "int" and is_digits(str(key).lstrip("-")) else key
            if not str(key).strip():
                errors.append(error(at, "required", "Ce champ est obligatoire.", "This field is required."))
                continue
            errors.extend(_check_value(typed, key_field, at))
        if value_field is not None:
            if item is None:
                if value_field.required:
                    errors.append(error(at, "required", "Ce champ est obligatoire.", "This field is required."))
                continue
            errors.extend(_check_value(item, value_field, at))
    return errors
