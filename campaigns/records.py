"""A generic editor of rules-declared records: parse a POST into values, build input nodes.

Nothing here knows a game or an app: the inputs come from a list of :class:`rules.base.Field`
(kinds int/str/text/bool/choice/list with ``item_fields``/dict): a character sheet
(:mod:`characters.sheetform` builds on it) or a campaign's list setting (a catalogue, the
bestiary: :func:`campaigns.views.settings_list`). It sits in the lowest app that edits such
records, so both can use it; ``characters.sheetform`` re-exports its names.

Input names are the dotted paths prefixed with ``s:`` (``s:powers.0.level``);
a list posts its item count as ``n:<path>``, a removed item ``del:<path>.<i>``
and the "add an item" button ``_add=<path>``; ``_example=<path>`` fills a field with its declared
``example`` (nothing saved until the form is saved). A multiple choice (a ``list`` with ``choices``)
posts its ticked values under ``s:<path>`` and ``h:<path>``. A keyed map (a ``dict`` with
``key_field``/``value_field``) and a list of plain values (a ``list`` with ``value_field``) are edited
as list rows ``<path>.<i>.key`` / ``<path>.<i>.value``: the stored shape stays the map or the list.
The templates render the nodes with ``campaigns/records/node.html``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from config import jsonlimits
from rules.base import Field, FieldError, Msg, default_from_fields, get_path, is_digits, set_path, validate_fields

MAX_LIST_ITEMS = 300


#: Validation codes meaning "the stored value would not have the declared type".
TYPE_ERROR_CODES = frozenset(
    {"invalid_int", "invalid_str", "invalid_bool", "invalid_list", "invalid_dict", "invalid_item", "invalid_json"}
)


#: The language :func:`lang` answers inside :func:`one_language` (``None``: ask Django).
_HELD_LANGUAGE: ContextVar[str | None] = ContextVar("records_language", default=None)


def lang() -> str:
    """The two-letter code of the active language (``fr`` when none is active)."""
    held = _HELD_LANGUAGE.get()
    if held is not None:
        return held
    return (get_language() or "fr")[:2]


@contextmanager
def one_language() -> Iterator[str]:
    """Read the active language once for a block that translates many messages (a sheet page
    asks :func:`msg` over a hundred times, and each Django lookup of the active language goes
    through its thread- and task-local store).

    Inside the block :func:`lang` answers the language active on entry: a block must not switch
    languages (``translation.override``) and expect :func:`msg` to follow. The value is held in a
    context variable, so concurrent requests (threads or tasks) each keep their own."""
    code = lang()
    token = _HELD_LANGUAGE.set(code)
    try:
        yield code
    finally:
        _HELD_LANGUAGE.reset(token)


def note_i18n(m: Msg | Mapping[str, str] | str | None) -> dict[str, str]:
    """Both languages of a rules message, kept in ledger ``data`` so each reader sees their own."""
    if isinstance(m, Msg):
        return {"fr": m.fr, "en": m.en}
    if isinstance(m, Mapping):
        fr = str(m.get("fr") or m.get("en") or "")
        return {"fr": fr, "en": str(m.get("en") or fr)}
    return {"fr": str(m or ""), "en": str(m or "")}


def msg(m: Msg | Mapping[str, str] | str | None) -> str:
    """A rules message (``Msg`` or its dict form) in the current language."""
    if m is None:
        return ""
    if isinstance(m, Msg):
        return m.get(lang())
    if isinstance(m, Mapping):
        return m.get("en" if lang() == "en" else "fr") or m.get("fr") or ""
    return str(m)


def humanize_key(key: str) -> str:
    """A bare group key made readable (``characteristics.phy`` reads "Characteristics · phy")."""
    return key.replace("_", " ").replace(".", " · ").strip().capitalize() if key else _("General")


def fields_by_path(fields: Iterable[Field]) -> dict[str, Field]:
    return {f.path: f for f in fields}


def _json_error(path: str) -> FieldError:
    return FieldError(path, "invalid_json", Msg("JSON invalide.", "Invalid JSON."))


def parse_sheet(
    fields: Iterable[Field],
    data: Mapping[str, Any],
    base: dict[str, Any],
    *,
    paths: Iterable[str] | None = None,
    locked: Iterable[str] = (),
    allow_dict: bool = False,
) -> tuple[dict[str, Any], list[FieldError]]:
    """Return a copy of ``base`` with the posted values of ``paths`` (default: all fields).

    Values that do not parse are kept as posted (the validator then reports
    a typed error at their path). Fields whose path starts with one of
    ``locked`` keep their stored value; dict fields are editable (as JSON)
    only with ``allow_dict``.
    """
    sheet = copy.deepcopy(base) if isinstance(base, dict) else {}
    wanted = set(paths) if paths is not None else None
    locked = tuple(locked)
    errors: list[FieldError] = []
    add = str(data.get("_add", ""))
    for f in fields:
        if wanted is not None and f.path not in wanted:
            continue
        if is_locked(f.path, locked):
            continue
        old = get_path(sheet, f.path, None)
        new = _parse_field(f, f.path, data, old, errors, add, allow_dict, f.path, locked)
        set_path(sheet, f.path, new)
    return sheet, errors


def is_locked(schema_path: str, locked: tuple[str, ...]) -> bool:
    """Whether a field (path without list indexes) is read-only for this user."""
    return any(schema_path == p or schema_path.startswith(p + ".") for p in locked)


def _parse_field(
    f: Field,
    full: str,
    data: Mapping[str, Any],
    old: Any,
    errors: list[FieldError],
    add: str,
    allow_dict: bool,
    schema: str = "",
    locked: tuple[str, ...] = (),
) -> Any:
    if locked and is_locked(schema or f.path, locked):
        return old
    name = "s:" + full
    if f.example is not None and data.get("_example") == full:
        return copy.deepcopy(f.example)
    if f.multiple:
        if ("h:" + full) not in data and name not in data:
            return old
        getlist = getattr(data, "getlist", None)
        raw_values = getlist(name) if getlist is not None else data.get(name) or []
        ticked = {str(v) for v in ([raw_values] if isinstance(raw_values, str) else raw_values)}
        unknown = ticked - {str(v) for v, _ in f.choices}
        if unknown:
            errors.append(
                FieldError(
                    full,
                    "invalid_choice",
                    Msg("Choix invalide : {v}.", "Invalid choice: {v}.").format(v=", ".join(sorted(unknown))),
                )
            )
        return [v for v, _ in f.choices if str(v) in ticked]
    if f.keyed or _scalar_list(f):
        rows = _parse_field(rows_field(f), full, data, to_rows(f, old), errors, add, allow_dict, schema, locked)
        return _from_rows(f, rows, full, errors)
    if f.kind == "list":
        raw_count = data.get("n:" + full)
        if raw_count is None:
            return old
        try:
            count = max(0, min(int(raw_count), MAX_LIST_ITEMS))
        except (TypeError, ValueError):
            count = 0
        old_items = old if isinstance(old, list) else []
        items = []
        for index in range(count):
            if data.get(f"del:{full}.{index}"):
                continue
            if index < len(old_items) and isinstance(old_items[index], dict):
                item = copy.deepcopy(old_items[index])
            else:
                item = default_from_fields(f.item_fields)
            for sub in f.item_fields:
                value = _parse_field(
                    sub,
                    f"{full}.{index}.{sub.path}",
                    data,
                    get_path(item, sub.path, None),
                    errors,
                    add,
                    allow_dict,
                    f"{schema or f.path}.{sub.path}",
                    locked,
                )
                set_path(item, sub.path, value)
            items.append(item)
        if add == full and (f.max_items is None or len(items) < f.max_items) and len(items) < MAX_LIST_ITEMS:
            items.append(default_from_fields(f.item_fields))
        return items
    if f.kind == "bool":
        if ("h:" + full) not in data and name not in data:
            return old
        return data.get(name) in ("on", "true", "1", "yes")
    if name not in data:
        return old
    raw = data.get(name)
    raw = "" if raw is None else str(raw)
    if f.kind == "int":
        text = raw.strip()
        if text == "":
            return None
        try:
            return int(text)
        except ValueError:
            return text  # the validator reports "enter a whole number" here
    if f.kind == "dict":
        if not allow_dict:
            return old
        try:
            value = jsonlimits.loads(raw or "{}")
        except ValueError:
            errors.append(_json_error(full))
            return old
        return value
    if f.kind in ("str", "text"):
        return raw.replace("\r\n", "\n")
    if raw == "" and all(value != "" for value, _ in f.choices):
        return None  # the blank option of a choice not made yet: "required" says so, not "unknown choice"
    return raw  # choice


def _scalar_list(f: Field) -> bool:
    return f.kind == "list" and f.value_field is not None and not f.item_fields


def rows_field(f: Field) -> Field:
    """A keyed map (``{key: value}``) or a list of plain values seen as a list of rows ``{key, value}``
    (``{value}``), which the list editor edits."""
    assert f.value_field is not None
    value = replace(f.value_field, path="value")
    items = (replace(f.key_field, path="key"), value) if f.keyed and f.key_field is not None else (value,)
    return replace(f, kind="list", item_fields=items, key_field=None, value_field=None, choices=(), example=None)


def to_rows(f: Field, value: Any) -> Any:
    """The stored map or list as editor rows (rows already, after a refused parse, are kept)."""
    if f.keyed:
        if isinstance(value, dict):
            return [{"key": str(k), "value": copy.deepcopy(v)} for k, v in value.items()]
        return value if isinstance(value, list) else []
    if isinstance(value, list):
        return [v if isinstance(v, dict) and set(v) <= {"value"} else {"value": v} for v in value]
    return []


def _from_rows(f: Field, rows: Any, full: str, errors: list[FieldError]) -> Any:
    """Editor rows back to the stored shape. A keyed map's keys are checked here (required, declared
    type, once each): with one wrong the rows are kept as posted, for the form to show again."""
    rows = rows if isinstance(rows, list) else []
    if not f.keyed:
        values = []
        for row in rows:
            value = row.get("value") if isinstance(row, dict) else row
            values.append(value.strip() if isinstance(value, str) else value)
        return values
    key_field = replace(f.key_field, path="key") if f.key_field is not None else None
    out: dict[str, Any] = {}
    wrong = False
    for index, row in enumerate(rows):
        at = f"{full}.{index}.key"
        raw = row.get("key") if isinstance(row, dict) else None
        key = "" if raw is None else str(raw).strip()
        if key == "":
            errors.append(FieldError(at, "required", Msg("Ce champ est obligatoire.", "This field is required.")))
            wrong = True
            continue
        if key_field is not None:
            typed: Any = int(key) if key_field.kind == "int" and is_digits(key.lstrip("+-")) else key
            found = validate_fields({"key": typed}, (key_field,), prefix=f"{full}.{index}.")
            if found:
                errors.extend(found)
                wrong = True
                continue
            key = str(typed)
        if key in out:
            errors.append(FieldError(at, "duplicate_key", Msg("Déjà dans la liste.", "Already in the list.")))
            wrong = True
            continue
        value = row.get("value") if isinstance(row, dict) else None
        out[key] = value.strip() if isinstance(value, str) and f.value_field and f.value_field.kind == "str" else value
    return rows if wrong else out


def _remap_map_errors(full: str, keys: list[str], errors: dict[str, list[str]]) -> None:
    """Errors the rules report at ``<map>.<key>...`` moved to the row showing that key (``<map>.<i>.value...``)."""
    prefix = full + "."
    for path in [p for p in errors if p.startswith(prefix)]:
        rest = path[len(prefix) :]
        best = max(
            (i for i, k in enumerate(keys) if rest == k or rest.startswith(k + ".")),
            key=lambda i: len(keys[i]),
            default=None,
        )
        if best is None:
            continue
        target = f"{prefix}{best}.value{rest[len(keys[best]) :]}"
        errors.setdefault(target, []).extend(errors.pop(path))


def type_errors(errors: Iterable[FieldError]) -> list[FieldError]:
    """Errors that make a sheet unstorable (a value of the wrong type)."""
    return [e for e in errors if e.code in TYPE_ERROR_CODES]


def error_map(errors: Iterable[FieldError]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in errors:
        out.setdefault(e.path, []).append(msg(e.message))
    return out


def build_nodes(
    fields: Iterable[Field],
    sheet: dict[str, Any],
    errors: dict[str, list[str]],
    *,
    paths: Iterable[str] | None = None,
    locked: Iterable[str] = (),
    allow_dict: bool = False,
    group_label: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """Input nodes for ``paths`` (default: all fields), consuming matching errors.

    ``group_label`` names a field's group where a new group starts (default: :func:`humanize_key`).

    ``errors`` is mutated: what is left afterwards belongs to no rendered
    input and is shown in the form's general error box.
    """
    by_path = fields_by_path(fields)
    order = list(paths) if paths is not None else list(by_path)
    locked = tuple(locked)
    nodes = []
    previous_group = None
    for path in order:
        f = by_path.get(path)
        if f is None:
            continue
        readonly = is_locked(f.path, locked)
        node = _node(f, f.path, get_path(sheet, f.path, None), errors, readonly, allow_dict, f.path, locked)
        label = group_label or humanize_key
        node["group_start"] = label(f.group) if f.group and f.group != previous_group else None
        previous_group = f.group
        nodes.append(node)
    return nodes


def _node(
    f: Field,
    full: str,
    value: Any,
    errors: dict[str, list[str]],
    readonly: bool,
    allow_dict: bool,
    schema: str = "",
    locked: tuple[str, ...] = (),
) -> dict:
    readonly = readonly or is_locked(schema or f.path, locked)
    if f.keyed or _scalar_list(f):
        rows = to_rows(f, value)
        if f.keyed and isinstance(value, dict):
            _remap_map_errors(full, [str(k) for k in value], errors)
        node = _node(rows_field(f), full, rows, errors, readonly, allow_dict, schema, locked)
        node["example"] = f.example is not None and not node["readonly"]
        key_labels = {str(v): msg(label) for v, label in f.key_field.choices} if f.key_field is not None else {}
        for item, row in zip(node["items"], rows, strict=False):
            shown = row.get("key" if f.keyed else "value") if isinstance(row, dict) else None
            if shown not in (None, ""):
                item["title"] = key_labels.get(str(shown), str(shown))
        return node
    node: dict[str, Any] = {
        "path": full,
        "name": "s:" + full,
        "id": "f-" + full.replace(".", "-"),
        "kind": f.kind,
        "label": msg(f.label),
        "help": msg(f.help) if f.help else "",
        "required": f.required,
        "minimum": f.minimum,
        "maximum": f.maximum,
        "max_length": f.max_length,
        "errors": errors.pop(full, []),
        "readonly": readonly or (f.kind == "dict" and not allow_dict),
        "secret": f.secret,
    }
    node["example"] = f.example is not None and not node["readonly"]
    if f.multiple:
        node["kind"] = "multiple"
        node["choices"] = [(str(value_), msg(label) or str(value_)) for value_, label in f.choices]
        node["value"] = [str(v) for v in value] if isinstance(value, list) else []
        labels = dict(node["choices"])
        node["display"] = ", ".join(labels.get(v, v) for v in node["value"]) or "—"
    elif f.kind == "choice":
        node["choices"] = [(value_, msg(label) or value_ or "—") for value_, label in f.choices]
        node["value"] = "" if value is None else str(value)
        if node["value"] not in {c for c, _ in node["choices"]}:
            # Not chosen yet (a new list row): show a blank option, never the first choice the browser would
            # display (and save) without the user picking it.
            node["choices"] = [("", "—"), *node["choices"]]
        node["display"] = dict(node["choices"]).get(node["value"], node["value"])
    elif f.kind == "bool":
        node["value"] = bool(value) if isinstance(value, bool) else False
    elif f.kind == "dict":
        node["value"] = json.dumps(value if value is not None else {}, ensure_ascii=False)
        node["empty"] = not value
    elif f.kind == "list":
        items = value if isinstance(value, list) else []
        node["count"] = len(items)
        node["can_add"] = f.max_items is None or len(items) < f.max_items
        node["items"] = []
        for index, item in enumerate(items):
            item_path = f"{full}.{index}"
            children = [
                _node(
                    sub,
                    f"{item_path}.{sub.path}",
                    get_path(item, sub.path, None),
                    errors,
                    readonly,
                    allow_dict,
                    f"{schema or f.path}.{sub.path}",
                    locked,
                )
                for sub in f.item_fields
            ]
            node["items"].append(
                {
                    "index": index,
                    "path": item_path,
                    "id": "f-" + item_path.replace(".", "-"),
                    "del_name": f"del:{item_path}",
                    "errors": errors.pop(item_path, []),
                    "children": children,
                    "title": _item_title(item, index),
                }
            )
    else:
        node["value"] = "" if value is None else value
    return node


def _item_title(item: Any, index: int) -> str:
    if isinstance(item, dict):
        for key in ("name", "key", "power", "school", "type", "module"):
            value = item.get(key)
            if isinstance(value, str) and value:
                return value
    return f"#{index + 1}"
