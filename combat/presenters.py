"""What each viewer may see of an encounter (read side, no writes).

The GMs see everything. Players and spectators see: participants' names and
sides, the state of participants whose stats are visible (PCs; NPCs only
when the GM shows them), their own declarations, the others' only once
revealed (without numeric GM modifiers), and the public part of the log.
NPC sheets, hidden declarations and GM notes never reach them.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.formats import number_format
from django.utils.translation import get_language, pgettext_lazy

from campaigns.access import is_gm
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from combat.services import can_control, defence_fields_for, system_for
from rules.base import get_path, set_path

LOG_LIMIT = 200
_MISSING = object()


#: The combat app's own words for the state (the conditions it reads); a system names its values
#: itself (``combat_value_labels()``, ``derived_specs()``).
STATE_LABELS = {
    "dead": pgettext_lazy("combat state", "dead"),
    "unconscious": pgettext_lazy("combat state", "unconscious"),
}

#: Bookkeeping keys of a list item (who added it, where from) that a log line does not show.
_ITEM_NOISE = frozenset({"by", "source", "domain", "damage_type", "id"})


def _lang() -> str:
    return (get_language() or "fr")[:2]


def _labels(encounter: Encounter) -> dict[str, str]:
    """Names of the state's values: the system's own words first (derived values, combat values)."""
    lang = _lang()
    system = system_for(encounter)
    labels = {}
    for spec in system.derived_specs():
        labels[spec.key] = spec.label.get(lang)
    for key, label in system.combat_value_labels().items():
        labels[key] = label.get(lang)
    return labels


def _label(labels: dict[str, str], key: str) -> str:
    if key in labels or f"{key}_max" in labels:
        return labels.get(key) or labels[f"{key}_max"]
    if key in STATE_LABELS:
        return str(STATE_LABELS[key])
    if "." in key:
        return " · ".join(_label(labels, part) for part in key.split("."))
    return key.replace("_", " ")


def _shown(labels: dict[str, str], value: Any) -> str:
    """A state value for a log line: ``{'light': 1}`` reads "light 1"."""
    if isinstance(value, bool):
        return "✓" if value else "—"
    if isinstance(value, dict):
        return ", ".join(f"{_label(labels, str(k))} {_shown(labels, v)}" for k, v in value.items()) or "—"
    if isinstance(value, list):
        items = [text for text in (_item_text(labels, item) for item in value) if text]
        return "; ".join(items) if items else "—"
    if value is None:
        return "—"
    return str(value)


def _item_text(labels: dict[str, str], item: Any) -> str:
    """One wound or handicap of a list: ``{'severity': 'light', 'nature': ''}`` reads "light"."""
    if not isinstance(item, dict):
        return _shown(labels, item)
    parts = []
    for key, value in item.items():
        if key in _ITEM_NOISE or value in (None, "", [], {}) or (isinstance(value, str) and not value.strip()):
            continue
        if isinstance(value, bool):
            if value:
                parts.append(_label(labels, str(key)))
        elif isinstance(value, int | float):
            parts.append(f"{_label(labels, str(key))} {value}")
        elif isinstance(value, str):
            known = value in labels or value in STATE_LABELS
            parts.append(_label(labels, value) if known else value.strip())
    return " ".join(parts)


def _change_text(labels: dict[str, str], path: str, value: Any) -> str:
    """A changed value of a log line: a status in the system's words (``status.dying``)."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return _value_text(labels, path, value)
    return _shown(labels, value)


def _readable_changes(labels: dict[str, str], changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **c,
            "path": _label(labels, str(c.get("path", ""))),
            "before": _change_text(labels, str(c.get("path", "")), c.get("before")),
            "after": _change_text(labels, str(c.get("path", "")), c.get("after")),
        }
        for c in changes
        if isinstance(c, dict)
    ]


