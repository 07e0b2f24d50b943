"""Derived values (never stored): domains, endurance maxima, skill formulas and CRs."""

from __future__ import annotations

from typing import Any

from rules.altaride import tables as T
from rules.altaride.schema import FORMULA_PENDING, skill_formula, skill_name
from rules.base import DerivedSpec, Msg, as_int


def talent(sheet: dict[str, Any], code: str, with_magic: bool = True) -> int:
    """Talent score (+ temporary magic bonus, which may pass 20: L55)."""
    value = (sheet.get("talents") or {}).get(code)
    score = value if value.__class__ is int else as_int(value, T.TALENT_BASE)
    if with_magic:
        bonus = sheet.get("talent_magic_bonus")
        if bonus:
            score += as_int(bonus.get(code), 0)
    return score


def domain(sheet: dict[str, Any], name: str) -> int:
    """Domain = floor(sum of its 3 talents / 3) (L49, L59, L220). Stored talents, no magic bonus."""
    talents = sheet.get("talents") or {}
    total = 0
    for code in T.DOMAINS[name]:
        value = talents.get(code)
        total += value if value.__class__ is int else as_int(value, T.TALENT_BASE)
    return total // 3


def endurance_max(sheet: dict[str, Any], pool: str) -> int:
    """Max = Domain + points bought (L113, L115; reading A4)."""
    return domain(sheet, T.POOL_DOMAIN[pool]) + as_int((sheet.get("endurance_bought") or {}).get(pool), 0)


def endurance_current(sheet: dict[str, Any], pool: str) -> int:
    """Current value; ``null`` means full. Never above the max (L117)."""
    maximum = endurance_max(sheet, pool)
    value = (sheet.get("endurance_current") or {}).get(pool)
    if not isinstance(value, int) or isinstance(value, bool):
        return maximum
    return min(value, maximum)


def formula_value(sheet: dict[str, Any], codes: list[str]) -> int:
    """Formula = floor(sum of the formula's talents / 2) (L89; rounding A5)."""
    return sum(talent(sheet, c) for c in codes) // 2


def skill_entry(sheet: dict[str, Any], key: str) -> dict[str, Any] | None:
    for item in sheet.get("skills") or []:
        if isinstance(item, dict) and item.get("key") == key:
            return item
    return None


def skill_cr(sheet: dict[str, Any], key: str, settings: dict[str, Any]) -> int | None:
    """CR = Formula + level (L71). Unknown skill: level 0 with the catalogue formula; None if no formula."""
    item = skill_entry(sheet, key) or {"key": key, "level": 0}
    codes = skill_formula(item, settings)
    if codes is None:
        return None
    return formula_value(sheet, codes) + as_int(item.get("level"), 0)


def derive(sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    domains = {d: domain(sheet, d) for d in T.DOMAINS}
    endurance = {p: {"max": endurance_max(sheet, p), "current": endurance_current(sheet, p)} for p in T.POOLS}
    skills: list[dict[str, Any]] = []
    for item in sheet.get("skills") or []:
        if not isinstance(item, dict):
            continue
        key = str(item.get("key", ""))
        codes = skill_formula(item, settings)
        level = as_int(item.get("level"), 0)
        formula = formula_value(sheet, codes) if codes is not None else None  # [] = pending: 0
        skills.append(
            {
                "key": key,
                "name": skill_name(key, settings),
                "formula_talents": codes or [],
                "formula": formula,
                "level": level,
                "cr": None if formula is None else formula + level,
                "expert": formula is not None and formula + level > 15,  # L77
            }
        )
        if codes == []:  # a blank catalogue formula: counts 0 until the GM sets it (schema docstring)
            skills[-1]["formula_pending"] = True
    result: dict[str, Any] = {
        "domains": domains,
        "talents": {t: talent(sheet, t) for t in T.TALENTS},
        "endurance": endurance,
        "skills": skills,
        "can_practise_trade": any(s["cr"] is not None and s["cr"] >= 10 for s in skills),  # L81
        "talent_at_zero": any(talent(sheet, t) <= 0 for t in T.TALENTS),  # L55 "0 correspondrait à la mort" (A38)
    }
    return result


def derived_specs() -> tuple[DerivedSpec, ...]:
    """Labels of the derived values: domains, Endurance maxima, success chances."""
    specs = [DerivedSpec(f"domains.{d}", T.DOMAIN_LABELS[d], "domains") for d in T.DOMAINS]
    specs += [DerivedSpec(f"endurance.{p}.max", T.POOL_LABELS[p], "endurance") for p in T.POOLS]
    specs.append(DerivedSpec("skills", Msg("Chances de réussite", "Success chances"), "skills"))
    return tuple(specs)


#: Names of the keys of the derived skill records (the sheet's skills table).
COLUMN_LABELS: dict[str, Msg] = {
    "key": Msg("Identifiant", "Key"),
    "name": Msg("Nom", "Name"),
    "level": Msg("Niveau", "Level"),
    "formula": Msg("Formule", "Formula"),
    "formula_talents": Msg("Talents de la Formule", "Formula talents"),
    "cr": Msg("Chances de réussite", "Success chances"),
    "expert": Msg("Grand expert (au-delà de 15)", "Great expert (above 15)"),
    "formula_pending": FORMULA_PENDING,
}
