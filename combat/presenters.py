"""What each viewer may see of an encounter (read side, no writes).

The GMs see everything. Players and spectators see: participants' names and
sides, the state of participants whose stats are visible (PCs; NPCs only
when the GM shows them), their own declarations, the others' only once
revealed (without numeric GM modifiers), and the public part of the log.
NPC sheets, hidden declarations and GM notes never reach them.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language, pgettext_lazy

from campaigns.access import is_gm
from combat.models import Declaration, Encounter, LogEntry, Participant, Round
from combat.services import can_control, system_for

LOG_LIMIT = 200


#: Names of the combat-state keys the systems do not label themselves (``keys``, ``wounds.light``...).
STATE_LABELS = {
    "life": pgettext_lazy("combat state", "Life"),
    "energy": pgettext_lazy("combat state", "Energy"),
    "keys": pgettext_lazy("combat state", "Keys"),
    "wounds": pgettext_lazy("combat state", "Wounds"),
    "light": pgettext_lazy("combat state", "light"),
    "serious": pgettext_lazy("combat state", "serious"),
    # Ambre's wound track: "légère / sérieuse / grave / mortelle" (seed 000, L425–L428).
    "grave": pgettext_lazy("combat state", "grave"),
    "mortal": pgettext_lazy("combat state", "mortal"),
    "wound_points": pgettext_lazy("combat state", "Wound points"),
    "determined": pgettext_lazy("combat state", "determined"),
    "coma": pgettext_lazy("combat state", "coma"),
    "dying": pgettext_lazy("combat state", "dying"),
    "death_assured": pgettext_lazy("combat state", "death assured"),
    "dead": pgettext_lazy("combat state", "dead"),
    "karma": pgettext_lazy("combat state", "Karma"),
    "actions_taken": pgettext_lazy("combat state", "Actions taken"),
    "dodge": pgettext_lazy("combat state", "Dodge"),
    "endurance": pgettext_lazy("combat state", "Endurance"),
    "unconscious": pgettext_lazy("combat state", "unconscious"),
    "unconscious_cause": pgettext_lazy("combat state", "Cause of unconsciousness"),
    "fatigue": pgettext_lazy("combat state", "Fatigue"),
    "lasting": pgettext_lazy("combat state", "lasting"),
    "persistent": pgettext_lazy("combat state", "persistent"),
    "transient": pgettext_lazy("combat state", "transient"),
    "initiative": pgettext_lazy("combat state", "Initiative"),
    "interventions_used": pgettext_lazy("combat state", "Interventions used"),
    "reactions": pgettext_lazy("combat state", "Reactions"),
    "spell_cast": pgettext_lazy("combat state", "Spell cast"),
    "status": pgettext_lazy("combat state", "Status"),
    "advantages": pgettext_lazy("combat state", "Advantages"),
    "handicaps": pgettext_lazy("combat state", "Handicaps"),
}


def _lang() -> str:
    return (get_language() or "fr")[:2]


def _labels(encounter: Encounter) -> dict[str, str]:
    lang = _lang()
    labels = {}
    for spec in system_for(encounter).derived_specs():
        labels[spec.key] = spec.label.get(lang)
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
    if value is None:
        return "—"
    return str(value)


def _readable_changes(labels: dict[str, str], changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **c,
            "path": _label(labels, str(c.get("path", ""))),
            "before": _shown(labels, c.get("before")),
            "after": _shown(labels, c.get("after")),
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
            rows.append({"kind": "value", "label": _label(labels, key), "value": str(value)})
    if flags:
        rows.append({"kind": "flags", "label": "", "flags": flags})
    return rows


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


def declaration_rows(encounter: Encounter, data: dict[str, Any], *, full: bool) -> list[tuple[str, str]]:
    """Readable ``(label, value)`` pairs of a declaration.

    Without ``full`` (another player's revealed declaration), numeric fields
    (GM modifiers, costs) and unset values are left out.
    """
    lang = _lang()
    rows = []
    for f in system_for(encounter).action_fields():
        if f.path not in data:
            continue
        value = data[f.path]
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
        else:
            shown = str(value)
        rows.append((f.label.get(lang), shown))
    return rows


def encounter_context(user: Any, encounter: Encounter) -> dict[str, Any]:
    """Everything the encounter page and its fragments show to ``user``."""
    campaign = encounter.campaign
    gm = is_gm(user, campaign)
    labels = _labels(encounter)
    # Karma/experience balances, and values that give secret sheet values away (rules: private_state_keys).
    currencies = system_for(encounter).private_state_keys()
    balances = frozenset(system_for(encounter).currencies)  # an NPC the GM shows: all but balances
    current: Round | None = encounter.current_round()
    participants = list(encounter.participants.select_related("character", "controller"))
    by_id = {p.pk: p for p in participants}
    declarations: dict[int, Declaration] = {}
    if current is not None:
        declarations = {d.participant_id: d for d in current.declarations.select_related("target")}
    turn_id: int | None = None
    order: list[dict[str, Any]] = []
    if current is not None and current.phase == Round.Phase.RESOLUTION:
        rows = current.initiative or []
        if current.step_index < len(rows):
            turn_id = int(rows[current.step_index]["id"])
        for index, row in enumerate(rows):
            p = by_id.get(int(row["id"]))
            if p is None:
                continue
            show_score = gm or can_control(user, p, campaign) or (
                p.stats_visible and (p.is_npc or "initiative" not in currencies)
            )
            decl = declarations.get(p.pk)
            order.append(
                {
                    "participant": p,
                    "score": row.get("score") if show_score else None,
                    "draws": row.get("draws", []),
                    "current": index == current.step_index,
                    "status": decl.status if decl else None,
                }
            )
    items = []
    for p in participants:
        controlled = can_control(user, p, campaign)
        show_state = gm or p.stats_visible
        decl = declarations.get(p.pk)
        decl_rows: list[tuple[str, str]] = []
        decl_target = None
        if decl is not None:
            if gm or controlled:
                decl_rows = declaration_rows(encounter, decl.data, full=True)
                decl_target = decl.target
            elif current is not None and current.revealed:
                decl_rows = declaration_rows(encounter, decl.data, full=False)
                decl_target = decl.target
        item = {
            "p": p,
            "controlled": controlled,
            # Experience and karma balances belong to the owner and the GMs (DESIGN: ledger).
            "state_rows": state_rows(
                p.state, labels, frozenset() if gm or controlled else currencies if not p.is_npc else balances
            )
            if show_state
            else None,
            "declared": decl is not None,
            "declaration_status": decl.status if decl else None,
            "declaration_rows": decl_rows,
            "declaration_target": decl_target,
            "is_turn": p.pk == turn_id,
        }
        if gm:
            item["paths"] = scalar_paths(p.state)
            item["derived"] = _derived(encounter, p) if p.is_npc else None
        items.append(item)
    log_qs = LogEntry.objects.filter(encounter=encounter).order_by("-sequence")
    if not gm:
        log_qs = log_qs.filter(gm_only=False)
    lang = _lang()
    log = []
    for entry in reversed(list(log_qs[:LOG_LIMIT])):
        data = entry.detail if gm else entry.public
        text = data.get("text") or {}
        log.append(
            {
                "entry": entry,
                "text": text.get(lang) or text.get("fr", ""),
                "public_text": (entry.public.get("text") or {}).get(lang, "") if gm else "",
                "draws": data.get("draws") or [],
                "tags": data.get("tags") or (data.get("result") or {}).get("tags") or [],
                "changes": _readable_changes(labels, data.get("changes") or []),
                "reason": data.get("reason", ""),
                "outcome": (data.get("result") or {}).get("outcome") if gm else data.get("outcome"),
            }
        )
    return {
        "encounter": encounter,
        "campaign": campaign,
        "is_gm": gm,
        "round": current,
        "participants": items,
        "order": order,
        "turn": by_id.get(turn_id) if turn_id else None,
        "log": log,
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
