"""Tests built from an Ambre sheet: a comparison on an attribute or a characteristic, a spell with its cost.

System V2.1 is diceless: a test compares the character's value with the
opposition's (L5-L51); the attribute's points break a tie under the
"attribute" rule. The opposing value and label are the GM's (``audience="gm"``:
the target's defence). A spell (La Sorcellerie, L69, L436-L446) reads the keys
and the energy the character has left from the sheet; the caster declares the
spell's cost, its key modifications and how it is cast, the GM the place
(a magic-rich shadow, Amber itself).
"""

from __future__ import annotations

from typing import Any

from rules.ambre import tables as T
from rules.ambre.derive import attribute_points, characteristic, derive_sheet
from rules.ambre.resolution import test_kinds
from rules.base import Msg, RulesError, SheetRead, SheetTest, error, pick_fields

GROUP_ATTRIBUTES = Msg("Attributs", "Attributes")
GROUP_CHARACTERISTICS = Msg("Caractéristiques", "Characteristics")
GROUP_SPELLS = Msg("Sorcellerie", "Sorcery")
_COMPARISON_PATHS = ("b_value", "b_label", "b_tiebreak")
_SPELL_PATHS = ("base_cost", "modifications", "real", "prepared", "instant", "magic_rich", "in_amber")


def _attribute_of(key: str) -> str:
    return next(a for a in T.ATTRIBUTES if key in T.GOVERNS[a])


def sheet_tests(sheet: dict[str, Any], settings: dict[str, Any]) -> list[SheetTest]:
    kinds = test_kinds()
    opposition = pick_fields(kinds["comparison"], *_COMPARISON_PATHS)
    out: list[SheetTest] = []
    for key in T.ATTRIBUTES:
        out.append(
            SheetTest(
                f"attribute:{key}",
                T.ATTRIBUTE_LABELS[key],
                GROUP_ATTRIBUTES,
                "comparison",
                (SheetRead(f"attributes.{key}", T.ATTRIBUTE_LABELS[key], attribute_points(sheet, key)),),
                opposition,
            )
        )
    for key in T.CHARACTERISTICS:
        attr = _attribute_of(key)
        out.append(
            SheetTest(
                f"characteristic:{key}",
                T.CHARACTERISTIC_LABELS[key],
                GROUP_CHARACTERISTICS,
                "comparison",
                (
                    SheetRead(f"characteristics.{key}", T.CHARACTERISTIC_LABELS[key], characteristic(sheet, key)),
                    SheetRead(f"attributes.{attr}", T.ATTRIBUTE_LABELS[attr], attribute_points(sheet, attr)),
                ),
                opposition,
            )
        )
    powers = {p.get("power") for p in sheet.get("powers") or [] if isinstance(p, dict)}
    if "sorcellerie" in powers:
        derived = derive_sheet(sheet, settings)
        out.append(
            SheetTest(
                "spell:sorcellerie",
                Msg("Lancer un sort", "Cast a spell"),
                GROUP_SPELLS,
                "spell_cost",
                (
                    SheetRead(
                        "derived.keys_available", Msg("Clés disponibles", "Keys available"), derived["keys_available"]
                    ),
                    SheetRead("derived.energy", Msg("Énergie disponible", "Energy available"), derived["energy"]),
                ),
                pick_fields(kinds["spell_cost"], *_SPELL_PATHS),
            )
        )
    return out


def sheet_test_request(
    sheet: dict[str, Any], test: SheetTest, declared: dict[str, Any], settings: dict[str, Any]
) -> tuple[dict[str, Any], list[SheetRead]]:
    kind = test.key.partition(":")[0]
    if kind == "spell":
        if declared.get("base_cost") is None:
            raise RulesError([error("base_cost", "required", "Indiquez le coût du sort.", "Give the spell's cost.")])
        reads = {r.path: r.value for r in test.reads}
        request = {
            "keys_available": reads["derived.keys_available"],
            "energy_available": reads["derived.energy"],
            **declared,
        }
        return request, list(test.reads)
    if declared.get("b_value") is None:
        raise RulesError(
            [
                error(
                    "b_value",
                    "gm_sets_opposition",
                    "La valeur opposée est fixée par le MJ : décrivez l'action, le MJ fait la comparaison.",
                    "The opposing value is set by the GM: describe the action, the GM makes the comparison.",
                )
            ]
        )
    a_value = test.reads[0].value
    a_tiebreak = test.reads[-1].value
    request = {"a_value": a_value, "a_label": test.label.fr, "a_tiebreak": a_tiebreak, **declared}
    return request, list(test.reads)
