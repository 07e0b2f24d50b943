"""Derived values (never stored): BC, default CA, current aspects, aspect-PX.

Stored sheet ``aspects`` are the values *after the creation exchanges*
(L550-L569); the current aspects are recomputed from the skills through the
aspect ladder (L645-L650): every skill level gained gives 1 aspect-PX to the
skill's aspect, and while aspect-PX ≥ aspect + 1 the aspect rises by 1 and
the PX are consumed ("il lui reste 3 PX dans ce domaine", L616). The result
depends only on the starting value and the total aspect-PX (spec §5.3,
DERIVED), so it is recomputed rather than stored (Foundry's split).

Creation skills (``creation_nc``) feed aspects without means exchanges
(L603-L606); every later increase earns one optional means exchange
(L650-L653), counted as ``pending_means_exchanges`` (reading G15: a token
kept until used or declined).
"""

from __future__ import annotations

from typing import Any

from rules.base import DerivedSpec, Msg, as_dict, as_int, as_list
from rules.clefs import tables as t


def skill_bonus(nc: int) -> int:
    """BC (bonus de compétence) = NC − 10 (L493-L495)."""
    return nc - t.BC_OFFSET


def aspect_ladder(aspect: int, px: int) -> tuple[int, int, int]:
    """Apply the aspect ladder: returns (new aspect, PX left, number of increases) (L647-L650, G16)."""
    increases = 0
    while px >= aspect + 1:
        px -= aspect + 1
        aspect += 1
        increases += 1
    return aspect, px, increases


def aspect_px_cost(start: int, end: int) -> int:
    """Aspect-PX needed to raise an aspect from ``start`` to ``end``: Σ (k) for k = start+1..end (§2.7)."""
    return (end * (end + 1) - start * (start + 1)) // 2


def skill_cost(start: int, end: int) -> int:
    """PX cost to raise a skill from NC ``start`` to ``end``: each +1 costs the NC reached (L644-L645)."""
    return (end * (end + 1) - start * (start + 1)) // 2 if end > start else 0


def skill_title(nc: int) -> Msg:
    """Highest title of the table "le niveau de compétence" whose NC ≤ the skill's NC (L441-L473, REC)."""
    title = t.SKILL_LEVELS[0][1]
    for minimum, msg in t.SKILL_LEVELS:
        if nc >= minimum:
            title = msg
    return title


def creation_level(skill: dict[str, Any]) -> int:
    """NC a skill had at creation: ``creation_nc``, or the current NC when unset (still in creation)."""
    value = skill.get("creation_nc")
    if value is None:
        return as_int(skill.get("nc"))
    return as_int(value)


def granted_px(skill: dict[str, Any]) -> int:
    """Aspect-PX this skill has given in total: ``aspect_px_granted``, or its NC (no anti-abuse limit)."""
    value = skill.get("aspect_px_granted")
    if value is None:
        return as_int(skill.get("nc"))
    return as_int(value)


def skills_of(sheet: dict[str, Any]) -> list[dict[str, Any]]:
    skills = sheet.get("skills")
    return [s for s in skills if isinstance(s, dict)] if isinstance(skills, list) else []


