"""Rules gaps found in play (issue 15, item 6), where they touch tests built from the sheet."""

from __future__ import annotations

import pytest

import rules
from rules.base import RulesError
from rules.tests import present


def test_altaride_an_incantation_beyond_the_occult_endurance_is_impossible_not_75_percent() -> None:
    system = rules.get_system("altaride")
    odds = present(system.odds({"kind": "casting", "incantation": 18, "eo_current": 3, "spell_level": 5}))
    assert odds["impossible"] is True and odds["success"] == 0.0
    assert "impossible" in odds["summary"]["fr"]
    possible = present(system.odds({"kind": "casting", "incantation": 18, "eo_current": 5, "spell_level": 5}))
    assert possible["success"] > 0.5 and "impossible" not in possible
    sheet = system.default_sheet()
    sheet["guild_spells"] = [{"name": "Tempête", "level": 9}]
    test = next(t for t in system.sheet_tests(sheet) if t.key == "spell:0")
    assert test.impossible is not None and "9 points d'Endurance Occulte" in test.impossible.fr
    with pytest.raises(RulesError) as exc:
        system.build_test(sheet, "spell:0", {})
    assert exc.value.errors[0].code == "impossible"


def test_sms_wounds_and_fatigue_lower_the_score_and_a_resistive_module_cancels_them() -> None:
    system = rules.get_system("sms")
    sheet = system.default_sheet()
    sheet["modules"] = [{"name": "Escrime", "kind": "positive", "rank": 5}]
    sheet["wounds"] = [{"nature": "Bras", "severity": "critical", "domain": "douleur"}]
    sheet["fatigue"] = {"transient": 1, "lasting": 1, "persistent": 0}
    built = system.build_test(sheet, "module:0", {})
    negatives = [m["rank"] for m in built.request["modules"] if m["kind"] == "negative"]
    assert negatives == [4, 2]  # critical −4 (L139), two fatigue levels (L154)
    assert present(system.odds(built.request))["score"] == 1  # 5 − 4 − 2 < 1 counts as 1 (L95)
    sheet["modules"].append({"name": "Dur au mal", "kind": "resistive", "rank": 4, "domain": "douleur"})
    built = system.build_test(sheet, "module:0", {})
    assert present(system.odds(built.request))["score"] == 5 - 2  # the resistive module cancels the wound (L47)
    # The GM may declare the wound not involved (L133); a player may not.
    with pytest.raises(RulesError):
        system.build_test(sheet, "module:0", {"wounds_not_involved": True})
    built = system.build_test(sheet, "module:0", {"wounds_not_involved": True}, gm=True)
    assert present(system.odds(built.request))["score"] == 5 - 2


@pytest.mark.parametrize(
    ("magic", "nature", "enabler", "label"),
    [
        ("natural", "defensive", "metamorphosis", "Métamorphose"),
        ("arcane", "curative", "space_time", "Espace-Temps"),
        ("divine", "offensive", "soul_vision", "Vision de l'âme"),
    ],
)
def test_sms_spell_prerequisites_are_enforced(magic: str, nature: str, enabler: str, label: str) -> None:
    system = rules.get_system("sms")
    main = {"natural": "natural_power", "arcane": "arcane_power", "divine": "divine_power"}[magic]
    sheet = system.default_sheet()
    sheet["modules"] = [{"name": "Magie", "kind": "positive", "rank": 2, "predefined": main}]
    sheet["spells"] = [{"name": "Sort", "magic_type": magic, "nature": nature, "power": 1}]
    test = system.sheet_tests(sheet)[-1]
    assert test.impossible is not None and label in test.impossible.fr
    sheet["modules"].append({"name": label, "kind": "positive", "rank": 1, "predefined": enabler})
    assert system.sheet_tests(sheet)[-1].impossible is None
