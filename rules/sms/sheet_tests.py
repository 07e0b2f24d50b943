"""Tests built from an SMS sheet: an action from the character's modules, a known spell (L38-L53, L95, L133-L154).

An action line is one of the character's positive modules (a removable one
only while its object is held, L53), optionally combined with a second one;
its score is computed from the modules (L95). The character's wounds are added
as negative modules of their severity (light −1, serious −2, critical −4,
L137-L140) and fatigue as one negative module (the campaign's penalty per
level, L154): applied automatically, a resistive module of the same domain
cancelling them (L47). Reading of L133 ("si la nature de la blessure est
impliquée"): a wound applies unless the GM declares it is not involved.

A spell line is one of the sheet's known spells; the caster's score is the
rank of the magic module (L297) and the prerequisites are enforced: the magic
module at rank 1, Métamorphose / Espace-Temps / Vision de l'âme for the nature
the magic lacks (L289-L295), ritual magic for a ritual (L384). A spell the
sheet does not allow is impossible.

The GM's difficulty die, circumstances, other modifiers and threshold are the
GM's (``audience="gm"``); the die a player chooses (L97) is declared.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rules.base import Field, Msg, RulesError, SheetRead, SheetTest, error, pick_fields, to_int
from rules.sms.health import fatigue_penalty, severity_id
from rules.sms.magic import cast_permission
from rules.sms.schema import PREDEFINED_MODULES, test_kinds
from rules.sms.tables import MAGIC_MODULE, SEVERITIES

GROUP_MODULES = Msg("Actions (modules)", "Actions (modules)")
GROUP_SPELLS = Msg("Sorts connus", "Known spells")
_ACTION_PATHS = ("chosen_die", "die", "circumstances", "modifier", "threshold")
_SPELL_PATHS = (
    "range",
    "area",
    "duration",
    "severity",
    "intervention",
    "participants",
    "opposed",
    "target_die",
    "circumstances",
    "modifier",
)
_GM_SPELL = {"opposed", "target_die", "circumstances", "modifier"}
#: The GM's difficulty die, circumstances (L246-L258), other modifiers and threshold.
_GM_ACTION = {"die", "circumstances", "modifier", "threshold"}
IGNORE_WOUNDS = Field(
    "wounds_not_involved",
    "bool",
    Msg("Les blessures ne sont pas impliquées (MJ)", "Wounds are not involved (GM)"),
    default=False,
    audience="gm",
    help=Msg("Une blessure compte quand sa nature est impliquée.", "A wound counts when it is involved."),  # L133
)


def _modules(sheet: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    return [(i, m) for i, m in enumerate(sheet.get("modules") or []) if isinstance(m, Mapping)]


def _held(m: Mapping[str, Any]) -> bool:
    return not (m.get("removable") and m.get("object_possessed") is False)


def _ranks(sheet: Mapping[str, Any]) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for _index, m in _modules(sheet):
        if m.get("predefined") and _held(m):
            ranks[m["predefined"]] = max(ranks.get(m["predefined"], 0), to_int(m.get("rank")))
    return ranks


def _module_read(index: int, m: Mapping[str, Any]) -> SheetRead:
    name = str(m.get("name") or "")
    return SheetRead(f"modules.{index}.rank", Msg(name, name), to_int(m.get("rank")))


def _health(
    sheet: Mapping[str, Any], settings: Mapping[str, Any], skip_wounds: bool
) -> tuple[list[dict[str, Any]], list[SheetRead]]:
    """Negative modules of the wounds and fatigue (L133-L154), and what they read."""
    modules: list[dict[str, Any]] = []
    reads: list[SheetRead] = []
    if not skip_wounds:
        for index, w in enumerate(sheet.get("wounds") or []):
            if not isinstance(w, Mapping):
                continue
            try:
                sev = severity_id(w.get("severity", "light"))
            except ValueError:
                continue
            penalty = SEVERITIES[sev]["penalty"]
            if not penalty:
                continue
            nature = str(w.get("nature") or "").strip() or SEVERITIES[sev]["label"].fr
            modules.append({"name": nature, "kind": "negative", "rank": penalty, "domain": str(w.get("domain") or "")})
            label = SEVERITIES[sev]["label"]
            reads.append(
                SheetRead(f"wounds.{index}.severity", Msg(f"{label.fr} ({nature})", f"{label.en} ({nature})"), -penalty)
            )
    stored = sheet.get("fatigue")
    fatigue: Mapping[str, Any] = stored if isinstance(stored, Mapping) else {}
    penalty = fatigue_penalty(fatigue, to_int(settings.get("fatigue_penalty"), 1))
    if penalty:
        modules.append({"name": "Fatigue", "kind": "negative", "rank": penalty, "domain": "fatigue"})
        reads.append(SheetRead("fatigue", Msg("Fatigue", "Fatigue"), -penalty))
    return modules, reads


def _resistive(sheet: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[SheetRead]]:
    modules, reads = [], []
    for index, m in _modules(sheet):
        if m.get("kind") == "resistive" and _held(m):
            modules.append(
                {
                    "name": str(m.get("name") or ""),
                    "kind": "resistive",
                    "rank": to_int(m.get("rank")),
                    "domain": str(m.get("domain") or ""),
                }
            )
            reads.append(_module_read(index, m))
    return modules, reads


def sheet_tests(sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> list[SheetTest]:
    kinds = test_kinds()
    out: list[SheetTest] = []
    positives = [
        (i, m)
        for i, m in _modules(sheet)
        if m.get("kind", "positive") == "positive" and _held(m) and str(m.get("name") or "").strip()
    ]
    for index, m in positives:
        others = tuple((str(j), Msg(str(o.get("name")), str(o.get("name")))) for j, o in positives if j != index)
        declared: tuple[Field, ...] = ()
        if others:
            declared = (Field("with_module", "choice", Msg("Avec le module", "With the module"), choices=others),)
        picked = pick_fields(kinds["action"], *_ACTION_PATHS)
        declared += (*(f if f.path not in _GM_ACTION else _gm(f) for f in picked), IGNORE_WOUNDS)
        name = str(m["name"]).strip()
        out.append(
            SheetTest(
                f"module:{index}",
                Msg(f"{name} ({to_int(m.get('rank'))})", f"{name} ({to_int(m.get('rank'))})"),
                GROUP_MODULES,
                "action",
                (_module_read(index, m),),
                declared,
            )
        )
    ranks = _ranks(sheet)
    spell_fields = pick_fields(kinds["cast_spell"], *_SPELL_PATHS)
    for index, spell in enumerate(sheet.get("spells") or []):
        if not isinstance(spell, Mapping) or not str(spell.get("name") or "").strip():
            continue
        name = str(spell["name"]).strip()
        magic_type = str(spell.get("magic_type") or "arcane")
        problems = cast_permission(
            ranks, magic_type, str(spell.get("nature") or "misc"), str(spell.get("mode") or "spell")
        )
        impossible = None
        if problems:
            fr = " ".join(_named(p.message.fr, "fr") for p in problems)
            impossible = Msg(fr, " ".join(_named(p.message.en, "en") for p in problems))
        main = MAGIC_MODULE.get(magic_type, "")
        reads = tuple(_module_read(i, m) for i, m in _modules(sheet) if m.get("predefined") == main and _held(m))
        declared = (*(f if f.path not in _GM_SPELL else _gm(f) for f in spell_fields), IGNORE_WOUNDS)
        out.append(
            SheetTest(f"spell:{index}", Msg(name, name), GROUP_SPELLS, "cast_spell", reads, declared, impossible)
        )
    return out


def _named(text: str, lang: str) -> str:
    """A rules message for a page: module keys (``space_time``) named (Espace-Temps), seed lines left out."""
    for key, label in PREDEFINED_MODULES:
        if key:
            text = text.replace(f"({key})", f"({label.get(lang)})").replace(f" {key} ", f" {label.get(lang)} ")
    return re.sub(r"\s*\(L\d+[^)]*\)", "", text)


def _gm(f: Field) -> Field:
    from dataclasses import replace

    return replace(f, audience="gm")


def sheet_test_request(
    sheet: Mapping[str, Any], test: SheetTest, declared: dict[str, Any], settings: Mapping[str, Any]
) -> tuple[dict[str, Any], list[SheetRead]]:
    kind, _sep, ref = test.key.partition(":")
    declared = dict(declared)
    skip = bool(declared.pop("wounds_not_involved", False))
    reads = list(test.reads)
    modules: list[dict[str, Any]] = []
    request: dict[str, Any]
    if kind == "module":
        chosen = [int(ref)]
        if declared.get("with_module") not in (None, ""):
            chosen.append(int(declared.pop("with_module")))
        all_modules = sheet.get("modules") or []
        for index in chosen:
            m = all_modules[index]
            modules.append(
                {
                    "name": str(m.get("name") or ""),
                    "kind": "positive",
                    "rank": to_int(m.get("rank")),
                    "domain": str(m.get("domain") or ""),
                }
            )
            if index != int(ref):
                reads.append(_module_read(index, m))
        request = {"die": 6}
    else:
        spell = (sheet.get("spells") or [])[int(ref)]
        main = MAGIC_MODULE.get(str(spell.get("magic_type") or "arcane"), "")
        rank = _ranks(sheet).get(main, 0)
        named = next((str(m.get("name") or "") for _j, m in _modules(sheet) if m.get("predefined") == main), main)
        modules.append({"name": named or main, "kind": "positive", "rank": rank, "domain": ""})
        if spell.get("nature") == "offensive" and not declared.get("target_die"):
            raise RulesError(
                [
                    error(
                        "target_die",
                        "gm_sets_defence",
                        "Le dé de défense de la cible est fixé par le MJ : demandez-lui de lancer ce sort avec vous.",
                        "The target's defence die is set by the GM: ask the GM to roll this spell with you.",  # L366
                    )
                ]
            )
        request = {
            "magic_type": spell.get("magic_type") or "arcane",
            "mode": spell.get("mode") or "spell",
            "nature": spell.get("nature") or "misc",
            "power": max(1, min(5, to_int(spell.get("power"), 1))),
            "caster_ranks": _ranks(sheet),
        }
    resist, resist_reads = _resistive(sheet)
    health, health_reads = _health(sheet, settings, skip)
    if health:
        modules += resist
        reads += resist_reads
    modules += health
    reads += health_reads
    request.update(declared)
    request["modules"] = modules
    return request, reads
