"""SMS magic: the spell builder, rituals, special powers, counter-magic (spec §4.15, §6 T13–T25, D11–D15)."""

from __future__ import annotations

import pytest

from rules import get_system
from rules.base import RulesError, ScriptedRandom
from rules.sms import build_spell, improvement_power
from rules.sms.magic import (
    cast_permission,
    counter_effect_cancels,
    counter_spell_die,
    dispel_die,
    dispel_score_penalty,
    manipulation_penalty,
    ritual_die,
)

SMS = get_system("sms")


def test_t15_invisibility_power_two_is_d6():
    out = build_spell({"nature": "misc", "power": 2})
    assert out["difficulty"] == 6 and out["errors"] == [] and out["energy_cost"]["lasting"] == 1


def test_t16_magic_wound_from_d4_light_to_d10_mortal():
    assert build_spell({"nature": "offensive", "severity": "light", "target_die": 4})["difficulty"] == 4
    assert build_spell({"nature": "offensive", "severity": "mortal", "target_die": 4})["difficulty"] == 10
    assert build_spell({"nature": "offensive", "severity": "annihilation", "target_die": 4})["difficulty"] == 12


def test_t18_tord_gnoll_fireball_and_the_range_reading():
    spell = {"nature": "offensive", "severity": "critical", "target_die": 6, "range": 1}
    out = build_spell(spell)
    assert out["difficulty"] == 10 and out["score_penalty"] == 1
    out = build_spell(spell, {"spell_range_reading": "die"})
    assert out["difficulty"] == 12 and out["score_penalty"] == 0


def test_t19_area_lowers_the_severity():
    out = build_spell({"nature": "offensive", "severity": "mortal", "target_die": 8, "area": 1})
    assert out["effect"] == {"severity": 4, "effective_severity": 3}


def test_d11_fireball_casting():
    spell = {"nature": "offensive", "severity": "serious", "target_die": 8, "range": 1}
    out = build_spell(spell)
    assert out["difficulty"] == 10 and out["score_penalty"] == 1
    res = SMS.resolve({"kind": "cast_spell", "score": 5, **spell}, ScriptedRandom([4]))
    assert res.success and res.outcome["score"] == 4 and res.outcome["energy_cost"]["lasting"] == 1
    res = SMS.resolve({"kind": "cast_spell", "score": 5, **spell}, ScriptedRandom([5]))
    assert not res.success and res.outcome["stake"] == "major"
    area = build_spell({**spell, "area": 1})
    assert area["score_penalty"] == 2 and area["effect"]["effective_severity"] == 1
    assert build_spell({**spell, "area": 1, "extension_rank": 1})["score_penalty"] == 1
    assert build_spell({"range": 3, "area": 3, "duration": 3})["score_penalty"] == 9
    assert manipulation_penalty(3, 3, 3) == 9 and manipulation_penalty(1, 1, 0, 5) == 0


def test_it_builds_rituals_t17_d12():
    assert [ritual_die(p) for p in range(1, 6)] == [8, 10, 12, 14, 16]
    assert build_spell({"mode": "ritual", "power": 3})["difficulty"] == 12
    assert build_spell({"mode": "ritual", "power": 3, "participants": 2})["difficulty"] == 8
    out = build_spell({"mode": "ritual", "power": 5, "participants": 3})
    assert out["difficulty"] == 10 and out["energy_cost"] == {"transient": 0, "lasting": 1, "participants_lasting": 3}
    out = build_spell({"mode": "ritual", "power": 4, "range": 2})
    assert out["difficulty"] == 14 and out["needs_score_above_12"] and out["score_penalty"] == 0
    res = SMS.resolve({"kind": "cast_spell", "mode": "ritual", "power": 4, "score": 11}, ScriptedRandom([]))
    assert res.success is False and res.outcome["stake"] == "critical" and res.draws == []
    res = SMS.resolve({"kind": "cast_spell", "mode": "ritual", "power": 4, "score": 14}, ScriptedRandom([]))
    assert res.success is True


def test_it_builds_special_powers():
    out = build_spell({"mode": "special_power", "power": 2, "intervention": True})
    assert out["difficulty"] == 10 and out["energy_cost"] == {"transient": 2, "lasting": 0, "participants_lasting": 0}


def test_it_charges_a_spell_intervention_as_lasting():
    assert build_spell({"power": 1, "intervention": True})["energy_cost"]["lasting"] == 2


# T20, T21, T24, T25, D14 (L461–486)
@pytest.mark.parametrize(
    ("scope", "rank", "power"), [(4, 2, 5), (3, 3, 5), (5, 1, 5), (1, 1, 1), (3, 1, 3), (2, 2, 3), (1, 5, 5), (4, 3, 6)]
)
def test_it_computes_improvement_power(scope, rank, power):
    assert improvement_power(scope, rank) == power


