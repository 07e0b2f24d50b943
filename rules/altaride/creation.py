"""Creation budget (4,000 + 500 points) and sheet validation (spec §3.1-§3.3).

Readings:
* Talent pool (L51): 4,000 points for talents only; unspent points are lost.
* Other pool (L51): 500 points for skill levels, Endurance, school access,
  capacities, aptitudes and (A7) Scruples changes (L126). The leftover is kept
  as the starting XP balance when ``creation_leftover_kept`` (default, A7),
  otherwise lost too. Magic levels above 1 cannot be bought at creation (L157, A7).
* Creation caps (C1-C8) apply to player characters until ``creation_complete``;
  NPC sheets skip them (A38). The anthropoid cap of 20 (L55) always applies.
"""

from __future__ import annotations

from typing import Any

from rules.altaride import tables as T
from rules.altaride.derive import formula_value, talent
from rules.altaride.schema import catalogue, sheet_fields, skill_formula
from rules.base import Budget, FieldError, LedgerDraft, Msg, as_int, error, validate_fields


def in_creation(sheet: dict[str, Any]) -> bool:
    return not sheet.get("creation_complete") and sheet.get("is_player_character", True) is not False


def talent_pool_spent(sheet: dict[str, Any]) -> int:
    """Σ cost from 5 to each talent (C2): 5 x (t(t+1)/2 - 15) per talent."""
    talents = sheet.get("talents") or {}
    return sum(T.talent_cost(T.TALENT_BASE, as_int(talents.get(t), T.TALENT_BASE)) for t in T.TALENTS)


