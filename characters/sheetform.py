"""Generic sheet forms and displays, driven by the rules engine's declarations.

The record editor itself (parsing a POST, input nodes) is :mod:`campaigns.records`, shared with
the campaign settings' list editor; its names are re-exported here.

Nothing here knows a game: the inputs come from ``sheet_fields()`` (kinds
int/str/text/bool/choice/list with ``item_fields``/dict), the errors from
``validate_sheet()``/``creation_budget()`` (dotted paths), the derived values
from ``derived_specs()``/``derive()``.

Input names are the dotted paths prefixed with ``s:`` (``s:powers.0.level``);
a list posts its item count as ``n:<path>``, a removed item ``del:<path>.<i>``
and the "add an item" button ``_add=<path>``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _

import rules
from campaigns.records import (  # noqa: F401  (the record editor, shared with the campaign settings: names kept here)
    MAX_LIST_ITEMS,
    TYPE_ERROR_CODES,
    _item_title,
    _json_error,
    _node,
    _parse_field,
    error_map,
    fields_by_path,
    is_locked,
    lang,
    msg,
    note_i18n,
    one_language,
    parse_sheet,
    type_errors,
)
from campaigns.records import build_nodes as _build_nodes
from rules.base import Field, Msg, RuleSystem, default_from_fields, get_path, is_digits, set_path

# ---------------------------------------------------------------------------
# Parsing a POST into a sheet
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Building input nodes for templates
# ---------------------------------------------------------------------------


def build_nodes(
    fields: Iterable[Field],
    sheet: dict[str, Any],
    errors: dict[str, list[str]],
    *,
    paths: Iterable[str] | None = None,
    locked: Iterable[str] = (),
    allow_dict: bool = False,
    system: RuleSystem | None = None,
) -> list[dict[str, Any]]:
    """:func:`campaigns.records.build_nodes` with the sheets' group names in the system's words."""
    return _build_nodes(
        fields,
        sheet,
        errors,
        paths=paths,
        locked=locked,
        allow_dict=allow_dict,
        group_label=lambda group: humanize_group(group, system),
    )


def leftover_errors(errors: dict[str, list[str]], fields: Iterable[Field]) -> list[dict[str, str]]:
    """Errors not attached to an input, labelled with the closest known field."""
    by_path = fields_by_path(fields)
    out = []
    for path, messages in errors.items():
        label = _closest_label(path, by_path)
        for text in messages:
            out.append({"path": path, "label": label, "message": text})
    return out


def _closest_label(path: str, by_path: dict[str, Field]) -> str:
    parts = path.split(".") if path else []
    while parts:
        candidate = ".".join(p for p in parts if not is_digits(p))
        f = by_path.get(candidate)
        if f is not None:
            return msg(f.label)
        parts.pop()
    return ""


def step_of_path(system: RuleSystem, path: str) -> str | None:
    """The creation step whose fields contain ``path`` (for linking an error)."""
    for step in system.creation_steps():
        for p in step.paths:
            if path == p or path.startswith(p + "."):
                return step.key
    return None


# ---------------------------------------------------------------------------
# Read-only displays
# ---------------------------------------------------------------------------
def _labels(system: RuleSystem | None, *, columns: bool = False) -> dict[str, Msg]:
    """The system's names of its group (or derived column) keys; every registered system's when the
    caller does not pass its system."""
    if system is not None:
        return system.column_labels() if columns else system.group_labels()
    return _registered_labels(columns)


@cache
def _registered_labels(columns: bool) -> dict[str, Msg]:
    merged: dict[str, Msg] = {}
    for system in rules.available_systems():
        for key, label in (system.column_labels() if columns else system.group_labels()).items():
            merged.setdefault(key, label)
    return merged


def column_label(key: str, system: RuleSystem | None = None) -> str:
    label = _labels(system, columns=True).get(key)
    return msg(label) if label is not None else humanize_group(key, system)


def humanize_group(group: str, system: RuleSystem | None = None) -> str:
    """The name of a group key in the system's words (``group_labels()``); unknown keys are humanized."""
    label = _labels(system).get(group)
    if label is not None:
        return msg(label)
    return group.replace("_", " ").replace(".", " · ").strip().capitalize() if group else _("General")