def test_it_refuses_improvement_above_power_five_and_reduces_area_rank():
    out = build_spell({"nature": "improvement", "scope": 4, "rank": 3})
    assert [e["code"] for e in out["errors"]] == ["power_too_high"]
    out = build_spell({"nature": "diminution", "scope": 2, "rank": 2, "area": 1, "opposed": True, "target_die": 6})
    assert out["power"] == 3 and out["effect"]["effective_rank"] == 1 and out["difficulty"] == 10
    out = build_spell({"nature": "occult_protection", "scope": 4, "rank": 2})
    assert out["power"] == 5 and out["difficulty"] == 12 and out["effect"]["rank"] == 2


def test_counter_effects_t21_t22_d15():
    out = build_spell({"nature": "counter_effect", "scope": 3, "rank": 3})
    assert out["power"] == 5 and out["effect"]["cancels_up_to_power"] == 3
    assert counter_effect_cancels(3, 3) and not counter_effect_cancels(3, 4)
    assert not counter_effect_cancels(3, 2, matches=False)
    assert not counter_effect_cancels(4, 5)  # Gas'Rashk vs disintegration


def test_it_gives_barriers_their_reduction():
    assert build_spell({"nature": "defensive", "power": 3})["effect"]["barrier_reduction"] == 6


def test_counter_magic_d13():
    assert counter_spell_die(6, 3) == 10
    assert dispel_die(4) == 10 and dispel_die(1) == 4
    assert dispel_score_penalty(3, 2, 2) == 7
    res = SMS.resolve(
        {"kind": "counter_spell", "score": 6, "caster_base_die": 6, "power": 3, "magic_rank": 3}, ScriptedRandom([6])
    )
    assert res.outcome["die"] == 10 and res.success
    with pytest.raises(RulesError) as exc:
        SMS.resolve({"kind": "counter_spell", "score": 6, "power": 3, "magic_rank": 2}, ScriptedRandom([]))
    assert exc.value.errors[0].code == "rank_below_power"
    res = SMS.resolve(
        {
            "kind": "dispel",
            "score": 9,
            "power": 4,
            "magic_rank": 4,
            "effect_duration": "3",
            "effect_area": "2",
            "range": "2",
        },
        ScriptedRandom([2]),
    )
    assert res.outcome["die"] == 10 and res.outcome["score"] == 2 and res.success
    res = SMS.resolve({"kind": "dispel", "score": 20, "power": 3, "magic_rank": 3, "ritual": True}, ScriptedRandom([]))
    assert res.outcome["die"] == 12


def test_permissions_t13_d11():
    ranks = {"arcane_power": 2}
    assert [e.code for e in cast_permission(ranks, "arcane", "curative")] == ["nature_not_allowed"]
    assert cast_permission({**ranks, "space_time": 1}, "arcane", "curative") == []
    assert [e.code for e in cast_permission({"divine_power": 3}, "divine", "offensive")] == ["nature_not_allowed"]
    assert [e.code for e in cast_permission({}, "natural", "curative")] == ["missing_magic_module"]
    assert [e.code for e in cast_permission({"natural_power": 1}, "natural", "misc", "ritual")] == [
        "missing_ritual_magic"
    ]
    out = build_spell(
        {"nature": "offensive", "target_die": 6, "magic_type": "divine", "caster_ranks": {"divine_power": 2}}
    )
    assert [e["code"] for e in out["errors"]] == ["nature_not_allowed"]


def test_it_reports_builder_errors_without_raising():
    out = build_spell({"nature": "offensive"})
    assert "required" in [e["code"] for e in out["errors"]]
    out = build_spell({"nature": "bogus", "power": 9, "range": 5})
    assert {"invalid_choice", "out_of_range"} <= {e["code"] for e in out["errors"]}
    out = build_spell({"power": 2, "damage_type": "elemental_lethal", "nature": "offensive", "target_die": 4})
    assert "power_too_low" in [e["code"] for e in out["errors"]]
    out = build_spell(
        {"nature": "offensive", "severity": "critical", "target_die": 4, "damage_type": "elemental_lethal"}
    )
    assert out["effect"]["damage_points"] == 1 and out["errors"] == []
    assert all("label" in line for line in out["breakdown"])


def test_spell_builder_is_a_test_kind_without_draws():
    res = SMS.resolve({"kind": "spell_builder", "nature": "misc", "power": 3, "duration": "2"}, ScriptedRandom([]))
    assert res.draws == [] and res.outcome["difficulty"] == 8 and res.outcome["score_penalty"] == 2
    assert res.outcome["maintained"] is True
    with pytest.raises(RulesError):
        SMS.resolve({"kind": "cast_spell", "nature": "offensive", "score": 3}, ScriptedRandom([]))


def test_t14_specialisation_is_a_scope_one_module():
    assert (
        SMS.creation_budget(
            {
                **SMS.default_sheet(),
                "modules": [{"name": "soins des blessures sérieuses", "kind": "positive", "scope": 1, "rank": 2}],
            }
        ).spent
        == 2
    )