def other_pool_lines(sheet: dict[str, Any], settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Every purchase of the 500-point pool as a budget line (C3, C11)."""
    lines: list[dict[str, Any]] = []
    for index, item in enumerate(sheet.get("skills") or []):
        if isinstance(item, dict):
            level = as_int(item.get("level"), 0)
            if level > 0:
                lines.append(
                    _line(
                        f"skills.{index}.level",
                        T.skill_cost(0, level),
                        Msg(f"Compétence {item.get('key')} niveau {level}", f"Skill {item.get('key')} level {level}"),
                    )
                )
    bought = sheet.get("endurance_bought") or {}
    for p in T.POOLS:
        points = as_int(bought.get(p), 0)
        if points > 0:
            lines.append(
                _line(
                    f"endurance_bought.{p}",
                    T.endurance_cost(points),
                    Msg(f"{T.POOL_LABELS[p].fr} +{points}", f"{T.POOL_LABELS[p].en} +{points}"),
                )
            )
    for index, item in enumerate(sheet.get("schools") or []):
        if not isinstance(item, dict):
            continue
        school = str(item.get("school", ""))
        label = T.SCHOOLS.get(school, Msg(school, school))
        lines.append(
            _line(
                f"schools.{index}.school",
                T.school_access_cost(school),
                Msg(f"Accès : {label.fr}", f"Access: {label.en}"),
            )
        )
        extra = _school_levels_cost(item)
        if extra:
            lines.append(_line(f"schools.{index}.magic_level", extra, Msg("Niveaux de magie", "Magic levels")))
    for index, item in enumerate(sheet.get("capacities") or []):
        if isinstance(item, dict):
            level = as_int(item.get("level"), 1)
            lines.append(
                _line(
                    f"capacities.{index}.level",
                    T.capacity_cost(level),
                    Msg(f"Capacité {item.get('name')} niveau {level}", f"Capacity {item.get('name')} level {level}"),
                )
            )
    aptitudes = catalogue(settings, "aptitude_catalogue")
    for index, item in enumerate(sheet.get("aptitudes") or []):
        if isinstance(item, dict) and item.get("key") in aptitudes:
            level = as_int(item.get("level"), 1)
            p1 = as_int(aptitudes[item["key"]].get("level1_cost"), 0)
            lines.append(
                _line(
                    f"aptitudes.{index}.level",
                    T.aptitude_cost(level, p1),
                    Msg(f"Aptitude {item.get('key')} niveau {level}", f"Aptitude {item.get('key')} level {level}"),
                )
            )
    scruples = as_int(sheet.get("scruples"), T.SCRUPLES_BASE)
    if scruples != T.SCRUPLES_BASE:
        lines.append(
            _line("scruples", T.scruples_cost(scruples), Msg(f"Scrupules 10 → {scruples}", f"Scruples 10 → {scruples}"))
        )
    return lines


def _school_levels_cost(item: dict[str, Any]) -> int:
    if item.get("school") == T.ELEMENTALISTS:
        return T.magic_level_cost(1, as_int(item.get("major_level"), 1), True) + T.magic_level_cost(
            1, as_int(item.get("minor_level"), 1), True
        )
    if item.get("school") == T.SORCIERS:
        return 0
    return T.magic_level_cost(1, as_int(item.get("magic_level"), 1))


def _line(path: str, amount: int, label: Msg) -> dict[str, Any]:
    return {"label": label.to_dict(), "amount": amount, "path": path}


def creation_budget(sheet: dict[str, Any], settings: dict[str, Any]) -> Budget:
    """4,500 points: pool ``talents`` (4,000, leftover lost) and pool ``other`` (500).

    ``spent`` counts both pools; ``pools[name]`` has ``total``, ``spent``,
    ``remaining`` and ``lost`` (what disappears at the end of creation).
    Once ``creation_complete`` is set the budget is informative only (no errors):
    later raises are paid with experience.
    """
    talents_spent = talent_pool_spent(sheet)
    lines = [
        _line(
            f"talents.{t}",
            T.talent_cost(T.TALENT_BASE, as_int((sheet.get("talents") or {}).get(t), 5)),
            Msg(
                f"{T.TALENT_LABELS[t].fr} {talent(sheet, t, False)}",
                f"{T.TALENT_LABELS[t].en} {talent(sheet, t, False)}",
            ),
        )
        for t in T.TALENTS
    ]
    other = other_pool_lines(sheet, settings)
    other_spent = sum(line["amount"] for line in other)
    kept = bool(settings.get("creation_leftover_kept", True))
    talents_left = T.CREATION_TALENT_POOL - talents_spent
    other_left = T.CREATION_OTHER_POOL - other_spent
    errors: list[FieldError] = []
    if in_creation(sheet):
        if talents_spent > T.CREATION_TALENT_POOL:
            errors.append(
                error(
                    "talents",
                    "talent_pool_exceeded",
                    "Talents : {s} points dépensés sur 4000 (L51).",
                    "Talents: {s} points spent out of 4,000 (L51).",
                    s=talents_spent,
                )
            )
        if other_spent > T.CREATION_OTHER_POOL:
            errors.append(
                error(
                    "",
                    "other_pool_exceeded",
                    "Compétences, Endurances, etc. : {s} points dépensés sur 500 (L51).",
                    "Skills, Endurance, etc.: {s} points spent out of 500 (L51).",
                    s=other_spent,
                )
            )
    return Budget(
        currency="xp",
        total=T.CREATION_TOTAL,
        spent=talents_spent + other_spent,
        lines=lines + other,
        errors=errors,
        pools={
            "talents": {
                "total": T.CREATION_TALENT_POOL,
                "spent": talents_spent,
                "remaining": talents_left,
                "lost": max(talents_left, 0),
            },
            "other": {
                "total": T.CREATION_OTHER_POOL,
                "spent": other_spent,
                "remaining": other_left,
                "lost": 0 if kept else max(other_left, 0),
            },
        },
    )


def creation_ledger(sheet: dict[str, Any], settings: dict[str, Any]) -> list[LedgerDraft]:
    """Ledger drafts when creation is finalised: the kept leftover of the 500 pool (A7)."""
    budget = creation_budget(sheet, settings)
    other = budget.pools["other"]
    if not settings.get("creation_leftover_kept", True) or other["remaining"] <= 0:
        return []
    return [
        LedgerDraft(
            "xp",
            other["remaining"],
            "creation_budget",
            Msg("Reliquat des 500 points de création", "Leftover of the 500 creation points"),
            {"talents_lost": budget.pools["talents"]["lost"], "other_spent": other["spent"]},
        )
    ]


def validate_sheet(sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
    errors = validate_fields(sheet, sheet_fields())
    if errors:
        return errors
    creating = in_creation(sheet)
    talents = sheet.get("talents") or {}
    for t in T.TALENTS:
        value = as_int(talents.get(t), T.TALENT_BASE)
        if creating and not T.TALENT_CREATION_MIN <= value <= T.TALENT_CREATION_MAX:
            errors.append(
                error(
                    f"talents.{t}",
                    "talent_creation_range",
                    "À la création, un Talent est entre 5 et 15 (L55).",
                    "At creation a talent is between 5 and 15 (L55).",
                )
            )
        elif sheet.get("is_anthropoid", True) and value > T.TALENT_ANTHROPOID_MAX:
            errors.append(
                error(
                    f"talents.{t}",
                    "talent_anthropoid_max",
                    "Un antropoïde ne dépasse pas 20 sans magie (L55).",
                    "An anthropoid cannot exceed 20 without magic (L55).",
                )
            )
    errors += _validate_skills(sheet, settings, creating)
    errors += _validate_schools(sheet, settings, creating)
    aptitudes = catalogue(settings, "aptitude_catalogue")
    for index, item in enumerate(sheet.get("aptitudes") or []):
        if item.get("key") not in aptitudes:
            errors.append(
                error(
                    f"aptitudes.{index}.key",
                    "unknown_aptitude",
                    "Aptitude absente du catalogue de la campagne.",
                    "Aptitude not in the campaign catalogue.",
                )
            )
    weapons = catalogue(settings, "weapon_catalogue")
    for index, item in enumerate(sheet.get("weapons") or []):
        if item.get("key") not in weapons:
            errors.append(
                error(
                    f"weapons.{index}.key",
                    "unknown_weapon",
                    "Arme absente du catalogue de la campagne.",
                    "Weapon not in the campaign catalogue.",
                )
            )
    if creating:
        errors += creation_budget(sheet, settings).errors
    return errors


def _validate_skills(sheet: dict[str, Any], settings: dict[str, Any], creating: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    capped = settings.get("skill_level_capped_by_talents", True)
    for index, item in enumerate(sheet.get("skills") or []):
        key = item.get("key")
        path = f"skills.{index}"
        if key in seen:
            errors.append(error(f"{path}.key", "duplicate_skill", "Compétence en double.", "Duplicate skill."))
        seen.add(key)
        codes = skill_formula(item, settings)
        if codes is None:
            errors.append(
                error(
                    f"{path}.key",
                    "unknown_skill",
                    "Compétence absente du catalogue et sans Formule valide (L89).",
                    "Skill not in the catalogue and without a valid formula (L89).",
                )
            )
            continue
        level = as_int(item.get("level"), 0)
        # A pending formula ([]) names no Talent: no L61 cap (schema docstring).
        cap = min((as_int((sheet.get("talents") or {}).get(c), T.TALENT_BASE) for c in codes), default=None)
        if capped and cap is not None and level > cap:
            errors.append(
                error(
                    f"{path}.level",
                    "skill_above_talent",
                    "Le Niveau ne peut excéder le Talent de la Formule ({n}) (L61).",
                    "The level cannot exceed the formula's talent ({n}) (L61).",
                    n=cap,
                )
            )
        if creating:
            if level > T.SKILL_CREATION_MAX_LEVEL:
                errors.append(
                    error(
                        f"{path}.level",
                        "skill_creation_level",
                        "À la création, un Niveau de Compétence est limité à 15 (L83).",
                        "At creation a skill level is capped at 15 (L83).",
                    )
                )
            cr = formula_value(sheet, codes) + level
            if level > 0 and cr > T.SKILL_CREATION_MAX_CR:
                errors.append(
                    error(
                        f"{path}.level",
                        "skill_creation_cr",
                        "À la création, les Chances de réussite ne dépassent pas 15 ({n}) (L77).",
                        "At creation the success chance cannot exceed 15 ({n}) (L77).",
                        n=cr,
                    )
                )
    return errors


def _validate_schools(sheet: dict[str, Any], settings: dict[str, Any], creating: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    schools = [s for s in sheet.get("schools") or [] if isinstance(s, dict)]
    if creating and len(schools) > 1:
        errors.append(
            error(
                "schools",
                "one_school_at_creation",
                "Une seule École à la création (L144).",
                "Only one school at creation (L144).",
            )
        )
    seen: set[object] = set()
    for index, item in enumerate(schools):
        path = f"schools.{index}"
        school = item.get("school")
        if school in seen:
            errors.append(error(f"{path}.school", "duplicate_school", "École en double.", "Duplicate school."))
        elif seen and not creating and not item.get("derogation"):
            errors.append(
                error(
                    f"{path}.derogation",
                    "derogation_required",
                    "Une autre École exige une dérogation spéciale (L140).",
                    "Another school requires a special derogation (L140).",
                )
            )
        seen.add(school)
        if school == T.SORCIERS:
            if creating and not settings.get("allow_sorciers_at_creation"):
                errors.append(
                    error(
                        f"{path}.school",
                        "sorciers_at_creation",
                        "Les Sorciers à la création exigent l'accord du MJ (L144).",
                        "Sorcerers at creation need the GM's permission (L144).",
                    )
                )
            if not str(item.get("guild") or "").strip():
                errors.append(
                    error(
                        f"{path}.guild",
                        "guild_required",
                        "Indiquez la guilde (L142, L144).",
                        "Name the guild (L142, L144).",
                    )
                )
        if school == T.ELEMENTALISTS:
            major, minor = item.get("major_element") or "", item.get("minor_element") or ""
            if not major or not minor:
                errors.append(
                    error(
                        f"{path}.major_element",
                        "elements_required",
                        "Un élémentaliste a un élément majeur et un mineur (L148).",
                        "An elementalist has a major and a minor element (L148).",
                    )
                )
            elif major == minor:
                errors.append(
                    error(
                        f"{path}.minor_element",
                        "elements_distinct",
                        "Les éléments majeur et mineur diffèrent.",
                        "Major and minor elements differ.",
                    )
                )
            if as_int(item.get("major_level"), 1) < as_int(item.get("minor_level"), 1):
                errors.append(
                    error(
                        f"{path}.minor_level",
                        "minor_above_major",
                        "Le niveau majeur doit rester ≥ au mineur (L148, L159).",
                        "The major level must stay ≥ the minor level (L148, L159).",
                    )
                )
        if creating and _school_levels_cost(item) > 0:
            errors.append(
                error(
                    f"{path}.magic_level",
                    "magic_level_at_creation",
                    "Le disciple commence au niveau 1 (L157).",
                    "A disciple starts at level 1 (L157).",
                )
            )
    return errors