def display_value(f: Field, value: Any) -> Any:
    if f.kind == "choice":
        return msg(dict(f.choices).get(value)) or value or "—"
    shown = f.shown(value)  # a code the rules wrote in a free-text field (Field.value_labels)
    if shown is not None:
        return msg(shown)
    if f.kind == "bool":
        return "✓" if value else "—"
    if value in (None, ""):
        return "—"
    return value


def purchase_summary(fields: Iterable[Field], request: dict[str, Any], sheet: dict[str, Any]) -> list[tuple[str, Any]]:
    """A purchase request as (label, value) pairs a reader understands: the thing bought by
    its name (an item's ``name``, a sheet item raised by its name, never its index), choices
    by their labels; inputs the rules do not declare for this kind, unset ones and
    internal lists are left out."""
    out: list[tuple[str, Any]] = []
    for f in fields:
        value = get_path(request, f.path, None)
        if value is None or value == "" or f.kind == "list":
            continue
        if f.kind == "bool":
            if value:
                out.append((msg(f.label), _("yes")))
            continue
        if f.kind == "dict":
            name = value.get("name") if isinstance(value, dict) else None
            if name:
                out.append((_("Name"), name))
            continue
        if f.item_of and isinstance(value, int) and not isinstance(value, bool):
            items = get_path(sheet, f.item_of, None)
            item = items[value] if isinstance(items, list) and 0 <= value < len(items) else None
            name = item.get("name") if isinstance(item, dict) else None
            out.append((msg(f.label), name or "—"))
            continue
        out.append((msg(f.label), display_value(f, value)))
    return out


def sheet_groups(
    fields: Iterable[Field],
    sheet: dict[str, Any],
    *,
    show_empty_lists: bool = False,
    system: RuleSystem | None = None,
) -> list[dict]:
    """Stored fields grouped for display; list items become small cards."""
    groups: dict[str, dict[str, Any]] = {}
    for f in fields:
        value = get_path(sheet, f.path, None)
        group = groups.setdefault(
            f.group, {"key": f.group, "label": humanize_group(f.group, system), "rows": [], "lists": []}
        )
        if f.kind == "list":
            items = value if isinstance(value, list) else []
            if not items and not show_empty_lists:
                continue
            group["lists"].append({"label": msg(f.label), "path": f.path, "items": [_item_rows(f, i) for i in items]})
        elif f.kind == "dict":
            continue  # server records (a creation roll) and GM notes: shown by the wizard and the edit form
        elif value not in (None, "", False):
            group["rows"].append(
                {"label": msg(f.label), "path": f.path, "value": display_value(f, value), "kind": f.kind}
            )
    return [g for g in groups.values() if g["rows"] or g["lists"]]


def _item_rows(f: Field, item: Any) -> dict[str, Any]:
    rows = []
    if isinstance(item, dict):
        defaults = default_from_fields(f.item_fields)
        for sub in f.item_fields:
            value = get_path(item, sub.path, None)
            if sub.kind == "list":
                inner = value if isinstance(value, list) else []
                if inner:
                    rows.append(
                        {"label": msg(sub.label), "value": ", ".join(_item_title(x, i) for i, x in enumerate(inner))}
                    )
                continue
            if value in (None, "", False) or (value == get_path(defaults, sub.path, None) and sub.kind == "bool"):
                continue
            rows.append({"label": msg(sub.label), "value": display_value(sub, value)})
    title = _item_title(item, 0)
    return {"title": title, "rows": [r for r in rows if str(r["value"]) != title]}


