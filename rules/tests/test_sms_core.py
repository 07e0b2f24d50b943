"""SMS core: action score, variable die, resolution, stakes, degrees (spec §4.1–4.5, §6 T10–T12, D1–D5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.base import ScriptedRandom
from rules.sms.core import (
    action_score,
    choose_die,
    die_class,
    difficulty_die,
    quality_for_offset,
    resolve_die,
    resolve_with_degrees,
    round_die,
    score_from_modules,
    stake_for_die,
    success_probability,
)


# spec §6.2 D2 – die arithmetic
@pytest.mark.parametrize(
    ("base", "adjustments", "expected"),
    [
        (6, [1, 2], 10),
        (6, [-1, -2], 4),
        (4, [-3, -2], 0),
        (2, [-1], 2),
        (8, [4, 2, -2], 12),
        (12, [1], 14),
        (8, [-8], 0),
        # T10 (L264): D6 ±1 ±2 → D3 → D4 / D9 → D10
        (6, [+1, +2], 10),
        (6, [-1, -2], 4),
        # T6 (L194): base D8 + critical (+4) = D12
        (8, [4], 12),
        # T7 (L198): base D8 − medium (2) = D6
        (8, [-2], 6),
        # T8 (L224): leather −2 and mortal −6 lower the die by 8
        (12, [-2, -6], 4),
        # T9 (L228): D6 + leather = D8
        (6, [2], 8),
    ],
)
def test_it_rounds_summed_dice_once_up(base, adjustments, expected):
    assert difficulty_die(base, adjustments) == expected


def test_it_clamps_the_action_score_to_one():
    # L95: negative or null → 1 ; D1 third vector
    assert action_score(-2) == 1
    assert action_score(0) == 1
    assert action_score(5) == 5


# spec §6.2 D1
def test_it_sums_modules_with_resistive_reduction():
    fort, epee = {"kind": "positive", "rank": 2}, {"kind": "positive", "rank": 3}
    light, serious = {"kind": "negative", "rank": 1}, {"kind": "negative", "rank": 2}
    assert score_from_modules([fort, epee, light, serious])["score"] == 2
    pain = {"kind": "resistive", "rank": 2}
    assert score_from_modules([fort, epee, light, serious, pain])["score"] == 4
    assert score_from_modules([{"kind": "positive", "rank": 1}, {"kind": "negative", "rank": 3}])["score"] == 1


@pytest.mark.parametrize(("wounds", "penalty"), [([1], 0), ([1, 1], 0), ([2, 1], 1), ([4], 2)])
def test_it_applies_douleur_resistance_t1(wounds, penalty):
    # T1 (L47) and D1: «Résistance à la douleur» rank 2 against wound penalties
    mods = [{"kind": "negative", "rank": w, "domain": "wound"} for w in wounds]
    mods.append({"kind": "resistive", "rank": 2, "domain": "wound"})
    out = score_from_modules([{"kind": "positive", "rank": 10}, *mods])
    assert out["negative"] == penalty
    assert out["score"] == 10 - penalty


def test_it_keeps_resistive_to_its_domain_and_as_positive_when_gm_allows():
    mods = [
        {"kind": "negative", "rank": 2, "domain": "fear"},
        {"kind": "resistive", "rank": 2, "domain": "pain"},
        {"kind": "positive", "rank": 3},
    ]
    assert score_from_modules(mods)["score"] == 1
    # L47: resisting torture, the resistive module counts as positive
    assert score_from_modules([{"kind": "resistive", "rank": 2, "as_positive": True}])["score"] == 2


def test_it_ignores_removable_module_when_object_is_lost():
    # L53
    mods = [{"kind": "positive", "rank": 3, "possessed": False}, {"kind": "positive", "rank": 1}]
    assert score_from_modules(mods)["score"] == 1


# spec §6.2 D3 – resolve
@pytest.mark.parametrize(
    ("score", "die", "draws", "success", "stake", "rolled"),
    [
        (5, 4, [], True, "none", False),
        (4, 4, [], True, "none", False),
        (3, 8, [3], True, "none", True),
        (3, 8, [4], False, "moderate", True),
        (1, 2, [1], True, "none", True),
        (1, 2, [2], False, "none", True),
        (1, 0, [], True, "none", False),
        (14, 14, [], True, "none", False),
        (13, 14, [], False, "critical", False),
    ],
)
def test_it_resolves_against_the_die(score, die, draws, success, stake, rolled):
    rng = ScriptedRandom(draws)
    out = resolve_die(score, die, rng)
    assert out["success"] is success
    assert out["stake"] == stake
    assert (out["roll"] is not None) is rolled
    assert rng.remaining == 0


def test_it_gives_exact_odds():
    assert success_probability(3, 8) == 0.375
    assert success_probability(8, 8) == 1.0
    assert success_probability(0, 0) == 1.0
    assert success_probability(11, 14) == 0.0


# spec §6.2 D5 – stakes
@pytest.mark.parametrize(
    ("die", "stake"),
    [(2, "none"), (4, "none"), (6, "minor"), (8, "moderate"), (10, "major"), (12, "critical"), (14, "critical")],
)
def test_it_maps_stakes_to_dice(die, stake):
    assert stake_for_die(die) == stake


# spec §6.2 D4 and T11/T12 – degrees
def test_it_handles_degrees_of_success():
    out = resolve_with_degrees(5, 8, 4, "relative", ScriptedRandom([]))
    assert out["success"] and out["automatic"] and out["quality"] == "pathetic"
    out = resolve_with_degrees(5, 8, 12, "relative", ScriptedRandom([5]))
    assert out["success"] and out["quality"] == "excellent"
    out = resolve_with_degrees(5, 8, 12, "relative", ScriptedRandom([6]))
    assert not out["success"] and out["stake"] == "critical"
    # T11: D14 from D8 is clamped to D12 («excellent» at best)
    assert choose_die(8, 14, 5) == 12
    out = resolve_with_degrees(15, 8, 14, "relative", ScriptedRandom([]))
    assert out["success"] and out["die"] == 14 and out["quality"] == "perfect"
    # T12: absolute threshold, a lower die is a failure
    out = resolve_with_degrees(3, 6, 4, "absolute", ScriptedRandom([]))
    assert out["success"] is False
    out = resolve_with_degrees(3, 6, 4, "relative", ScriptedRandom([2]))
    assert out["success"] and out["quality"] == "poor"  # the stew «moins bon que bon»


@pytest.mark.parametrize(
    ("offset", "label"),
    [
        (-6, "deplorable"),
        (-4, "pathetic"),
        (-2, "poor"),
        (0, "average"),
        (2, "good"),
        (4, "excellent"),
        (6, "perfect"),
        (10, "perfect"),
    ],
)
def test_it_labels_quality(offset, label):
    assert quality_for_offset(offset) == label


def test_it_computes_die_class_as_half():
    assert [die_class(n) for n in (0, 2, 4, 6, 8, 10, 12)] == [0, 1, 2, 3, 4, 5, 6]


# ---- property tests on the die arithmetic -------------------------------------------------
@given(st.integers(min_value=-50, max_value=50))
def test_property_rounded_die_is_zero_or_even_and_not_lower(value):
    die = round_die(value)
    assert die == 0 or (die % 2 == 0 and die >= 2)
    if value >= 1:
        assert value <= die <= value + 1
    else:
        assert die == 0


@given(st.integers(min_value=0, max_value=12), st.lists(st.integers(min_value=-3, max_value=3), max_size=6))
def test_property_rounding_happens_once_after_the_sum(base, adjustments):
    assert difficulty_die(base, adjustments) == round_die(base + sum(adjustments))


@given(
    st.integers(min_value=-20, max_value=30),
    st.sampled_from([0, 2, 4, 6, 8, 10, 12, 14, 16]),
    st.integers(min_value=1, max_value=12),
)
def test_property_resolution_bounds(score, die, roll):
    roll = min(roll, die) if die else 1
    out = resolve_die(score, die, ScriptedRandom([roll] if 0 < die <= 12 and action_score(score) < die else []))
    assert out["score"] >= 1
    if out["roll"] is not None:
        assert 1 <= out["roll"] <= die <= 12
        assert out["success"] is (out["roll"] <= out["score"])
    else:
        assert out["success"] is (die == 0 or out["score"] >= die)
    if out["success"]:
        assert out["stake"] == "none"


@given(
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=-20, max_value=30),
    st.integers(min_value=-5, max_value=20),
)
def test_property_chosen_die_is_clamped(gm_die, requested, score):
    die = choose_die(gm_die, requested, score)
    assert die == 0 or die % 2 == 0
    assert 0 <= die
    assert die <= 12 or die <= score


@given(st.integers(min_value=-20, max_value=30), st.sampled_from([2, 4, 6, 8, 10, 12]))
def test_property_probability_matches_exhaustive_count(score, die):
    wins = sum(1 for r in range(1, die + 1) if r <= action_score(score))
    assert success_probability(score, die) == pytest.approx(wins / die)
