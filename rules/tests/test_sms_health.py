"""SMS health: wounds, healing, fatigue, falls, projections, Model B, disease/poison (spec §4.7–4.8, §4.14)."""

from __future__ import annotations

import pytest

from rules import get_system
from rules.base import RulesError, ScriptedRandom
from rules.sms.core import wound_penalty
from rules.sms.health import (
    affliction_progress,
    armour_after_elemental,
    fall_force,
    fall_is_mortal,
    fall_levels,
    fatigue_penalty,
    heal_wounds,
    levels_to_severity,
    projection_levels,
    protection_points,
    recover_fatigue,
    spell_damage_points,
    status_after_wound,
    weapon_damage_levels,
)

SMS = get_system("sms")


def w(*severities):
    return [{"severity": s} for s in severities]


def sev(wounds):
    return [x["severity"] for x in wounds]


def test_it_penalises_wounds_by_severity():
    # L137–140
    assert wound_penalty([1]) == 1 and wound_penalty([2]) == 2 and wound_penalty([3]) == 4 and wound_penalty([4]) == 0
    assert status_after_wound(4) == "out_of_combat" and status_after_wound(3) == "active"
    assert status_after_wound(1, is_minion=True) == "dead"  # L583


# spec D16 and T23 (L472–476)
@pytest.mark.parametrize(
    ("wounds", "level", "area", "left"),
    [
        (("critical", "light", "light"), "critical", False, ["light", "light"]),
        (("serious", "light"), "critical", False, []),
        (("mortal", "light"), "critical", False, ["mortal"]),
        (("critical", "critical"), "critical", False, ["critical"]),
        (("critical", "light"), "critical", True, ["critical"]),
        # Ulrik heals the party at mortal level on an area: effective critical
        (("critical", "light"), "mortal", True, ["light"]),
        (("serious", "serious", "light"), "mortal", True, []),
        (("mortal", "light", "light"), "mortal", True, ["mortal"]),
    ],
)
def test_it_heals_one_wound_of_the_level_or_all_lower(wounds, level, area, left):
    assert sev(heal_wounds(w(*wounds), level, area)) == left


def test_it_recovers_fatigue_d24():
    f = {"transient": 1, "lasting": 3, "persistent": 2}
    assert fatigue_penalty(f) == 6
    f = recover_fatigue(f, "sequence_end")
    assert f == {"transient": 0, "lasting": 3, "persistent": 2}
    assert recover_fatigue(f, "rest_hours", 2)["lasting"] == 1
    assert recover_fatigue(f, "rest_hours", 2, maintaining=True)["lasting"] == 3
    assert recover_fatigue(f, "sleep")["lasting"] == 0
    assert recover_fatigue(f, "rest_days", 2)["persistent"] == 0
    assert recover_fatigue({"transient": 4}, "catch_breath")["transient"] == 0
    with pytest.raises(ValueError):
        recover_fatigue(f, "nap")


def test_it_derives_penalties_and_rest_hours():
    sheet = SMS.default_sheet()
    sheet["wounds"] = w("light", "critical")
    sheet["fatigue"] = {"transient": 1, "lasting": 3, "persistent": 0}
    d = SMS.derive(sheet)
    assert d["wound_penalty"] == 5 and d["fatigue_penalty"] == 4 and not d["out_of_combat"]
    sheet["race"] = "elfin"
    assert SMS.derive(sheet)["full_rest_hours"] == 4  # T39 (L745)


# spec D17 (L623–627)
@pytest.mark.parametrize(
    ("h", "levels", "force"), [(5, 0, 0), (7, 1, 3), (10, 1, 3), (12, 3, 6), (17, 6, 9), (20.5, 10, 12), (16, 6, 9)]
)
def test_it_computes_fall_levels_and_force(h, levels, force):
    assert fall_levels(h, 5) == levels
    assert fall_force(h, 5) == force


def test_it_makes_falls_beyond_five_size_factors_mortal():
    assert fall_is_mortal(26, 5) and not fall_is_mortal(25, 5)
    assert fall_levels(8, 4) == 1 and fall_levels(9, 4) == 3 and fall_levels(13, 4) == 6 and fall_levels(17, 4) == 10


# T31 (L633): controlled 12 m jump, S 2, player rolls a D6
@pytest.mark.parametrize(("roll", "levels"), [(1, 0), (2, 1), (3, 3), (4, 3), (5, 3), (6, 6)])
def test_it_resolves_the_controlled_jump_example(roll, levels):
    res = SMS.resolve(
        {"kind": "fall", "height": 12, "size_factor": 5, "controlled": True, "score": 2, "chosen_die": 6},
        ScriptedRandom([roll]),
    )
    assert res.outcome["force"] == 3
    assert res.outcome["levels"] == levels
    assert res.draws == [roll]


@pytest.mark.parametrize(("roll", "levels"), [(4, 3), (1, 1), (7, 6), (10, 10)])
def test_it_resolves_an_uncontrolled_18m_fall(roll, levels):
    res = SMS.resolve({"kind": "fall", "height": 18, "score": 5}, ScriptedRandom([roll]))
    assert res.outcome["die"] == 10 and res.outcome["levels"] == levels


def test_it_needs_a_critical_success_to_survive_a_mortal_fall():
    res = SMS.resolve({"kind": "fall", "height": 30, "score": 5}, ScriptedRandom([1]))
    assert res.success is True and res.outcome["dead"] is False and res.outcome["levels"] == fall_levels(20, 5)
    res = SMS.resolve({"kind": "fall", "height": 30, "score": 12}, ScriptedRandom([2]))
    assert res.success is False and res.outcome["dead"] is True