def derived_groups(system: RuleSystem, derived: dict[str, Any], *, include_secret: bool = True) -> list[dict]:
    """Derived values per group; ``x`` with ``x_max`` (or ``a.max`` with ``a.current``) become gauges."""
    specs = list(system.derived_specs())
    keys = {s.key for s in specs}
    groups: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if spec.secret and not include_secret:
            continue
        value = get_path(derived, spec.key, None)
        if spec.key.endswith("_max") and spec.key[:-4] in keys:
            continue  # shown as the gauge of its base value
        row: dict[str, Any] = {"key": spec.key, "label": msg(spec.label), "kind": "scalar", "value": value}
        maximum = get_path(derived, spec.key + "_max", None)
        if spec.key.endswith(".max"):
            current = get_path(derived, spec.key[:-4] + ".current", None)
            if isinstance(current, int) and isinstance(value, int):
                row.update(kind="gauge", value=current, max=value)
        elif isinstance(maximum, int) and isinstance(value, int) and not isinstance(value, bool):
            row.update(kind="gauge", max=maximum)
        if row["kind"] == "gauge":
            row["percent"] = max(0, min(100, round(100 * row["value"] / row["max"]))) if row["max"] else 0
        elif isinstance(value, bool):
            row["value"] = "✓" if value else "—"
        elif isinstance(value, list) and value and all(_is_record(v) for v in value):
            columns: list[str] = []
            for item in value:
                columns += [k for k in item if k not in columns]
            row.update(
                kind="table",
                columns=[column_label(c, system) for c in columns],
                value=[[_flat(item.get(c, "")) for c in columns] for item in value],
            )
        elif isinstance(value, list):
            row.update(kind="list", value=[_flat(v) for v in value])
        elif isinstance(value, dict):
            row.update(kind="dict", value=[(k, _flat(v)) for k, v in value.items()])
        elif value is None:
            row["value"] = "—"
        group = groups.setdefault(
            spec.group, {"key": spec.group, "label": humanize_group(spec.group, system), "rows": []}
        )
        group["rows"].append(row)
    return list(groups.values())


def _is_record(value: Any) -> bool:
    """A plain record (a dict that is not a bilingual message nor a labelled value)."""
    return isinstance(value, Mapping) and set(value) != {"fr", "en"} and "label" not in value


def _flat(value: Any) -> str:
    if isinstance(value, Mapping):
        if "label" in value and isinstance(value["label"], Mapping):
            head = msg(value["label"])
            rest = ", ".join(f"{k}: {_flat(v)}" for k, v in value.items() if k != "label")
            return f"{head} ({rest})" if rest else head
        if set(value) == {"fr", "en"}:
            return msg(value)
        return ", ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_flat(v) for v in value)
    if isinstance(value, bool):
        return "✓" if value else "—"
    return str(value)


def budget_view(budget: Any, system: RuleSystem | None = None) -> dict[str, Any]:
    """A creation budget for display (lines and pools translated)."""
    data = budget.to_dict()
    lines = [
        {"label": msg(line.get("label")), "amount": line.get("amount"), "path": line.get("path", "")}
        for line in data["lines"]
    ]
    pools = []
    for key, pool in (data.get("pools") or {}).items():
        total = pool.get("total", 0) or 0
        spent = pool.get("spent", 0) or 0
        pools.append(
            {
                "key": key,
                "label": humanize_group(key, system),
                "total": total,
                "spent": spent,
                "remaining": pool.get("remaining", total - spent),
                "over": spent > total,
                "percent": max(0, min(100, round(100 * spent / total))) if total else 0,
            }
        )
    return {
        "currency": data["currency"],
        "total": data["total"],
        "spent": data["spent"],
        "remaining": data["remaining"],
        "over": data["remaining"] < 0,
        "percent": max(0, min(100, round(100 * data["spent"] / data["total"]))) if data["total"] else 0,
        "lines": lines,
        "pools": pools,
        "errors": [msg(e.message) for e in budget.errors],
        "valid": budget.valid,
    }


