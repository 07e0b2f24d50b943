"""Derived values of an SMS sheet (never stored): creation XP, penalties, interventions, magic, rest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.base import DerivedSpec, Msg, to_int
from rules.sms.combat import initiative_tiebreak, interventions_allowed
from rules.sms.creation import budget_lines, module_notation
from rules.sms.health import fatigue_penalty, severity_id
from rules.sms.tables import MAGIC_MODULE, RACES, SEVERITIES


def derived_specs() -> tuple[DerivedSpec, ...]:
    """Labels of the derived values."""
    return (
        DerivedSpec("xp_budget", Msg("Budget de création", "Creation budget"), "xp"),
        DerivedSpec("xp_spent", Msg("XP dépensés à la création", "Creation XP spent"), "xp"),
        DerivedSpec("xp_negative_credit", Msg("Gain des modules négatifs", "Negative module credit"), "xp"),
        DerivedSpec("xp_creation_left", Msg("XP de création restants", "Creation XP left"), "xp"),
        DerivedSpec("wound_penalty", Msg("Malus de blessures", "Wound penalty"), "health"),
        DerivedSpec("fatigue_penalty", Msg("Malus de fatigue", "Fatigue penalty"), "health"),
        DerivedSpec("out_of_combat", Msg("Hors de combat", "Out of combat"), "health"),
        DerivedSpec(
            "interventions_allowed", Msg("Interventions entre deux actions", "Interventions per turn"), "combat"
        ),
        DerivedSpec("initiative_tiebreak", Msg("Départage d'initiative", "Initiative tie-break"), "combat"),
        DerivedSpec("magic", Msg("Magies maîtrisées", "Magic mastered"), "magic"),
        DerivedSpec("full_rest_hours", Msg("Heures pour récupérer", "Hours to recover"), "health"),
        DerivedSpec("module_lines", Msg("Modules (notation)", "Modules (notation)"), "modules"),
    )


def derive(sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """Creation XP (L59-L69), wound and fatigue penalties (L133-L154), interventions (L565), magic, rest."""
    s = settings
    info = budget_lines(sheet, s)
    modules = [m for m in sheet.get("modules") or [] if isinstance(m, Mapping)]
    wounds = [w for w in sheet.get("wounds") or [] if isinstance(w, Mapping)]
    severities = []
    for w in wounds:
        try:
            severities.append(severity_id(w.get("severity", "light")))
        except ValueError:
            continue
    predefined: dict[str, int] = {}
    for m in modules:
        if m.get("predefined"):
            predefined[m["predefined"]] = max(predefined.get(m["predefined"], 0), to_int(m.get("rank")))
    race = RACES.get(sheet.get("race") or "humain", RACES["humain"])
    return {
        "xp_budget": info["available"],
        "xp_spent": info["spend"],
        "xp_negative_credit": info["credit"],
        "xp_creation_left": info["left"],
        "wound_penalty": sum(SEVERITIES[x]["penalty"] for x in severities),
        "fatigue_penalty": fatigue_penalty(sheet.get("fatigue") or {}, to_int(s.get("fatigue_penalty"), 1)),
        "out_of_combat": any(x >= 4 for x in severities),
        "interventions_allowed": interventions_allowed(predefined.get("intervention", 0)),
        "initiative_tiebreak": initiative_tiebreak(
            m for m in modules if str(m.get("domain", "")).lower() == "initiative"
        ),
        "magic": sorted(t for t, key in MAGIC_MODULE.items() if predefined.get(key, 0) >= 1),
        "full_rest_hours": race["full_rest_hours"],
        "module_lines": [module_notation(m) for m in modules],
    }