def aspect_state(sheet: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per aspect: base, creation-final value, current value, aspect-PX left, post-creation increases."""
    aspects = as_dict(sheet.get("aspects"))
    free = (sheet.get("creation") or {}).get("skill_package") == "free"
    skills = skills_of(sheet)
    return {code: _aspect_values(code, aspects, skills, free) for code in t.ASPECTS}


def current_aspect(sheet: dict[str, Any], code: str) -> int:
    """``aspect_state(sheet)[code]["current"]``, computing that aspect only (a test reads one)."""
    if code not in t.ASPECTS:
        raise KeyError(code)
    aspects = as_dict(sheet.get("aspects"))
    free = (sheet.get("creation") or {}).get("skill_package") == "free"
    # The "current" of _aspect_values alone: the ladder over the aspect's total aspect-PX.
    total_px = 0
    for skill in skills_of(sheet):
        if skill.get("aspect") == code:
            total_px += granted_px(skill) - (creation_level(skill) if free else 0)
    return aspect_ladder(as_int(aspects.get(code), 10), max(total_px, 0))[0]


def _aspect_values(code: str, aspects: dict[str, Any], skills: list[dict[str, Any]], free: bool) -> dict[str, int]:
    base = as_int(aspects.get(code), 10)
    mine = [s for s in skills if s.get("aspect") == code]
    creation_px = 0 if free else sum(creation_level(s) for s in mine)
    total_px = sum(granted_px(s) for s in mine) - (sum(creation_level(s) for s in mine) if free else 0)
    created, _, _ = aspect_ladder(base, creation_px)
    current, left, _ = aspect_ladder(base, max(total_px, 0))
    return {
        "base": base,
        "after_creation": created,
        "current": current,
        "px": left,
        "threshold": current + 1,
        "increases_after_creation": max(current - created, 0),
        "total_px": total_px,
    }


def current_aspects(sheet: dict[str, Any]) -> dict[str, int]:
    return {code: values["current"] for code, values in aspect_state(sheet).items()}


def pending_means_exchanges(sheet: dict[str, Any]) -> int:
    """Means exchanges earned by post-creation aspect increases, not yet used or declined (L650-L653)."""
    earned = sum(v["increases_after_creation"] for v in aspect_state(sheet).values())
    return max(earned - as_int(sheet.get("means_exchanges_done")), 0)


def means_errors(means: dict[str, Any]) -> list[tuple[str, str, Msg]]:
    """Constraints M1-M5 on a profile (L318-L341, L578-L579): (path, code, message) tuples."""
    problems: list[tuple[str, str, Msg]] = []
    values = {code: as_int(means.get(code)) for code in t.MEANS}
    for code, value in values.items():
        if not t.MEANS_MIN <= value <= t.MEANS_MAX:
            problems.append(
                (f"means.{code}", "means_range", Msg("Un moyen va de −5 à +5.", "A means ranges from −5 to +5."))
            )
    total = sum(values.values())
    if total != 0:
        problems.append(
            (
                "means",
                "means_sum",
                Msg(
                    f"La somme des moyens doit valoir 0 (actuellement {total}).",
                    f"The means must sum to 0 (currently {total}).",
                ),
            )
        )
    for first, second in t.MEANS_PAIRS:
        excess = values[first] - values[second]
        if excess > t.MEANS_PAIR_MAX_EXCESS:
            fr_a, fr_b = t.MEANS_LABELS[first].fr, t.MEANS_LABELS[second].fr
            en_a, en_b = t.MEANS_LABELS[first].en, t.MEANS_LABELS[second].en
            problems.append(
                (
                    f"means.{first}",
                    "means_pair",
                    Msg(
                        f"{fr_a} ne peut pas dépasser {fr_b} de plus de 5 points (écart {excess}).",
                        f"{en_a} may not exceed {en_b} by more than 5 points (difference {excess}).",
                    ),
                )
            )
    return problems


def derive_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """All derived values of a sheet (spec §2.7)."""
    state = aspect_state(sheet)
    aspects = {code: v["current"] for code, v in state.items()}
    means = as_dict(sheet.get("means"))
    skills = []
    for skill in skills_of(sheet):
        nc = as_int(skill.get("nc"))
        aspect_code = skill.get("aspect")
        means_code = skill.get("default_means")
        default_ca = None
        if aspect_code in aspects and means_code in t.MEANS:
            default_ca = aspects[aspect_code] + as_int(means.get(means_code)) + skill_bonus(nc)
        skills.append(
            {
                "name": skill.get("name", ""),
                "aspect": aspect_code,
                "default_means": means_code,
                "nc": nc,
                "bc": skill_bonus(nc),
                "title": skill_title(nc).to_dict(),
                "default_ca": default_ca,
                "next_cost": nc + 1 if nc < t.NC_MAX else None,
            }
        )
    conditions = as_list(sheet.get("conditions"))
    active = [c for c in conditions if isinstance(c, dict) and c.get("active", True)]
    return {
        "aspects": aspects,
        "aspects_after_creation": {code: v["after_creation"] for code, v in state.items()},
        "aspect_px": {code: v["px"] for code, v in state.items()},
        "aspect_thresholds": {code: v["threshold"] for code, v in state.items()},
        "pending_means_exchanges": pending_means_exchanges(sheet),
        "means_sum": sum(as_int(means.get(code)) for code in t.MEANS),
        "means_valid": not means_errors(means),
        "skills": skills,
        "handicap_total": sum(as_int(c.get("value")) for c in active if c.get("kind", "handicap") == "handicap"),
        "advantage_total": sum(as_int(c.get("value")) for c in active if c.get("kind") == "advantage"),
    }


def find_skill(sheet: dict[str, Any], name: str, aspect: str | None = None) -> tuple[int, dict[str, Any]] | None:
    """Find a skill by name (case-insensitive) and optionally aspect; ``(index, skill)`` or ``None``."""
    wanted = (name or "").strip().casefold()
    for index, skill in enumerate(sheet.get("skills") or []):
        if not isinstance(skill, dict):
            continue
        if str(skill.get("name", "")).strip().casefold() == wanted and (
            aspect is None or skill.get("aspect") == aspect
        ):
            return index, skill
    return None


def combination_name(aspect: str, means: str) -> Msg:
    """Indicative name of an aspect × means combination: a GM aid only, never on the sheet (L356-L368)."""
    aspect = t.ASPECT_ALIASES.get(str(aspect).upper(), str(aspect))
    means = t.MEANS_ALIASES.get(str(means).upper(), str(means))
    return t.COMBINATIONS[(aspect, means)]


def combinations_table() -> list[dict[str, Any]]:
    """The whole table "les dénominations indicatives des combinaisons" (L370-L422) for a GM help panel."""
    return [
        {
            "means": means,
            "means_label": t.MEANS_LABELS[means].to_dict(),
            "names": {aspect: t.COMBINATIONS[(aspect, means)].to_dict() for aspect in t.ASPECTS},
        }
        for means in t.MEANS
    ]


def derived_specs() -> tuple[DerivedSpec, ...]:
    """Labels of the derived values: current aspects and aspect-PX, pending exchanges, skills, conditions."""
    specs = [DerivedSpec(f"aspects.{c}", t.ASPECT_LABELS[c], "aspects") for c in t.ASPECTS]
    # "PX" is the seed's French abbreviation (points d'expérience); English reads "XP".
    specs += [
        DerivedSpec(
            f"aspect_px.{c}",
            Msg(f"PX d'aspect ({c.capitalize()})", f"Aspect XP ({c.capitalize()})"),
            "aspects",
        )
        for c in t.ASPECTS
    ]
    specs += [
        DerivedSpec(
            "pending_means_exchanges", Msg("Échanges de moyens en attente", "Pending means exchanges"), "means"
        ),
        DerivedSpec("skills", Msg("Compétences : BC, CA par défaut, titre", "Skills: BC, default CA, title"), "skills"),
        DerivedSpec("handicap_total", Msg("Handicaps actifs", "Active handicaps"), "conditions"),
        DerivedSpec("advantage_total", Msg("Avantages actifs", "Active advantages"), "conditions"),
    ]
    return tuple(specs)


#: Names of the keys of the derived skill records (the sheet's skills table).
COLUMN_LABELS: dict[str, Msg] = {
    "name": Msg("Nom", "Name"),
    "aspect": Msg("Aspect", "Aspect"),
    "default_means": Msg("Moyen par défaut", "Default means"),
    "nc": Msg("NC", "NC"),
    "bc": Msg("BC", "BC"),
    "title": Msg("Titre", "Title"),
    "default_ca": Msg("CA par défaut", "Default CA"),
    "next_cost": Msg("Coût du niveau suivant", "Next level costs"),
}
