"""Tests built from a Mythe d'Altaride sheet: a skill, a talent, an incantation (L71, L98-L109, L120, L175).

A skill's Chances de réussite are its formula's talents plus its level (L71);
a talent is tested alone (L98); a guild spell is cast with the Incantation
talent, needs its level in Endurance Occulte and a success margin of its level
(L120, L175): beyond the caster's EO it is impossible, not a roll. The GM's
bonus/malus, the die modifier and a required margin are the GM's
(``audience="gm"``, L105); the action's number in the round (L109) is declared.
"""

from __future__ import annotations

from typing import Any

from rules.altaride import tables as T
from rules.altaride.derive import endurance_current, skill_cr, talent
from rules.altaride.resolution import test_kinds
from rules.altaride.schema import FORMULA_PENDING, skill_formula, skill_name
from rules.base import Msg, SheetRead, SheetTest, as_int, pick_fields

GROUP_SKILLS = Msg("Compétences", "Skills")
GROUP_TALENTS = Msg("Talents", "Talents")
GROUP_SPELLS = Msg("Sortilèges (Incantation)", "Spells (Incantation)")
_TEST_PATHS = ("action_index", "target_modifier", "die_modifier", "required_margin")
_CAST_PATHS = ("action_index", "target_modifier", "die_modifier")


def _talent_read(sheet: dict[str, Any], code: str) -> SheetRead:
    return SheetRead(f"talents.{code}", T.TALENT_LABELS[code], talent(sheet, code))


def sheet_tests(sheet: dict[str, Any], settings: dict[str, Any]) -> list[SheetTest]:
    kinds = test_kinds()
    out: list[SheetTest] = []
    for index, item in enumerate(sheet.get("skills") or []):
        if not isinstance(item, dict) or not str(item.get("key") or ""):
            continue
        key = str(item["key"])
        codes = skill_formula(item, settings)
        if codes is None or skill_cr(sheet, key, settings) is None:
            continue
        name = skill_name(key, settings)
        reads = [_talent_read(sheet, c) for c in codes if c in T.TALENT_LABELS]
        if not codes:  # pending formula: counts 0 until the GM sets it (schema docstring, L71)
            reads.append(SheetRead(f"skills.{index}.formula", FORMULA_PENDING, 0))
        reads.append(
            SheetRead(f"skills.{index}.level", Msg(f"{name} (niveau)", f"{name} (level)"), as_int(item.get("level"), 0))
        )
        out.append(
            SheetTest(
                f"skill:{key}",
                Msg(name, name),
                GROUP_SKILLS,
                "skill_test",
                tuple(reads),
                pick_fields(kinds["skill_test"], *_TEST_PATHS),
            )
        )
    for code in T.TALENTS:
        out.append(
            SheetTest(
                f"talent:{code}",
                T.TALENT_LABELS[code],
                GROUP_TALENTS,
                "talent_test",
                (_talent_read(sheet, code),),
                pick_fields(kinds["talent_test"], *_TEST_PATHS),
            )
        )
    eo = endurance_current(sheet, "EO")
    for index, spell in enumerate(sheet.get("guild_spells") or []):
        if not isinstance(spell, dict) or not str(spell.get("name") or "").strip():
            continue
        name = str(spell["name"]).strip()
        level = max(1, as_int(spell.get("level"), 1))
        impossible = None
        if eo < level:
            impossible = Msg(
                f"Impossible : il faut {level} points d'Endurance Occulte, {name} n'en a que {eo}.",  # L175
                f"Impossible: {level} Occult Endurance points are needed, only {eo} left.",
            )
        out.append(
            SheetTest(
                f"spell:{index}",
                Msg(f"{name} (niveau {level})", f"{name} (level {level})"),
                GROUP_SPELLS,
                "casting",
                (
                    _talent_read(sheet, "INC"),
                    SheetRead("endurance_current.EO", T.POOL_LABELS["EO"], eo),
                    SheetRead(f"guild_spells.{index}.level", Msg(f"{name} (niveau)", f"{name} (level)"), level),
                ),
                pick_fields(kinds["casting"], *_CAST_PATHS),
                impossible,
            )
        )
    return out


def sheet_test_request(
    sheet: dict[str, Any], test: SheetTest, declared: dict[str, Any], settings: dict[str, Any]
) -> tuple[dict[str, Any], list[SheetRead]]:
    kind, _sep, ref = test.key.partition(":")
    if kind == "skill":
        target = skill_cr(sheet, ref, settings)
        request = {"skill": ref, "target": target, "label": skill_name(ref, settings)}
    elif kind == "talent":
        request = {"talent": ref, "target": talent(sheet, ref), "label": T.TALENT_LABELS[ref].fr}
    else:
        spell = (sheet.get("guild_spells") or [])[int(ref)]
        request = {
            "incantation": talent(sheet, "INC"),
            "eo_current": endurance_current(sheet, "EO"),
            "spell_level": max(1, as_int(spell.get("level"), 1)),
        }
    return {**request, **declared}, list(test.reads)