def state_rows(
    state: dict[str, Any], labels: dict[str, str], hidden: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """Display rows for a participant's state, whatever the system.

    A number with a ``<key>_max`` sibling (or a dict with a ``<key>_max``
    dict) becomes a gauge; true flags become pills; other values are listed.
    """
    rows: list[dict[str, Any]] = []
    flags: list[str] = []
    for key, value in (state or {}).items():
        if key.endswith("_max") or value is None or key in hidden:
            continue
        maximum = state.get(f"{key}_max")
        if isinstance(value, bool):
            if value:
                flags.append(_label(labels, key))
        elif isinstance(value, int) and isinstance(maximum, int) and not isinstance(maximum, bool):
            rows.append(_gauge(_label(labels, key), value, maximum))
        elif isinstance(value, dict) and isinstance(maximum, dict):
            for sub, sub_value in value.items():
                if isinstance(sub_value, int) and isinstance(maximum.get(sub), int):
                    rows.append(_gauge(f"{_label(labels, key)} {sub}", sub_value, maximum[sub]))
        elif isinstance(value, dict):
            parts = [f"{_label(labels, k)} {v}" for k, v in value.items() if v not in (None, "", [], {}, 0, False)]
            if parts:
                rows.append({"kind": "value", "label": _label(labels, key), "value": ", ".join(parts)})
        elif isinstance(value, list):
            if value:
                rows.append({"kind": "value", "label": _label(labels, key), "value": str(len(value))})
        elif value != "":
            rows.append({"kind": "value", "label": _label(labels, key), "value": _value_text(labels, key, value)})
    if flags:
        rows.append({"kind": "flags", "label": "", "flags": flags})
    return rows


def _value_text(labels: dict[str, str], key: str, value: Any) -> str:
    """One state value in words: ``status = "active"`` reads the system's label of
    ``status.active`` (or of ``active``); a number in the reader's format."""
    if isinstance(value, str):
        for name in (f"{key}.{value}", value):
            if name in labels:
                return labels[name]
        return str(STATE_LABELS[value]) if value in STATE_LABELS else value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number_format(value)
    return str(value)


def _gauge(label: str, value: int, maximum: int) -> dict[str, Any]:
    percent = 0 if maximum <= 0 else max(0, min(100, round(value * 100 / maximum)))
    return {"kind": "gauge", "label": label, "value": value, "max": maximum, "percent": percent, "low": percent < 34}


def scalar_paths(state: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Dotted paths of the single values in a state (what the GM may adjust)."""
    out: list[tuple[str, Any]] = []
    for key, value in (state or {}).items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(scalar_paths(value, prefix=f"{path}."))
        elif not isinstance(value, list):
            out.append((path, value))
    return out


def declaration_rows(
    encounter: Encounter, data: dict[str, Any], *, full: bool, gm: bool = False
) -> list[tuple[str, str]]:
    """Readable ``(label, value)`` pairs of a declaration.

    GM-only inputs (``Field.audience == "gm"``) are the GMs' alone. Without
    ``full`` (another player's revealed declaration), numeric fields (costs)
    and unset values are left out too.
    """
    lang = _lang()
    rows = []
    for f in system_for(encounter).action_fields():
        value = get_path(data, f.path, _MISSING)
        if value is _MISSING:
            continue
        if f.audience == "gm" and not gm:
            continue
        if value in (None, "", [], {}) or (value == f.default and not f.required):
            continue
        if not full and f.kind in ("int", "list", "dict"):
            continue
        if f.kind == "bool":
            if not value:
                continue
            shown = "✓"
        elif f.kind == "choice":
            shown = next((label.get(lang) for key, label in f.choices if key == value), str(value))
        elif f.kind in ("list", "dict"):
            shown = _shown({}, value) if isinstance(value, dict) else str(len(value))
        else:
            shown = str(value)
        rows.append((f.label.get(lang), shown))
    return rows


def _declaration_data(
    encounter: Encounter, data: dict[str, Any], *, gm: bool, full: bool, fields: tuple[Any, ...] | None = None
) -> dict[str, Any]:
    """The declaration's values this viewer may read (the API's form of :func:`declaration_rows`);
    ``fields``: the inputs to read (default: the system's ``action_fields``)."""
    out: dict[str, Any] = {}
    for f in system_for(encounter).action_fields() if fields is None else fields:
        value = get_path(data, f.path, _MISSING)
        if value is _MISSING or (f.audience == "gm" and not gm):
            continue
        if not full and (f.kind in ("int", "list", "dict") or value in (None, "", [], {})):
            continue
        set_path(out, f.path, value)
    return out


def _defence_data(encounter: Encounter, decl: Declaration, actor: Participant, *, gm: bool) -> dict[str, Any]:
    """The defender's choices against ``decl`` (its controller and the GMs; a GM-only input the GMs')."""
    if gm or not decl.defence:
        return dict(decl.defence or {})
    decl.participant = actor
    fields = defence_fields_for(system_for(encounter), decl)
    return _declaration_data(encounter, decl.defence, gm=False, full=True, fields=fields)


def value_label(encounter: Encounter, path: str, labels: dict[str, str] | None = None) -> str:
    """A combat state value's name in the system's words (the adjust menu, the log)."""
    lang = _lang()
    system_labels = system_for(encounter).combat_value_labels()
    if path in system_labels:
        return system_labels[path].get(lang)
    return _label(labels if labels is not None else _labels(encounter), path)


def _dice(detail: dict[str, Any]) -> str:
    dice = detail.get("dice") or []
    draws = detail.get("draws") or []
    if dice and len(dice) == len(draws):
        pairs = zip(dice, draws, strict=True)
        return ", ".join(f"d{int(b)} → {v}" if int(a) == 1 else f"{a}–{b} → {v}" for (a, b), v in pairs)
    return ", ".join(str(d) for d in draws)


def gm_details(encounter: Encounter, entry: LogEntry) -> list[tuple[str, str]]:
    """The GMs' details of a log entry as labelled values (never a dump, never an internal key)."""
    lang = _lang()
    detail = entry.detail or {}
    rows: list[tuple[str, str]] = []
    result = detail.get("result") or {}
    summary = result.get("summary") or {}
    if summary:
        rows.append((str(pgettext_lazy("combat detail", "Rules")), summary.get(lang) or summary.get("fr", "")))
    declaration = detail.get("declaration")
    if declaration is None and isinstance(result.get("inputs"), dict):
        declaration = result["inputs"].get("declaration", result["inputs"])
    if isinstance(declaration, dict):
        rows += declaration_rows(encounter, declaration, full=True, gm=True)
    if detail.get("draws"):
        rows.append((str(pgettext_lazy("combat detail", "Dice")), _dice(detail)))
    if detail.get("reason"):
        rows.append((str(pgettext_lazy("combat detail", "Reason")), str(detail["reason"])))
    return rows


def participant_condition(encounter: Encounter, participant: Participant) -> str:
    if not participant.active:
        return "removed"
    return system_for(encounter).combat_condition(participant.state or {})


CONDITION_LABELS = {
    "active": pgettext_lazy("combat condition", "in the fight"),
    "unconscious": pgettext_lazy("combat condition", "out of the fight"),
    "dead": pgettext_lazy("combat condition", "dead"),
    "removed": pgettext_lazy("combat condition", "left the fight"),
}


def encounter_view(user: Any, encounter: Encounter) -> dict[str, Any]:
    """What ``user`` may see of the encounter: THE read model of an encounter.

    The page and its fragments (:func:`encounter_context`), the API and the
    live fragments all render this one dict (plain JSON values, texts in the
    current language). GMs see everything. Others see a participant's state
    only when its stats are visible, and then only what the rules show to
    others (:meth:`RuleSystem.combat_state_for_others`: no karma balance, no
    value that gives secret points away) unless they control it; their own
    declarations without the GM's inputs; the others' once revealed; the
    public part of the log.
    """
    campaign = encounter.campaign
    gm = is_gm(user, campaign)
    system = system_for(encounter)
    labels = _labels(encounter)
    # Values that give secret sheet values away (rules: private_state_keys), e.g. an initiative score.
    private = system.private_state_keys()
    current: Round | None = encounter.current_round()
    participants = list(encounter.participants.select_related("character", "controller"))
    by_id = {p.pk: p for p in participants}
    declarations: dict[int, Declaration] = {}
    if current is not None:
        declarations = {d.participant_id: d for d in current.declarations.select_related("target")}
    turn_id: int | None = None
    round_data = None
    if current is not None:
        rows = current.initiative or []
        if current.phase == Round.Phase.RESOLUTION and current.step_index < len(rows):
            turn_id = int(rows[current.step_index]["id"])
        initiative = []
        for index, row in enumerate(rows):
            p = by_id.get(int(row["id"]))
            if p is None:
                continue
            # A score may be a secret sheet value (Ambre, L416): then only the order is public.
            shown = (
                gm or can_control(user, p, campaign) or (p.stats_visible and (p.is_npc or "initiative" not in private))
            )
            decl = declarations.get(p.pk)
            initiative.append(
                {
                    "participant": p.pk,
                    "name": p.name,
                    "score": row.get("score") if shown else None,
                    "draws": list(row.get("draws", [])) if shown else [],
                    "current": index == current.step_index and current.phase == Round.Phase.RESOLUTION,
                    "status": decl.status if decl else None,
                }
            )
        round_data = {
            "number": current.number,
            "phase": current.phase,
            "phase_label": str(current.get_phase_display()),
            "step_index": current.step_index,
            "initiative": initiative if current.phase != Round.Phase.DECLARATION else [],
            "next_participant": turn_id,
        }
    items = []
    for p in participants:
        controlled = can_control(user, p, campaign)
        decl = declarations.get(p.pk)
        state = None
        if gm or p.stats_visible:
            if gm or controlled:
                state = p.state
            elif p.is_npc:  # shown by the GM: its state, without any balance
                state = {k: v for k, v in (p.state or {}).items() if k not in system.currencies}
            else:  # another player's character: what the rules show of it (L18 for Ambre)
                state = system.combat_state_for_others(p.state or {})
        shown_decl = None
        decl_rows: list[tuple[str, str]] = []
        target = None
        defence = None
        if decl is not None:
            if gm or controlled:
                shown_decl = _declaration_data(encounter, decl.data, gm=gm, full=True)
                decl_rows = declaration_rows(encounter, decl.data, full=True, gm=gm)
                target = decl.target
            elif current is not None and current.revealed:
                shown_decl = _declaration_data(encounter, decl.data, gm=False, full=False)
                decl_rows = declaration_rows(encounter, decl.data, full=False)
                target = decl.target
            if shown_decl is not None and target is not None and (gm or can_control(user, target, campaign)):
                defence = _defence_data(encounter, decl, p, gm=gm)
        condition = participant_condition(encounter, p)
        items.append(
            {
                "id": p.pk,
                "name": p.name,
                "side": p.side,
                "side_label": str(p.get_side_display()),
                "is_npc": p.is_npc,
                "character": p.character_id,
                "controller": p.controller_id,
                "controlled_by_you": controlled,
                "active": p.active,
                "condition": condition,
                "condition_label": str(CONDITION_LABELS.get(condition, "")),
                "stats_visible": p.stats_visible,
                "state": state,
                "state_rows": state_rows(state, labels) if state is not None else None,
                "declared": decl is not None,
                "declaration": shown_decl,
                "declaration_id": decl.pk if shown_decl is not None else None,
                "declaration_rows": [list(r) for r in decl_rows],
                "declaration_target": target.pk if target is not None else None,
                "declaration_target_name": target.name if target is not None else None,
                "declaration_status": decl.status if decl else None,
                "defence": defence,
                "defence_status": decl.defence_status if shown_decl is not None else None,
                "is_turn": p.pk == turn_id,
            }
        )
    log_qs = LogEntry.objects.filter(encounter=encounter).select_related("roll").order_by("-sequence")
    if not gm:
        log_qs = log_qs.filter(gm_only=False)
    entries = list(reversed(list(log_qs[:LOG_LIMIT])))
    return {
        **encounter_summary(encounter),
        "is_gm": gm,
        "round": round_data,
        "participants": items,
        "log": log_rows(encounter, entries, gm=gm, labels=labels),
        "gm_notes": encounter.gm_notes if gm else None,
    }


def encounter_summary(encounter: Encounter) -> dict[str, Any]:
    """What every reader of the thread sees of an encounter in a list (the head of :func:`encounter_view`)."""
    return {
        "id": encounter.pk,
        "campaign": encounter.campaign_id,
        "thread": encounter.thread_id,
        "title": encounter.title,
        "status": encounter.status,
        "status_label": str(encounter.get_status_display()),
        "round_number": encounter.round_number,
        "last_sequence": encounter.last_sequence,
        "created": encounter.created.isoformat() if encounter.created else None,
        "ended_at": encounter.ended_at.isoformat() if encounter.ended_at else None,
    }


def declaration_view(user: Any, declaration: Declaration) -> dict[str, Any]:
    """A declaration as ``user`` may see it: its participant's row of :func:`encounter_view`
    (what the API answers after a declaration or a defence). ``Http404`` if it is not shown."""
    encounter = Encounter.objects.select_related("campaign", "thread").get(pk=declaration.round.encounter_id)
    for row in encounter_view(user, encounter)["participants"]:
        if row["id"] == declaration.participant_id and row["declaration_id"] == declaration.pk:
            return {
                "id": declaration.pk,
                "participant": row["id"],
                "target": row["declaration_target"],
                "data": row["declaration"],
                "status": row["declaration_status"],
                "defence": row["defence"],
                "defence_status": row["defence_status"],
            }
    raise Http404


def log_rows(
    encounter: Encounter, entries: list[LogEntry], *, gm: bool, labels: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The log entries as this viewer may read them (page, fragments, API).

    ``text`` is the sentence in the reader's language, ``texts`` in every language; ``data`` the
    record this viewer may read (the GMs' full record, else the entry's public part), without its text.
    """
    lang = _lang()
    labels = _labels(encounter) if labels is None else labels
    undone = set(
        LogEntry.objects.filter(encounter=encounter, kind=LogEntry.Kind.UNDO).values_list("corrects_id", flat=True)
    )
    out = []
    for entry in entries:
        data = entry.detail if gm else entry.public
        text = data.get("text") or {}
        public_text = entry.public.get("text") or {}
        changes = [
            {**c, "path": value_label(encounter, str(c.get("path", "")), labels)}
            for c in _readable_changes(labels, data.get("changes") or [])
        ]
        for c in changes:
            c.pop("participant_id", None)
        record = {k: v for k, v in data.items() if k != "text"}
        out.append(
            {
                "id": entry.pk,
                "sequence": entry.sequence,
                "round_number": entry.round_number,
                "kind": entry.kind,
                "kind_label": str(entry.get_kind_display()),
                "participant": entry.participant_id,
                "actor": entry.actor_id,
                "text": text.get(lang) or text.get("fr", ""),
                "texts": {"fr": str(text.get("fr", "")), "en": str(text.get("en", text.get("fr", "")))},
                "data": record,
                "public_text": (public_text.get(lang) or public_text.get("fr", "")) if gm else "",
                "draws": list(data.get("draws") or []),
                "changes": changes,
                "reason": data.get("reason", ""),
                "gm_only": entry.gm_only,
                "corrects": entry.corrects_id,
                "undone": entry.pk in undone,
                "roll": entry.roll.sequence if entry.roll_id and entry.roll else None,
                "details": [list(r) for r in gm_details(encounter, entry)] if gm else [],
                "created": entry.created.isoformat() if entry.created else None,
            }
        )
    return out


def encounter_context(user: Any, encounter: Encounter) -> dict[str, Any]:
    """Everything the encounter page and its fragments show to ``user``: :func:`encounter_view`
    with the model objects the templates link to."""
    view = encounter_view(user, encounter)
    gm = view["is_gm"]
    current: Round | None = encounter.current_round()
    participants = {p.pk: p for p in encounter.participants.select_related("character")}
    items = []
    for row in view["participants"]:
        p = participants[row["id"]]
        item = {
            **row,
            "p": p,
            "controlled": row["controlled_by_you"],
            "declaration_target": participants.get(row["declaration_target"]) if row["declaration_target"] else None,
            "character_dead": bool(p.character_id and p.character and p.character.status == "dead"),
        }
        if gm:
            item["paths"] = [
                (path, value_label(encounter, path), _shown({}, value)) for path, value in scalar_paths(p.state)
            ]
            item["derived"] = _derived(encounter, p) if p.is_npc else None
        items.append(item)
    order = []
    if view["round"] is not None:
        for row in view["round"]["initiative"]:
            order.append({**row, "participant": participants.get(row["participant"])})
    turn_id = view["round"]["next_participant"] if view["round"] else None
    return {
        "view": view,
        "encounter": encounter,
        "campaign": encounter.campaign,
        "is_gm": gm,
        "round": current,
        "participants": items,
        "order": order,
        "turn": participants.get(turn_id) if turn_id else None,
        "log": view["log"],
        "last_sequence": encounter.last_sequence,
        "steps_left": bool(current and current.phase == Round.Phase.RESOLUTION and turn_id),
        "controlled": [i for i in items if i["controlled"] and i["p"].active],
        "sides": Participant.Side,
    }


def _derived(encounter: Encounter, participant: Participant) -> list[tuple[str, Any]]:
    """An NPC's derived values, for the GMs only."""
    try:
        derived = system_for(encounter).derive(participant.current_sheet(), encounter.campaign.system_settings or {})
    except Exception:  # a broken quick-NPC sheet must not break the page
        return []
    labels = _labels(encounter)
    return [(_label(labels, k), v) for k, v in derived.items() if isinstance(v, int | str) and not isinstance(v, bool)][
        :24
    ]