def sheet_diff(fields: Iterable[Field], before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """A readable diff of two sheets: one row per changed leaf, labelled."""
    rows: list[dict[str, Any]] = []
    fields = tuple(fields)
    by_path = fields_by_path(fields)
    for path, old, new in _leaf_changes(before, after, ""):
        found = field_at(fields, path)
        if found is not None:
            f, label = found
            if f.kind in ("choice", "bool"):
                old = _short(display_value(f, get_path(before, path, None))) if old != "—" else old
                new = _short(display_value(f, get_path(after, path, None))) if new != "—" else new
        else:
            label = _closest_label(path, by_path) or path
        rows.append({"path": path, "label": label, "before": old, "after": new})
    return rows


def field_at(fields: Iterable[Field], path: str) -> tuple[Field, str] | None:
    """The declaration of a (possibly nested, indexed) path and its labels joined with " › "."""
    parts = [p for p in path.split(".")]
    current = tuple(fields)
    labels: list[str] = []
    while parts:
        if is_digits(parts[0]):
            parts.pop(0)
            continue
        match = None
        for size in range(len(parts), 0, -1):
            candidate = ".".join(parts[:size])
            match = next((f for f in current if f.path == candidate), None)
            if match is not None:
                parts = parts[size:]
                break
        if match is None:
            return None
        labels.append(msg(match.label))
        if not parts:
            return match, " › ".join(labels)
        current = match.item_fields
    return None


def _leaf_changes(a: Any, b: Any, prefix: str) -> list[tuple[str, Any, Any]]:
    if a is None and isinstance(b, dict | list):
        a = type(b)()  # an added item: list its fields one by one
    elif b is None and isinstance(a, dict | list):
        b = type(a)()
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in list(a) + [k for k in b if k not in a]:
            out += _leaf_changes(a.get(key), b.get(key), f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = []
        for index in range(max(len(a), len(b))):
            out += _leaf_changes(
                a[index] if index < len(a) else None,
                b[index] if index < len(b) else None,
                f"{prefix}.{index}" if prefix else str(index),
            )
        return out
    if a == b or (a in (None, "", False) and b in (None, "", False)):
        return []
    return [(prefix, _short(a), _short(b))]


def _short(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return text if len(text) <= 200 else text[:197] + "…"


def derived_diff(system: RuleSystem, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Derived values that change between two derivations (by spec)."""
    rows = []
    for spec in system.derived_specs():
        old, new = get_path(before, spec.key, None), get_path(after, spec.key, None)
        if old != new:
            rows.append({"label": msg(spec.label), "before": _short_flat(old), "after": _short_flat(new)})
    return rows


def _short_flat(value: Any) -> str:
    text = _flat(value) if value is not None else "—"
    return text if len(text) <= 200 else text[:197] + "…"


_ABSENT = object()


def keep_locked(
    fields: Iterable[Field], stored: dict[str, Any], client: dict[str, Any], locked: tuple[str, ...]
) -> dict[str, Any]:
    """The sheet to save from a client's sheet, with the server's values where the user may not write.

    Start from the stored sheet; take from ``client`` only the declared fields
    (``sheet_fields``) that are not ``locked`` (schema paths, see
    :func:`is_locked`), item by item inside lists. Fields the client omits,
    locked fields and undeclared keys the rules keep for themselves (e.g. a
    server creation roll) keep their stored value.
    """

    from rules.base import default_from_fields, get_path

    sheet = copy.deepcopy(stored)

    def merge_items(field: Field, schema: str, new_items: list[Any], old_items: Any) -> list[Any]:
        old_items = old_items if isinstance(old_items, list) else []
        merged = []
        for index, item in enumerate(new_items):
            if not isinstance(item, dict):
                merged.append(item)
                continue
            old = old_items[index] if index < len(old_items) and isinstance(old_items[index], dict) else None
            old = old if old is not None else default_from_fields(field.item_fields)
            item = copy.deepcopy(item)
            for sub in field.item_fields:
                sub_schema = f"{schema}.{sub.path}"
                if is_locked(sub_schema, locked):
                    set_path(item, sub.path, copy.deepcopy(get_path(old, sub.path, None)))
                elif sub.kind == "list" and sub.item_fields and isinstance(get_path(item, sub.path), list):
                    set_path(
                        item, sub.path, merge_items(sub, sub_schema, get_path(item, sub.path), get_path(old, sub.path))
                    )
            merged.append(item)
        return merged

    for f in fields:
        if is_locked(f.path, locked):
            continue
        value = get_path(client, f.path, _ABSENT)
        if value is _ABSENT:
            continue
        if f.kind == "list" and f.item_fields and isinstance(value, list):
            value = merge_items(f, f.path, value, get_path(sheet, f.path, None))
        set_path(sheet, f.path, copy.deepcopy(value))
    return sheet


# ---------------------------------------------------------------------------
# The sheet page: the character first, values once, state as gauges
# ---------------------------------------------------------------------------
def _number(value: Any) -> Any:
    """A number in the reader's locale ("67,25" in French); other values as they are."""
    if isinstance(value, float) and not isinstance(value, bool):
        return number_format(value, decimal_pos=2 if value != int(value) else 0, use_l10n=True)
    return value


def _derived_cell(system: RuleSystem, derived: dict[str, Any], key: str) -> dict[str, Any] | None:
    """One derived value as a headline cell (a gauge when it has a maximum)."""
    specs = {s.key: s for s in system.derived_specs()}
    value = get_path(derived, key, None)
    if value is None or isinstance(value, (dict, list)):
        return None
    spec = specs.get(key)
    cell: dict[str, Any] = {
        "key": key,
        "label": msg(spec.label) if spec else humanize_group(key, system),
        "value": value,
    }
    if key.endswith(".max"):
        current = get_path(derived, key[:-4] + ".current", None)
        if isinstance(current, int) and isinstance(value, int):
            cell.update(value=current, max=value)
    else:
        maximum = get_path(derived, key + "_max", None)
        if isinstance(maximum, int) and isinstance(value, int) and not isinstance(value, bool):
            cell["max"] = maximum
    if "max" in cell:
        cell["low"] = cell["max"] > 0 and cell["value"] * 3 < cell["max"]
    if isinstance(cell["value"], bool):
        cell["value"] = _("yes") if cell["value"] else _("no")
    cell["value"] = _number(cell["value"])
    return cell


def sheet_page(
    system: RuleSystem, sheet: dict[str, Any], derived: dict[str, Any], *, show_creation: bool
) -> dict[str, Any]:
    """Everything the sheet page shows, laid out by ``system.sheet_layout()``.

    Each value appears once: a stored field that the rules also derive shows
    the derived (effective) value, with the stored one as its provenance;
    headline values are left out of the groups below. Creation groups are
    kept only while creating and for the GM (``show_creation``). Every label
    is in the active language, read once for the page (:func:`one_language`)."""
    with one_language():
        return _sheet_page(system, sheet, derived, show_creation=show_creation)


def _sheet_page(
    system: RuleSystem, sheet: dict[str, Any], derived: dict[str, Any], *, show_creation: bool
) -> dict[str, Any]:
    layout = system.sheet_layout()
    fields = list(system.sheet_fields())
    by_path = fields_by_path(fields)
    hidden_groups = set() if show_creation else set(layout.creation_groups)
    derived_keys = {s.key for s in system.derived_specs()}

    headline: list[dict[str, Any]] = []
    for key in layout.headline:
        cell = _derived_cell(system, derived, key) if key in derived_keys else None
        stored = get_path(sheet, key, None)
        if cell is None and key in by_path and stored not in (None, ""):
            f = by_path[key]
            cell = {"key": key, "label": msg(f.label), "value": _number(display_value(f, stored))}
        if cell is None:
            continue
        if key in by_path and stored is not None and str(stored) != str(cell["value"]) and "max" not in cell:
            cell["provenance"] = _("%(stored)s on the sheet, %(effective)s with everything that adds to it") % {
                "stored": stored,
                "effective": cell["value"],
            }
        # Every key the template reads, present: a missing one costs the template a failed lookup.
        cell.setdefault("provenance", "")
        cell.setdefault("max", None)
        headline.append(cell)
    shown = {c["key"] for c in headline}
    shown |= {k[:-4] for k in shown if k.endswith(".max")} | {k + "_max" for k in shown}

    groups = []
    state_rows: list[dict[str, Any]] = []
    for group in sheet_groups(fields, sheet, system=system):
        if group["key"] in hidden_groups:
            continue
        rows = []
        for row in group["rows"]:
            if row["path"] in shown:
                continue
            if row["path"] in derived_keys:
                effective = get_path(derived, row["path"], None)
                if effective is not None and str(effective) != str(row["value"]):
                    row["provenance"] = _("%(stored)s on the sheet, %(effective)s with everything that adds to it") % {
                        "stored": row["value"],
                        "effective": effective,
                    }
                    row["value"] = effective
                shown.add(row["path"])
            row["value"] = _number(row["value"])
            row["key"] = row["path"]
            row.setdefault("provenance", "")
            rows.append(row)
        group["rows"] = rows
        if group["key"] in layout.state_groups:
            state_rows += rows
            group["rows"] = []
            if not group["lists"]:
                continue
        if group["rows"] or group["lists"]:
            groups.append(group)

    # A list the rules also derive (Clefs skills with their bonus and default
    # chance): one list, each item completed with what the rules add.
    for group in groups:
        for lst in group["lists"]:
            extra = get_path(derived, lst["path"], None)
            stored = get_path(sheet, lst["path"], None)
            if not (isinstance(extra, list) and isinstance(stored, list) and len(extra) == len(stored)):
                continue
            if not all(_is_record(x) for x in extra):
                continue
            for item, src, add in zip(lst["items"], stored, extra, strict=True):
                known = set(src) if isinstance(src, dict) else set()
                name = add.get("name")
                if "name" not in known and isinstance(name, str) and name:
                    item["title"] = name  # the rules' name of a stored key (a catalogue skill's name)
                    known.add("name")
                for key, value in add.items():
                    if key in known or value in (None, "", [], {}):
                        continue
                    item["rows"].append({"label": column_label(key, system), "value": _number(_flat(value))})
            shown.add(lst["path"])

    gauges: list[dict[str, Any]] = []
    derived_out = []
    for group in derived_groups(system, derived):
        if group["key"] in hidden_groups:
            continue
        rows = [r for r in group["rows"] if r["key"] not in shown]
        if group["key"] in layout.state_groups:
            gauges += [r for r in rows if r["kind"] == "gauge"]
            state_rows += [
                {"label": r["label"], "value": _number(r["value"]), "key": r["key"]}
                for r in rows
                if r["kind"] == "scalar"
            ]
            rows = [r for r in rows if r["kind"] not in ("gauge", "scalar")]
        for r in rows:
            if r["kind"] == "scalar":
                r["value"] = _number(r["value"])
        if rows:
            derived_out.append({**group, "rows": rows})
    concept = get_path(sheet, layout.concept, "") if layout.concept else ""
    concept = concept if isinstance(concept, str) else ""
    if concept and len(concept) <= 160:  # shown whole under the name: not again below
        for group in groups:
            group["rows"] = [r for r in group["rows"] if r["path"] != layout.concept]
        groups = [g for g in groups if g["rows"] or g["lists"]]
    return {
        "headline": headline,
        "groups": groups,
        "derived_groups": derived_out,
        "state_rows": state_rows,
        "gauges": gauges,
        "concept": concept,
    }