def test_it_converts_levels_under_the_wound_levels_model():
    res = SMS.resolve(
        {"kind": "fall", "height": 12, "score": 1, "resist": False},
        ScriptedRandom([]),
        {"health_model": "wound_levels"},
    )
    assert res.outcome["levels"] == 3 and res.outcome["wound"] == {"severity": "critical"}
    assert [levels_to_severity(n) for n in (0, 1, 2, 3, 4, 10)] == [None, 1, 2, 3, 4, 4]


# T32, D18 (L644)
@pytest.mark.parametrize(
    ("distance", "obstacle", "levels"), [(10, 2, 3), (3, None, 1), (10, None, 3), (12, 9, 1), (13, 1, 6), (0, None, 1)]
)
def test_it_computes_projection_levels(distance, obstacle, levels):
    assert projection_levels(distance, 5, obstacle) == levels
    res = SMS.resolve({"kind": "projection", "distance": distance, "obstacle_after": obstacle}, ScriptedRandom([]))
    assert res.outcome["levels"] == levels


# D19, T33, T34, T37 (L654–674)
@pytest.mark.parametrize(
    ("power", "blunt", "lethal", "critical", "el_lethal", "el_critical", "imp_blunt", "imp_lethal", "imp_critical"),
    [
        (1, 1, None, None, None, None, None, None, None),
        (2, 2, 1, None, None, None, 1, None, None),
        (3, 3, 2, 1, 1, None, 2, 1, None),
        (4, 4, 3, 2, 2, 1, 3, 2, 1),
        (5, 5, 4, 3, 3, 2, 4, 3, 2),
    ],
)
def test_it_computes_spell_damage_points(
    power, blunt, lethal, critical, el_lethal, el_critical, imp_blunt, imp_lethal, imp_critical
):
    assert spell_damage_points(power, "blunt") == blunt
    assert spell_damage_points(power, "lethal") == lethal
    assert spell_damage_points(power, "critical") == critical
    assert spell_damage_points(power, "elemental_lethal") == el_lethal
    assert spell_damage_points(power, "elemental_critical") == el_critical
    assert spell_damage_points(power, "blunt", improvement=True) == imp_blunt
    assert spell_damage_points(power, "lethal", improvement=True) == imp_lethal
    assert spell_damage_points(power, "critical", improvement=True) == imp_critical


def test_it_computes_elemental_protection_t36():
    assert protection_points(3, "elemental_lethal") == 1
    assert protection_points(4, "elemental_critical") == 1 and protection_points(4, "elemental_lethal") == 2


def test_it_erodes_armour_with_elemental_attacks_d20():
    assert armour_after_elemental(2, False, "elemental_lethal") == 1
    assert armour_after_elemental(2, True, "elemental_lethal") == 2
    assert armour_after_elemental(2, True, "elemental_critical") == 1
    assert armour_after_elemental(2, False, "lethal") == 2
    assert weapon_damage_levels(0, 8, armour=3, damage_type="elemental_lethal") == 3


def test_it_applies_model_b_weapon_damage_d8_d21():
    assert weapon_damage_levels(0, 4, armour=1) == 1
    assert weapon_damage_levels(0, 10, armour=1) == 4
    assert weapon_damage_levels(0, 4, armour=1, size_difference=-1) == 0  # tifin: floor 1 before armour
    assert weapon_damage_levels(0, 4, armour=0, size_difference=1) == 3
    assert weapon_damage_levels(0, 12, armour=3, magical=True) == 5


def test_it_progresses_disease_and_poison():
    assert affliction_progress("poison", 3, 2, 2) == {
        "boxes_checked": 3,
        "boxes_total": 3,
        "wounds": 1,
        "damage_type": "lethal",
        "armour_protects": False,
    }
    assert affliction_progress("disease", 3, 3, 1)["damage_type"] == "critical"
    res = SMS.resolve(
        {"kind": "disease", "boxes_total": 4, "boxes_checked": 3, "rate": 2, "die": 6, "score": 2}, ScriptedRandom([5])
    )
    assert res.outcome["boxes_checked"] == 4 and res.outcome["wounds"] == 1 and res.success is False
    res = SMS.resolve({"kind": "poison", "boxes_total": 4, "die": 6, "score": 2}, ScriptedRandom([1]))
    assert res.outcome["progressed"] is False and res.success is True
    res = SMS.resolve({"kind": "poison", "treated": True}, ScriptedRandom([]))
    assert res.outcome["progressed"] is False
    res = SMS.resolve(
        {"kind": "poison", "boxes_total": 0, "rate": 1}, ScriptedRandom([]), {"health_model": "wound_levels"}
    )
    assert res.outcome["wounds"] == 1 and res.outcome["wound"]["severity"] == "serious"
    with pytest.raises(RulesError):
        SMS.resolve({"kind": "poison", "rate": 0}, ScriptedRandom([]))


def test_a_cushion_roll_may_be_forced_to_seek_a_critical():
    req = {"kind": "fall", "height": 12, "score": 8}
    assert SMS.resolve(req, ScriptedRandom([])).outcome["outcome"] == "success"
    res = SMS.resolve({**req, "roll_anyway": True}, ScriptedRandom([1]))
    assert res.outcome["outcome"] == "critical_success" and res.outcome["levels"] == 0
