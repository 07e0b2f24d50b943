"""Altaride d20 tests, opposed tests, magic, learning and damage (spec §4.1-§4.11, §6 S5-S6, D13-D55)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import get_system
from rules.altaride.resolution import evaluate, opposed
from rules.base import Resolution, RulesError, ScriptedRandom, SeededRandom
from rules.tests import present
from rules.tests.test_altaride_creation import SETTINGS, aldo

SYSTEM = get_system("altaride")


def roll(request: dict[str, Any], *draws: int, settings: dict[str, Any] | None = None) -> Resolution:
    rng = ScriptedRandom(draws)
    result = SYSTEM.resolve(request, rng, settings if settings is not None else SETTINGS)
    assert rng.remaining == 0
    return result


def roll_under(target: int, natural: int, **extra: Any) -> Resolution:
    return roll({"kind": "test", "target": target, **extra}, natural)


# ---- §4.1 standard test ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("target", "natural", "outcome", "success_margin", "failure_margin", "vector"),
    [
        (12, 8, "success", 4, None, "D13"),
        (12, 12, "success", 0, None, "D14"),
        (12, 13, "failure", None, 1, "D15"),
        (12, 1, "crit_success", 11, None, "D16"),
        (22, 20, "crit_failure", None, 0, "D17"),
        (-2, 1, "crit_success", 0, None, "D18"),
        (25, 20, "crit_failure", None, 0, "S5"),
        (0, 1, "crit_success", 0, None, "S6"),
        (30, 1, "crit_success", 29, None, "S6"),
    ],
)
def test_it_matches_the_test_vectors(
    target: int, natural: int, outcome: str, success_margin: int | None, failure_margin: int | None, vector: str
) -> None:
    result = roll_under(target, natural)
    o = result.outcome
    assert (o["outcome"], o["success_margin"], o["failure_margin"]) == (outcome, success_margin, failure_margin)
    assert result.draws == [natural]
    assert result.success is (outcome in ("success", "crit_success"))
    assert o["xp_gain"] == (1 if natural == 1 else 0)


def test_it_tags_natural_ones_and_twenties() -> None:  # L100, L101, L213
    assert roll_under(12, 1).tags == ["natural_1"] and roll_under(12, 1).outcome["natural_ones"] == 1
    assert roll_under(12, 20).tags == ["natural_20"] and roll_under(12, 20).outcome["natural_ones"] == 0
    assert roll_under(12, 7).tags == []


@pytest.mark.parametrize(
    ("natural", "required", "meets", "band", "vector"),
    [
        (10, 3, False, "insufficient_margin", "D19"),
        (9, 3, True, "success", "D20"),
        (1, 3, True, "success", "D20"),
        (13, 0, False, "failure", "D15"),
    ],
)
def test_it_reports_the_required_margin(natural: int, required: int, meets: bool, band: str, vector: str) -> None:
    o = roll_under(12, natural, required_margin=required).outcome
    assert (o["meets_required"], o["band"]) == (meets, band)
    if band == "insufficient_margin":
        assert o["success"] is True  # "un jet réussi n'est jamais un échec" L103


@pytest.mark.parametrize(
    ("index", "target", "outcome", "margin"), [(1, 14, "success", 1), (2, 13, "success", 0), (3, 12, "failure", 1)]
)
def test_it_applies_the_multiple_action_malus(index: int, target: int, outcome: str, margin: int) -> None:  # D21, S7
    o = roll_under(14, 13, action_index=index).outcome
    assert o["target"] == target and o["outcome"] == outcome
    assert (o["success_margin"] if o["success"] else o["failure_margin"]) == margin


def test_it_applies_target_and_die_modifiers() -> None:  # D22, S18
    o = roll_under(15, 5, target_modifier=-10).outcome  # VIG Mini 14, VIG 12: -10
    assert (o["target"], o["outcome"], o["success_margin"]) == (5, "success", 0)
    o = roll_under(14, 9, die_modifier=1).outcome  # stun +1 on the die
    assert (o["die"], o["success_margin"]) == (10, 4)
    o = roll_under(14, 19, die_modifier=-5).outcome  # a modified 19 is not a natural 1 nor a 20
    assert o["outcome"] == "success"
    o = roll_under(30, 20, die_modifier=-10).outcome
    assert o["outcome"] == "crit_failure"


def test_it_computes_targets_from_the_sheet() -> None:
    result = roll({"kind": "skill_test", "skill": "mains_nues", "sheet": aldo()}, 10)
    assert result.inputs["base_target"] == 15 and "sheet" not in result.inputs
    assert result.outcome["success_margin"] == 5
    result = roll({"kind": "talent_test", "talent": "SCI", "sheet": aldo()}, 10)
    assert result.outcome["target"] == 13
    unknown_level0 = roll({"kind": "skill_test", "skill": "esquive", "sheet": aldo()}, 10)
    assert unknown_level0.outcome["target"] == 12  # level 0: CR = Formula (L75, S4)
    with pytest.raises(RulesError) as exc:
        roll({"kind": "skill_test", "skill": "vol", "sheet": aldo()})
    assert exc.value.errors[0].code == "unknown_skill"


@pytest.mark.parametrize(
    "request_",
    [
        {"kind": "nope"},
        {"kind": "test"},
        {"kind": "test", "target": "12"},
        {"kind": "test", "target": 5, "required_margin": -1},
        {"kind": "skill_test", "skill": "mains_nues"},
        {"kind": "casting", "incantation": 15, "eo_current": 2, "spell_level": 11},
    ],
)
def test_it_rejects_bad_requests(request_: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        SYSTEM.resolve(request_, ScriptedRandom([5]), SETTINGS)


def test_it_replays_from_recorded_draws() -> None:
    for kind_request in (
        {"kind": "test", "target": 11},
        {"kind": "opposed_test", "target": 12, "defender_target": 9},
        {"kind": "learning", "talent_score": 8, "level": 6, "until_learned": True},
        {"kind": "explosion", "charges": 4},
    ):
        first = SYSTEM.resolve(kind_request, SeededRandom(7), SETTINGS)
        again = SYSTEM.resolve(kind_request, ScriptedRandom(first.draws), SETTINGS)
        assert again.to_dict() == first.to_dict()


# ---- §4.4 lowering the die -----------------------------------------------------------------------------------
def test_it_lowers_a_die_with_experience() -> None:  # D23
    stored = roll_under(12, 14)
    judged, draft = SYSTEM.lower_die(stored, 2, xp_balance=10)
    outcome = judged["outcome"]
    assert (judged["success"], judged["level"], judged["margin"]) == (True, "success", 0)
    assert (outcome["roll"]["outcome"], outcome["roll"]["success_margin"], outcome["success"]) == ("success", 0, True)
    assert (outcome["outcome"], outcome["die"], outcome["xp_lowering"]) == ("success", 12, 2)
    assert (draft.amount, draft.kind, draft.data["purchase"]) == (-2, "purchase", "die_lowering")
    assert stored.outcome["roll"]["outcome"] == "failure"  # the stored roll is not mutated


def test_it_refuses_to_lower_a_natural_twenty() -> None:  # D24
    with pytest.raises(RulesError) as exc:
        SYSTEM.lower_die(roll_under(12, 20), 1, xp_balance=10)
    assert exc.value.errors[0].code == "natural_20"


def test_it_never_creates_a_critical_and_floors_at_one() -> None:  # D25
    outcome = SYSTEM.lower_die(roll_under(12, 2).to_dict(), 1, xp_balance=10)[0]["outcome"]
    assert (outcome["roll"]["die"], outcome["roll"]["outcome"], outcome["roll"]["success_margin"]) == (1, "success", 11)
    with pytest.raises(RulesError) as exc:
        SYSTEM.lower_die(roll_under(12, 2), 2, xp_balance=10)
    assert exc.value.errors[0].code == "die_below_1"


def test_it_refuses_lowering_without_enough_experience() -> None:
    with pytest.raises(RulesError) as exc:
        SYSTEM.lower_die(roll_under(12, 15), 3, xp_balance=2)
    assert exc.value.errors[0].code == "insufficient_xp"
    with pytest.raises(RulesError):
        SYSTEM.lower_die(roll_under(12, 15), 0, xp_balance=2)


def test_it_recomputes_an_opposed_winner_after_lowering() -> None:
    stored = roll({"kind": "opposed_test", "target": 14, "defender_target": 13}, 6, 5)  # tie 8/8 -> defender
    assert stored.outcome["contest"]["winner"] == "defender"
    judged, _ = SYSTEM.lower_die(stored, 1, xp_balance=5)
    outcome = judged["outcome"]
    assert outcome["contest"]["winner"] == "active" and outcome["success"] is True
    assert (judged["success"], judged["level"]) == (True, "success")  # the shared words follow the new winner
    outcome = SYSTEM.lower_die(stored, 1, xp_balance=5, side="defender")[0]["outcome"]
    assert outcome["contest"]["winner"] == "defender"


# ---- §4.5 opposed tests --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "an", "d", "dn", "winner", "vector"),
    [
        (14, 6, 13, 5, "defender", "D26"),
        (14, 6, 13, 9, "active", "D27"),
        (10, 15, 10, 17, None, "D28"),
        (10, 14, 12, 3, "defender", "D29"),
        (10, 1, 18, 4, "active", "D30"),
    ],
)
def test_it_resolves_opposed_tests(a: int, an: int, d: int, dn: int, winner: str | None, vector: str) -> None:
    result = roll({"kind": "opposed_test", "target": a, "defender_target": d}, an, dn)
    assert result.outcome["contest"]["winner"] == winner
    assert result.success is (winner == "active")
    assert result.draws == [an, dn]


def test_it_compares_margins_only_when_configured() -> None:  # D30 pure-margin option
    result = roll(
        {"kind": "opposed_test", "target": 10, "defender_target": 18},
        1,
        4,
        settings={**SETTINGS, "crit_success_wins_opposed": False},
    )
    assert result.outcome["contest"]["winner"] == "defender"


def test_it_needs_a_plain_success_without_defence() -> None:  # D31
    result = roll({"kind": "opposed_test", "target": 12}, 12)
    assert result.outcome["contest"] == {"winner": "active", "active_succeeds": True, "defender_succeeds": False}
    assert roll({"kind": "opposed_test", "target": 12}, 13).success is False


def test_it_tags_a_defender_natural_one_apart() -> None:
    result = roll({"kind": "opposed_test", "target": 12, "defender_target": 12}, 5, 1)
    assert result.tags == ["defender_natural_1"]
    assert result.outcome["natural_ones"] == 0 and result.outcome["defender_natural_ones"] == 1


# ---- §4.10 magic -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("natural", "works", "eo_after", "vector"),
    [(11, True, 19, "D43"), (13, True, 17, "D44"), (18, True, 17, "D45"), (20, False, 17, "D46"), (1, True, 19, "")],
)
def test_it_casts_spells(natural: int, works: bool, eo_after: int, vector: str) -> None:
    result = roll({"kind": "casting", "incantation": 15, "eo_current": 20, "spell_level": 3}, natural)
    assert (result.outcome["spell_works"], result.outcome["eo_after"]) == (works, eo_after)


def test_it_refuses_a_spell_above_the_remaining_eo() -> None:  # D47, S16
    with pytest.raises(RulesError) as exc:
        roll({"kind": "casting", "incantation": 15, "eo_current": 2, "spell_level": 3})
    assert exc.value.errors[0].code == "not_enough_eo"


def test_it_empties_eo_with_a_failed_level_one_spell() -> None:  # D48
    result = roll({"kind": "casting", "incantation": 15, "eo_current": 1, "spell_level": 1}, 16)
    assert result.outcome["eo_after"] == 0


def test_it_can_make_low_margin_spells_fail() -> None:  # A25 option
    result = roll(
        {"kind": "casting", "incantation": 15, "eo_current": 20, "spell_level": 3},
        13,
        settings={**SETTINGS, "spell_works_on_low_margin": False},
    )
    assert (result.outcome["spell_works"], result.outcome["eo_after"]) == (False, 17)


def test_it_updates_the_casting_cost_after_lowering() -> None:
    stored = roll({"kind": "casting", "incantation": 15, "eo_current": 20, "spell_level": 3}, 13)
    outcome = SYSTEM.lower_die(stored, 1, xp_balance=3)[0]["outcome"]
    assert (outcome["eo_cost"], outcome["eo_after"]) == (1, 19)


def test_it_resolves_a_magic_attack_tie_for_the_target() -> None:  # D49
    result = roll({"kind": "magic_attack", "manipulations": 15, "defender_target": 12}, 9, 6)
    assert result.outcome["target_affected"] is False
    undefended = roll({"kind": "magic_attack", "manipulations": 15}, 9)
    assert undefended.outcome["target_affected"] is True


def test_it_charges_and_explodes_objects() -> None:  # D50, D51, S17
    charged = roll({"kind": "runes_charge", "runes": 14, "charges": 2}, 4, 7)
    assert (charged.outcome["charged"], charged.outcome["charges_after"]) == (True, 3)
    assert charged.outcome["defender_roll"]["target"] == 10
    boom = roll({"kind": "runes_charge", "runes": 14, "charges": 2}, 16, 7)
    assert (boom.outcome["exploded"], boom.outcome["explosion_charges"]) == (True, 2)


@pytest.mark.parametrize(("distance", "dice"), [(0, 3), (1, 2), (2, 1), (3, 0), (9, 0)])
def test_it_rolls_explosions_by_distance(distance: int, dice: int) -> None:  # D52
    draws = [4, 17, 9][:dice]
    result = roll({"kind": "explosion", "charges": 3, "distance": distance}, *draws)
    assert result.outcome["dice"] == dice and result.outcome["damage"] == sum(draws)
    if distance == 0:
        assert result.outcome["damage"] == 30


@pytest.mark.parametrize(("natural", "eo_cost"), [(12, 1), (10, 0)])
def test_it_uses_a_charge(natural: int, eo_cost: int) -> None:  # D53
    result = roll({"kind": "use_charge", "incantation": 15, "spell_level": 4, "eo_current": 5, "charges": 2}, natural)
    assert (result.outcome["eo_cost"], result.outcome["charges_after"]) == (eo_cost, 1)
    with pytest.raises(RulesError):
        roll({"kind": "use_charge", "incantation": 15, "spell_level": 4, "eo_current": 5, "charges": 0})


# ---- §4.11 learning ----------------------------------------------------------------------------------------
def test_it_learns_a_guild_spell_over_days() -> None:  # D54
    result = roll({"kind": "learning", "talent_score": 12, "level": 4, "until_learned": True}, 10, 9)
    assert (result.outcome["learned"], result.outcome["days"]) == (True, 2)
    assert [r["target"] for r in result.outcome["rolls"]] == [12, 13]


def test_it_learns_a_capacity_over_days() -> None:  # D55
    result = roll({"kind": "learning", "talent_score": 10, "level": 3, "until_learned": True}, 9, 9, 8)
    assert (result.outcome["learned"], result.outcome["days"]) == (True, 3)
    day2 = roll({"kind": "learning", "talent_score": 10, "level": 3, "day": 2}, 9)
    assert (day2.outcome["learned"], day2.outcome["next_day"]) == (False, 3)


# ---- §4.8-§4.9 damage and wake-up -------------------------------------------------------------------------
def test_it_computes_damage() -> None:  # D36, D38, D39
    assert roll({"kind": "damage", "margin": 8, "damage_x": 2}, 15).outcome["damage"] == 17
    assert (
        roll({"kind": "damage", "margin": 4, "damage_x": 1, "damage_type": "lucidite", "extras": [1]}, 7).outcome[
            "damage"
        ]
        == 9
    )
    assert roll({"kind": "damage", "margin": 0, "damage_x": -3}, 1).outcome["damage"] == 0
    assert roll({"kind": "damage", "margin": 0, "damage_x": 0}, 1).tags == []  # A35: damage dice give no XP


def test_it_rejects_extras_above_one() -> None:  # D42
    with pytest.raises(RulesError) as exc:
        roll({"kind": "damage", "margin": 3, "extras": [1, 1, 2]})
    assert exc.value.errors[0].path == "extras.2"


@pytest.mark.parametrize(("el", "natural", "woke"), [(1, 1, False), (2, 1, True), (2, 2, False), (11, 10, True)])
def test_it_wakes_only_under_current_lucidity(el: int, natural: int, woke: bool) -> None:  # D41, L119
    assert roll({"kind": "wake_up", "el_current": el}, natural).outcome["woke"] is woke


# ---- odds and properties --------------------------------------------------------------------------------------
def test_it_gives_exact_odds() -> None:
    odds = present(SYSTEM.odds({"kind": "test", "target": 12}, SETTINGS))
    assert odds["success"] == 12 / 20 and odds["crit_failure"] == 1 / 20
    assert present(SYSTEM.odds({"kind": "test", "target": 30}, SETTINGS))["success"] == 19 / 20
    assert present(SYSTEM.odds({"kind": "test", "target": -5}, SETTINGS))["success"] == 1 / 20
    assert (
        present(SYSTEM.odds({"kind": "test", "target": 12, "required_margin": 3}, SETTINGS))["meets_required"] == 9 / 20
    )
    assert SYSTEM.odds({"kind": "damage", "margin": 1}, SETTINGS) is None


@given(st.integers(-10, 40), st.integers(1, 20), st.integers(-5, 5))
def test_property_naturals_decide_criticals(target: int, natural: int, die_mod: int) -> None:
    o = evaluate(target, natural, die_modifier=die_mod)
    if natural == 20:
        assert o["outcome"] == "crit_failure"
    elif natural == 1:
        assert o["outcome"] == "crit_success"
    else:
        assert o["success"] is (natural + die_mod <= target)
    assert (o["success_margin"] or 0) >= 0 and (o["failure_margin"] or 0) >= 0


@given(st.integers(-5, 30), st.integers(2, 19), st.integers(-5, 30), st.integers(2, 19))
def test_property_ties_go_to_the_defender(a: int, an: int, d: int, dn: int) -> None:
    ra, rd = evaluate(a, an), evaluate(d, dn)
    result = opposed(ra, rd)
    if ra["success"] and rd["success"] and ra["success_margin"] == rd["success_margin"]:
        assert result["winner"] == "defender"
    if not ra["success"]:
        assert result["active_succeeds"] is False


def test_it_gives_exact_opposed_odds() -> None:
    even = present(SYSTEM.odds({"kind": "opposed_test", "target": 10, "defender_target": 10}, SETTINGS))
    assert even["active"] < even["defender"]  # ties go to the defender
    assert abs(even["active"] + even["defender"] + even["nobody"] - 1) < 1e-9
    alone = present(SYSTEM.odds({"kind": "opposed_test", "target": 12}, SETTINGS))
    assert alone["active"] == 12 / 20
    # brute-force cross-check against the resolver
    wins = sum(
        roll({"kind": "opposed_test", "target": 10, "defender_target": 10}, a, d).outcome["contest"]["winner"]
        == "active"
        for a in range(1, 21)
        for d in range(1, 21)
    )
    assert even["active"] == wins / 400
