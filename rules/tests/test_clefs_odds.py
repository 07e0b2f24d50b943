"""Clefs de l'Aube: exact odds (spec §4.13, D45-D49), checked against enumeration and icepool.

The enumerator below walks every draw sequence (d20, critical die, open-ended
extra d20s up to three 20s in a row) through the real ``evaluate`` function;
a sequence of three 20s adds at least 60, which decides every ND in the
tested ranges, so the enumeration is exact.
"""

from __future__ import annotations

from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import RulesError
from rules.clefs import SYSTEM, exact_odds
from rules.clefs.resolution import evaluate, must_roll, p_open_ended_greater
from rules.tests import present

DEPTH = 3


def _extras():
    """(probability, extra d20 list or None for 'at least 80') of the open-ended d20."""
    out: list[tuple[Fraction, list[int] | None]] = []
    prefix: list[int] = []
    p = Fraction(1)
    for _ in range(DEPTH):
        for x in range(1, 20):
            out.append((p / 20, [*prefix, x]))
        prefix = [*prefix, 20]
        p /= 20
    out.append((p, None))
    return out


EXTRAS = _extras()


def enumerate_met(inputs, nd):
    """P(ND met) and P(success) by brute force over the draws."""
    inputs = {**inputs, "nd": nd}
    if not must_roll(inputs):
        out = evaluate(inputs, [])
        return Fraction(int(out["nd_met"])), Fraction(int(out["success"]))
    met = Fraction(0)
    success = Fraction(0)
    k = inputs.get("crit_die")
    for r in range(1, 21):
        if not k:
            out = evaluate(inputs, [r])
            met += Fraction(int(out["nd_met"]), 20)
            success += Fraction(int(out["success"]), 20)
            continue
        base = Fraction(1, 20 * k)
        out = evaluate(inputs, [r, 2])  # every non-trigger face gives the same result
        met += base * (k - 1) * int(out["nd_met"])
        success += base * (k - 1) * int(out["success"])
        for p, extra in EXTRAS:
            if extra is None:  # ≥ 60 added: a success beats any tested ND, a failure stays failed
                out = evaluate({**inputs, "crit_die": None}, [r])
                met += base * p * int(out["level"] == "SUCCESS")
                success += base * p * int(out["success"])
                continue
            out = evaluate(inputs, [r, 1, *extra])
            met += base * p * int(out["nd_met"])
            success += base * p * int(out["success"])
    return met, success


def inputs_for(ca, crit=None, force=False, negative=False):
    return {
        "aspect": ca,
        "means": 0,
        "skill_nc": None,
        "handicaps": [],
        "advantages": [],
        "force_roll": force,
        "crit_die": crit,
        "nd": None,
        "negative_nd": negative,
    }


@pytest.mark.parametrize(
    ("vector", "ca", "crit", "force", "nd", "expected"),
    [
        ("D45", 12, None, False, 5, Fraction(7, 20)),
        ("D46", 12, 10, False, 5, Fraction(149, 400)),
        ("D47", 12, 10, False, 15, Fraction(69, 2000)),
        ("D47b", 12, None, False, 15, Fraction(0)),
        ("D48", -18, 10, True, -5, Fraction(7, 4000)),
    ],
)
def test_it_matches_spec_odds_vectors(vector, ca, crit, force, nd, expected):
    got = exact_odds(inputs_for(ca, crit, force), [nd])["beat"][nd]
    assert got == expected, vector
    assert enumerate_met(inputs_for(ca, crit, force), nd)[0] == expected


def test_it_knows_the_open_ended_expectation_d49():
    """D49: E[X] = 210/19; P(X > m) from the closed form equals icepool's exploding d20."""
    expectation = sum(p_open_ended_greater(m) for m in range(0, 1200))  # E[X] = Σ P(X > m)
    assert abs(expectation - Fraction(210, 19)) < Fraction(1, 10**40)
    exploding = icepool.d20.explode(depth=5)
    for m in range(0, 90):
        assert p_open_ended_greater(m) == exploding.probability(">", m), m


@pytest.mark.parametrize(("ca", "p"), [(1, "1/20"), (2, "1/10"), (5, "1/4"), (12, "3/5"), (19, "19/20"), (24, "19/20")])
def test_it_gives_success_odds_of_the_spec_table(ca, p):
    """§4.13 table: P(SUCCESS) = CA/20 on 2..19, 1/20 forced at ≤ 1, 19/20 forced at ≥ 20."""
    assert exact_odds(inputs_for(ca, force=True))["success"] == Fraction(p)


def test_it_reports_odds_for_players():
    """ "70 % to succeed, 45 % to beat difficulty 5" at CA 14 (issue wording, §4.13 formula)."""
    report = present(SYSTEM.odds({"kind": "action", "aspect": 14, "nd": 5}))
    assert report["success"] == 0.7
    assert report["beat_difficulty"][5] == 0.45
    assert report["exact"]["beat_difficulty"]["5"] == "9/20"
    assert report["summary"]["en"] == "70 % to succeed, 45 % to beat difficulty 5"
    assert set(report["beat_difficulty"]) >= {0, 5, 10, 15, 20}


