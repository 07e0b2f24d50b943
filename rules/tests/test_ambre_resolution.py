"""Ambre: diceless resolution (comparison with the tie setting, wound reading, spell cost)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import get_system
from rules.base import RulesError, ScriptedRandom, SeededRandom
from rules.tests import present

SYSTEM = get_system("ambre")


def test_comparison_higher_value_wins():
    result = SYSTEM.resolve(
        {"kind": "comparison", "a_value": 35, "b_value": 30, "a_label": "Cendre", "b_label": "Ariane"}, SeededRandom(1)
    )
    assert result.outcome == {"winner": "a", "margin": 5, "tie": False, "tie_rule": None}
    assert result.success is True and result.draws == []
    assert "Cendre" in result.summary.fr and "wins" in result.summary.en
    lost = SYSTEM.resolve({"kind": "comparison", "a_value": 1, "b_value": 2}, SeededRandom(1))
    assert lost.outcome["winner"] == "b" and lost.success is False


@pytest.mark.parametrize(
    "rule, tiebreak, winner, tags",
    [
        ("stalemate", (5, 1), None, ["tie"]),
        ("attribute", (5, 1), "a", ["tiebreak"]),
        ("attribute", (1, 5), "b", ["tiebreak"]),
        ("attribute", (3, 3), None, ["tie"]),
        ("gm", (5, 1), None, ["tie", "gm_decision"]),
    ],
)
def test_comparison_tie_setting(rule, tiebreak, winner, tags):
    request = {"kind": "comparison", "a_value": 20, "b_value": 20, "a_tiebreak": tiebreak[0], "b_tiebreak": tiebreak[1]}
    result = SYSTEM.resolve(request, SeededRandom(1), {"tie_rule": rule})
    assert result.outcome["winner"] == winner and result.outcome["tie"] is True and result.tags == tags


def test_odds_are_certain():
    assert SYSTEM.odds({"kind": "comparison", "a_value": 3, "b_value": 2}) == {
        "a": 1.0,
        "b": 0.0,
        "tie": 0.0,
        "exact": True,
    }
    assert present(SYSTEM.odds({"kind": "comparison", "a_value": 2, "b_value": 2}))["tie"] == 1.0
    assert SYSTEM.odds({"kind": "wound", "net": 1, "resistance": 1}) is None
    assert SYSTEM.odds({"kind": "comparison"}) is None


def test_wound_kind():
    result = SYSTEM.resolve({"kind": "wound", "net": 50, "resistance": 20, "volonte": 15}, SeededRandom(1))
    assert result.outcome == {"wound": "grave", "determined": True}
    zero = SYSTEM.resolve({"kind": "wound", "net": 3, "resistance": 0}, SeededRandom(1))
    assert zero.outcome["wound"] == "mortal" and "zero_resistance" in zero.tags


def test_spell_cost_kind():
    result = SYSTEM.resolve(
        {
            "kind": "spell_cost",
            "base_cost": 10,
            "modifications": 2,
            "instant": True,
            "energy_available": 95,
            "keys_available": 10,
        },
        SeededRandom(1),
    )
    assert (result.outcome["keys"], result.outcome["energy"], result.outcome["affordable"]) == (8, 160, False)
    assert "unaffordable" in result.tags


@pytest.mark.parametrize(
    "request_, path, code",
    [
        ({"kind": "dice"}, "kind", "unsupported"),
        ({"kind": "comparison", "a_value": 1}, "b_value", "required"),
        ({"kind": "comparison", "a_value": "x", "b_value": 1}, "a_value", "invalid_int"),
        ({"kind": "wound", "net": 1, "resistance": -1}, "resistance", "min_value"),
        ({"kind": "spell_cost", "base_cost": 10, "in_amber": True}, "real", "spell_in_amber"),
        ({"kind": "spell_cost", "base_cost": 10, "real": False, "modifications": 1}, "real", "spell_impossible"),
    ],
)
def test_bad_requests(request_, path, code):
    with pytest.raises(RulesError) as exc:
        SYSTEM.resolve(request_, SeededRandom(1))
    assert (path, code) in {(e.path, e.code) for e in exc.value.errors}


def test_non_dict_request():
    with pytest.raises(RulesError):
        SYSTEM.resolve("comparison", SeededRandom(1))  # type: ignore[arg-type]  # bad on purpose


@given(st.integers(-1000, 1000), st.integers(-1000, 1000), st.integers(0, 2**32))
def test_resolution_is_deterministic_and_replayable(a, b, seed):
    request = {"kind": "comparison", "a_value": a, "b_value": b}
    first = SYSTEM.resolve(request, SeededRandom(seed))
    replay = SYSTEM.resolve(request, ScriptedRandom(first.draws))
    assert first.to_dict() == replay.to_dict()
    assert (first.outcome["winner"] == "a") == (a > b)
