"""Tests built from a Clefs de l'Aube sheet: aspect × means ± skill (L471-L497, L703-L727).

A line is a skill (its aspect, its NC) or an aspect alone; the player picks the
means (moyen) among the sheet's six, whose value is read from the sheet. The
sheet's active conditions become handicaps and advantages (L739-L754). The ND,
extra handicaps/advantages, the forced roll and the critical die are the
Gardien's (``audience="gm"``, L903-L911).
"""

from __future__ import annotations

from typing import Any

from rules.base import Field, FieldError, Msg, RulesError, SheetRead, SheetTest, as_int, error, pick_fields
from rules.clefs import tables as t
from rules.clefs.derive import current_aspect, current_aspects, find_skill, skills_of
from rules.clefs.schema import action_request_fields

GROUP_SKILLS = Msg("Compétences", "Skills")
GROUP_ASPECTS = Msg("Aspects seuls", "Aspects alone")
_GM_PATHS = ("nd", "nd_hidden", "negative_nd", "handicap", "advantage", "force_roll", "crit_die")


def request_from_sheet(
    sheet: dict[str, Any],
    aspect_code: str,
    means_code: str | None = None,
    skill_name: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Build an ``action`` request from a sheet: current aspect, means value, skill NC.

    The aspect is the one named (the GM may pick another aspect than the
    skill's, L482-L485: flagged ``other_aspect``; reading G26, BC applies).
    An unknown skill name means an untrained character: NC 0, BC −10
    (reading G13 (a)). Active sheet conditions are added as handicaps and
    advantages.
    """
    errors: list[FieldError] = []
    aspect = t.ASPECT_ALIASES.get(str(aspect_code or "").upper())
    if aspect is None:
        errors.append(error("aspect_code", "invalid_choice", "Aspect inconnu.", "Unknown aspect."))
    means = t.MEANS_ALIASES.get(str(means_code).upper()) if means_code else None
    if means_code and means is None:
        errors.append(error("means_code", "invalid_choice", "Moyen inconnu.", "Unknown means."))
    if skill_name is not None and not isinstance(skill_name, str):
        errors.append(error("skill_name", "invalid_str", "Texte invalide.", "Invalid text."))
    if errors or aspect is None:  # an unknown aspect is one of the errors
        raise RulesError(errors)
    request: dict[str, Any] = {
        "aspect": current_aspect(sheet, aspect),
        "aspect_code": aspect,
        "means": as_int((sheet.get("means") or {}).get(means)) if means else 0,
    }
    if means:
        request["means_code"] = means
    if skill_name:
        found = find_skill(sheet, skill_name, aspect) or find_skill(sheet, skill_name)
        request["skill_name"] = skill_name
        request["skill_nc"] = as_int(found[1].get("nc")) if found else 0
        if found and found[1].get("aspect") != aspect:
            request["other_aspect"] = True
    handicaps: list[int] = []
    advantages: list[int] = []
    for condition in sheet.get("conditions") or []:
        if isinstance(condition, dict) and condition.get("active", True):
            target = advantages if condition.get("kind") == "advantage" else handicaps
            target.append(as_int(condition.get("value")))
    extra_handicaps = extra.pop("handicaps", None) or []
    extra_advantages = extra.pop("advantages", None) or []
    request["handicaps"] = handicaps + list(extra_handicaps)
    request["advantages"] = advantages + list(extra_advantages)
    request.update(extra)
    return request


def _means_field(sheet: dict[str, Any]) -> Field:
    stored = sheet.get("means")
    means: dict[str, Any] = stored if isinstance(stored, dict) else {}
    choices = tuple(
        (
            code,
            Msg(
                f"{t.MEANS_LABELS[code].fr} {as_int(means.get(code)):+d}",
                f"{t.MEANS_LABELS[code].en} {as_int(means.get(code)):+d}",
            ),
        )
        for code in t.MEANS
    )
    return Field(
        "means_code",
        "choice",
        Msg("Moyen", "Means"),
        choices=choices,
        audience="player",
        help=Msg("Sa valeur est lue sur la feuille.", "Its value is read from the sheet."),
    )


def _declared(sheet: dict[str, Any]) -> tuple[Field, ...]:
    return (_means_field(sheet), *pick_fields(action_request_fields(), *_GM_PATHS))


def _aspect_read(sheet: dict[str, Any], code: str) -> SheetRead:
    return SheetRead(f"aspects.{code}", t.ASPECT_LABELS[code], current_aspects(sheet)[code])


def sheet_tests(sheet: dict[str, Any]) -> list[SheetTest]:
    declared = _declared(sheet)
    out: list[SheetTest] = []
    for index, skill in enumerate(skills_of(sheet)):
        name = str(skill.get("name") or "").strip()
        aspect = t.ASPECT_ALIASES.get(str(skill.get("aspect") or "").upper())
        if not name or aspect is None:
            continue
        nc = as_int(skill.get("nc"))
        aspect_label = t.ASPECT_LABELS[aspect]
        out.append(
            SheetTest(
                key=f"skill:{index}",
                label=Msg(f"{name} ({aspect_label.fr})", f"{name} ({aspect_label.en})"),
                group=GROUP_SKILLS,
                kind="action",
                reads=(
                    SheetRead(f"skills.{index}.nc", Msg(f"{name} (NC)", f"{name} (NC)"), nc),
                    _aspect_read(sheet, aspect),
                ),
                declared=declared,
            )
        )
    for code in t.ASPECTS:
        out.append(
            SheetTest(
                key=f"aspect:{code}",
                label=t.ASPECT_LABELS[code],
                group=GROUP_ASPECTS,
                kind="action",
                reads=(_aspect_read(sheet, code),),
                declared=declared,
            )
        )
    return out


def sheet_test_request(
    sheet: dict[str, Any], test: SheetTest, declared: dict[str, Any]
) -> tuple[dict[str, Any], list[SheetRead]]:
    reads = list(test.reads)
    kind, _sep, ref = test.key.partition(":")
    skill_name = None
    if kind == "skill":
        skill = skills_of(sheet)[int(ref)]
        skill_name = str(skill.get("name") or "").strip()
        aspect = t.ASPECT_ALIASES[str(skill.get("aspect") or "").upper()]
    else:
        aspect = ref
    means = declared.get("means_code") or None
    extra = {k: v for k, v in declared.items() if k != "means_code"}
    if "handicap" in extra:
        extra["handicaps"] = [extra.pop("handicap")]
    if "advantage" in extra:
        extra["advantages"] = [extra.pop("advantage")]
    request = request_from_sheet(sheet, aspect, means, skill_name, **extra)
    if skill_name:
        request["skill_nc"] = as_int(skills_of(sheet)[int(ref)].get("nc"))
        request.pop("other_aspect", None)
    if means:
        reads.append(SheetRead(f"means.{means}", t.MEANS_LABELS[means], request["means"]))
    for index, condition in enumerate(sheet.get("conditions") or []):
        if isinstance(condition, dict) and condition.get("active", True):
            word = Msg("Avantage", "Advantage") if condition.get("kind") == "advantage" else Msg("Handicap", "Handicap")
            source = str(condition.get("source") or condition.get("note") or "").strip()
            cause = dict(t.CONDITION_SOURCE_LABELS).get(source) or Msg(source, source)  # "harm": its words
            label = Msg(f"{word.fr} {cause.fr}".strip(), f"{word.en} {cause.en}".strip())
            reads.append(SheetRead(f"conditions.{index}.value", label, as_int(condition.get("value"))))
    return request, reads