def test_it_reports_automatic_outcomes_and_hides_hidden_nd():
    auto = present(SYSTEM.odds({"kind": "action", "aspect": 22, "nd": 5, "nd_hidden": True}))
    assert auto["automatic"] == "AUTO_SUCCESS" and auto["success"] == 1.0
    assert "nd" not in auto and auto["nd_hidden"] is True
    assert present(SYSTEM.odds({"kind": "action", "aspect": 0}))["success"] == 0.0


def test_it_gives_negative_nd_odds_from_the_closed_form():
    """§4.13: with the switch, P = min(20, CA − ND − 1)/20 (CA 14, ND −5: 18/20; CA 19: 20/20)."""
    assert exact_odds(inputs_for(14, negative=True), [-5])["beat"][-5] == Fraction(18, 20)
    assert exact_odds(inputs_for(19, negative=True), [-5])["beat"][-5] == Fraction(1)
    assert exact_odds(inputs_for(14), [-5])["beat"][-5] == Fraction(14, 20)


def test_it_gives_confrontation_odds_by_enumeration():
    report = present(SYSTEM.odds({"kind": "confrontation", "a": {"aspect": 12}, "b": {"aspect": 12}}))
    a, b, none = (Fraction(report["winner"]["exact"][k]) for k in ("a", "b", "none"))
    assert a == b and a + b + none == 1
    # both fail: (8/20)^2; both succeed with equal °R: 12/400
    assert none == Fraction(64, 400) + Fraction(12, 400)


def test_it_gives_multiple_action_odds_with_handicaps():
    report = present(SYSTEM.odds({"kind": "multiple", "actions": [{"aspect": 15}, {"aspect": 15}]}))
    assert [r["success"] for r in report["actions"]] == [13 / 20, 10 / 20]


def test_it_rejects_bad_odds_requests():
    with pytest.raises(RulesError):
        SYSTEM.odds({"kind": "action", "aspect": "twelve"})
    assert SYSTEM.odds({"kind": "unknown"}) is None


@settings(max_examples=60, deadline=None)
@given(
    ca=st.integers(min_value=-25, max_value=30),
    nd=st.integers(min_value=-30, max_value=30),
    crit=st.sampled_from([None, 6, 10, 20]),
    force=st.booleans(),
    negative=st.booleans(),
)
def test_it_matches_enumeration_exactly(ca, nd, crit, force, negative):
    """Property: the closed forms equal brute-force enumeration of the draws, exactly."""
    inputs = inputs_for(ca, crit, force, negative)
    exact = exact_odds(inputs, [nd, None])
    met, success = enumerate_met(inputs, nd)
    assert exact["beat"][nd] == met
    assert exact["success"] == success
    assert exact["beat"][None] == success  # no ND: a success meets it (G2)


@settings(max_examples=60, deadline=None)
@given(ca=st.integers(min_value=2, max_value=19), nd=st.integers(min_value=0, max_value=25))
def test_it_matches_icepool_without_critical(ca, nd):
    """Property: P(°R > ND) = P(ND < d20 ≤ CA) computed by icepool; equals max(0, CA − ND)/20."""
    d20 = icepool.d20
    expected = d20.probability("<=", ca) - d20.probability("<=", min(nd, ca))
    got = exact_odds(inputs_for(ca), [nd])["beat"][nd]
    assert got == expected == Fraction(max(0, ca - nd), 20)


@settings(max_examples=40, deadline=None)
@given(
    ca=st.integers(min_value=2, max_value=19),
    nd=st.integers(min_value=-10, max_value=50),
    k=st.sampled_from([6, 8, 10, 12, 20]),
)
def test_it_matches_icepool_with_critical(ca, nd, k):
    """Property: the §4.13 formula with a dk critical die, against an icepool model of the roll."""
    x = icepool.d20.explode(depth=6)
    expected = Fraction(0)
    for r in range(1, ca + 1):
        plain = Fraction(int(r > nd))
        boosted = x.probability(">", nd - r) if nd - r >= 0 else Fraction(1)
        expected += Fraction(1, 20) * ((1 - Fraction(1, k)) * plain + Fraction(1, k) * boosted)
    assert exact_odds(inputs_for(ca, k), [nd])["beat"][nd] == expected


@pytest.mark.parametrize("actions", [True, 999, 2.5, "x", [{"aspect": 10}] * 11])
def test_it_rejects_a_malformed_multiple_odds_request(actions):
    """Regression: a non-list ``actions`` crashed ``odds`` with a TypeError (L1078-L1087 needs a list)."""
    with pytest.raises(RulesError):
        SYSTEM.odds({"kind": "multiple", "actions": actions})
