"""Clefs de l'Aube: semi-random creation (seed L517-L621; spec §3, TV-S01..S04, D28-D38, D43).

TV-S04: the seed's creation-skills example starts from PH 6 although PH
became 5 in the previous example (L565-L567 vs L615-L616), a misprint (G5).
The corrected arithmetic is tested: PH 5 + 10 aspect-PX → PH 6 with 4 PX
left (the text's "de 6 à 7 (il lui reste 3 PX)" is also checked on the
ladder itself from PH 6).
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import RulesError, ScriptedRandom, SeededRandom
from rules.clefs import SYSTEM, aspect_ladder, creation_roll, replay_creation_roll
from rules.clefs.creation import aspect_exchange_errors, means_exchange_points
from rules.clefs.derive import means_errors
from rules.tests.test_clefs_helpers import MARIE_PIERRE_DRAWS, marie_pierre_roll, marie_pierre_sheet


def codes(errors):
    return {(e.path, e.code) for e in errors}


def test_it_rolls_marie_pierre_aspects_tv_s01():
    """L542-L547: (2,2) → 7, (2,1) → 6, third 30 − (7 + 6) = 17."""
    record = marie_pierre_roll()
    assert record["aspect_dice"] == [[2, 2], [2, 1]]
    assert record["aspect_results"] == [7, 6, 17]


def test_it_rolls_marie_pierre_means_tv_s03():
    """L586-L589: −3, +2, +5 and their opposites +3, −2, −5."""
    record = marie_pierre_roll()
    assert record["means_results"] == [-3, 2, 5]
    assert sorted(record["means_values"]) == [-5, -3, -2, 2, 3, 5]
    assert record["draws"] == MARIE_PIERRE_DRAWS


def test_it_replays_a_creation_roll_identically():
    for seed in range(30):
        for aspect_method in ("ROLL_STANDARD", "ROLL_LOW", "FIXED_10"):
            record = creation_roll(SeededRandom(seed), aspect_method, "ROLL")
            assert replay_creation_roll(record) == record
            assert creation_roll(ScriptedRandom(record["draws"]), aspect_method, "ROLL") == record
    assert SYSTEM.creation_roll(ScriptedRandom(MARIE_PIERRE_DRAWS)) == marie_pierre_roll()


@pytest.mark.parametrize(
    ("method", "draws", "results"),
    [
        ("ROLL_STANDARD", [6, 6, 6, 6], [15, 15, 0]),  # D28
        ("ROLL_STANDARD", [1, 1, 1, 1], [5, 5, 20]),  # D29
        ("ROLL_LOW", [2, 2, 2, 1], [2, 1, 17]),  # D30
        ("FIXED_10", [], [10, 10, 10]),  # L525
    ],
)
def test_it_computes_aspect_results(method, draws, results):
    assert creation_roll(ScriptedRandom(draws), method, "ZERO")["aspect_results"] == results


@pytest.mark.parametrize(("dice", "value"), [([1, 1], -5), ([3, 4], 0), ([6, 6], 5)])
def test_it_computes_means_results_d31(dice, value):
    record = creation_roll(ScriptedRandom([*dice, *dice, *dice]), "FIXED_10", "ROLL")
    assert record["means_results"] == [value] * 3


def test_it_rejects_unknown_methods():
    with pytest.raises(RulesError):
        creation_roll(ScriptedRandom([]), "ROLL_HIGH", "ROLL")
    with pytest.raises(RulesError):
        creation_roll(ScriptedRandom([]), "FIXED_10", "SOME")


def test_it_validates_marie_pierre_aspect_exchanges_tv_s02():
    """L561-L569: PH 6 → 5 and ME 17 → 16 both into MY 7 → 9; 2 of 5 exchanges."""
    initial = {"PH": 6, "ME": 17, "MY": 7}
    assert aspect_exchange_errors(initial, {"PH": 5, "ME": 16, "MY": 9}) == []
    # "Elle ne peut pas augmenter son Mental au-delà de 17" (nor above 15 by exchange)
    assert codes(aspect_exchange_errors(initial, {"PH": 5, "ME": 18, "MY": 7})) == {
        ("aspects.ME", "aspect_raised_above_15")
    }
    # "ne peut plus emprunter dans son Physique qui est rendu à 5"
    assert ("aspects.PH", "aspect_lowered_below_5") in codes(
        aspect_exchange_errors(initial, {"PH": 4, "ME": 17, "MY": 9})
    )


@pytest.mark.parametrize(
    ("final", "expected"),
    [
        ({"PH": 10, "ME": 12, "MY": 8}, set()),  # D32
        ({"PH": 11, "ME": 11, "MY": 8}, {("aspects", "too_many_aspect_exchanges")}),  # D33
        ({"PH": 4, "ME": 17, "MY": 9}, {("aspects.PH", "aspect_lowered_below_5")}),  # D34
        ({"PH": 6, "ME": 18, "MY": 6}, {("aspects.ME", "aspect_raised_above_15")}),  # D35
        ({"PH": 6, "ME": 17, "MY": 8}, {("aspects", "aspect_sum_changed")}),
    ],
)
def test_it_checks_aspect_exchanges_d32_d35(final, expected):
    assert codes(aspect_exchange_errors({"PH": 6, "ME": 17, "MY": 7}, final)) == expected


@pytest.mark.parametrize(
    ("means", "expected"),
    [
        ({"PU": -5, "RE": 5, "MA": 0, "PR": 0, "EX": 0, "PE": 0}, set()),  # D36
        ({"PU": 5, "RE": -1, "MA": -4, "PR": 0, "EX": 0, "PE": 0}, {("means.PU", "means_pair")}),  # D37
        ({"PU": 1, "RE": -1, "MA": 0, "PR": 0, "EX": 3, "PE": -3}, {("means.EX", "means_pair")}),  # D38
        (
            {"PU": 0, "RE": 0, "MA": 6, "PR": 0, "EX": -6, "PE": 0},
            {("means.MA", "means_range"), ("means.EX", "means_range"), ("means.MA", "means_pair")},
        ),
        ({"PU": 1, "RE": 0, "MA": 0, "PR": 0, "EX": 0, "PE": 0}, {("means", "means_sum")}),
        ({"PU": 3, "RE": -1, "MA": 4, "PR": 2, "EX": -5, "PE": -3}, set()),  # TV-S03 final
        ({"PU": 5, "RE": -2, "MA": 3, "PR": 2, "EX": -5, "PE": -3}, {("means.PU", "means_pair")}),  # TV-S03 placed
    ],
)
def test_it_checks_means_constraints(means, expected):
    """Constraints M1-M5 (L318-L341, L578-L579)."""
    assert {(p, c) for p, c, _ in means_errors(means)} == expected


def test_it_counts_marie_pierre_means_exchange_points_tv_s03():
    placed = {"EX": -5, "PE": -3, "MA": 3, "PR": 2, "PU": 5, "RE": -2}
    final = {"PU": 3, "RE": -1, "MA": 4, "PR": 2, "EX": -5, "PE": -3}
    assert means_exchange_points(placed, final) == 2


def test_it_derives_marie_pierre_after_skills_tv_s04():
    """Corrected arithmetic (G5): PH 5 → 6 (4 PX left), ME 16 → 17 (3 left), MY 9 with 5 PX."""
    sheet = marie_pierre_sheet()
    assert SYSTEM.validate_sheet(sheet) == []
    derived = SYSTEM.derive(sheet)
    assert derived["aspects"] == {"PH": 6, "ME": 17, "MY": 9}
    assert derived["aspect_px"] == {"PH": 4, "ME": 3, "MY": 5}
    assert derived["pending_means_exchanges"] == 0  # creation skills give no means exchange (L605-L606)
    # The seed's own (misprinted) starting PH 6: 10 aspect-PX → 7 with 3 left, as printed.
    assert aspect_ladder(6, 10) == (7, 3, 1)


def test_it_derives_the_compagnon_trade_d43():
    """D43 (G10 (a)): skills 15 (PH) and 5 (ME) on PH 10, ME 10 → PH 11 (4 PX), ME 10 (5 PX)."""
    sheet = {
        "aspects": {"PH": 10, "ME": 10, "MY": 10},
        "skills": [
            {"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": 15},
            {"name": "Lettres", "aspect": "ME", "default_means": "EX", "nc": 5},
        ],
    }
    derived = SYSTEM.derive(sheet)
    assert derived["aspects"]["PH"] == 11 and derived["aspect_px"]["PH"] == 4
    assert derived["aspects"]["ME"] == 10 and derived["aspect_px"]["ME"] == 5


def test_it_flags_a_tampered_roll():
    sheet = marie_pierre_sheet()
    sheet["creation"]["roll"]["aspect_results"] = [8, 6, 16]
    assert ("creation.roll", "roll_invalid") in codes(SYSTEM.validate_sheet(sheet))
    sheet = marie_pierre_sheet()
    sheet["creation"]["roll"] = {}
    assert ("creation.roll", "roll_missing") in codes(SYSTEM.validate_sheet(sheet))
    sheet = marie_pierre_sheet()
    sheet["creation"]["aspect_method"] = "ROLL_LOW"
    assert ("creation.roll", "roll_method_mismatch") in codes(SYSTEM.validate_sheet(sheet))


def test_it_checks_the_assignment_against_the_roll():
    sheet = marie_pierre_sheet()
    sheet["creation"]["aspects_assigned"] = {"PH": 7, "ME": 17, "MY": 7}
    assert ("creation.aspects_assigned", "aspects_not_from_roll") in codes(SYSTEM.validate_sheet(sheet))
    sheet = marie_pierre_sheet()
    sheet["creation"]["means_assigned"] = {"EX": -5, "PE": -3, "MA": 3, "PR": 2, "PU": 4, "RE": -1}
    assert ("creation.means_assigned", "means_not_from_roll") in codes(SYSTEM.validate_sheet(sheet))


def test_it_limits_means_exchanges_to_five_points():
    sheet = marie_pierre_sheet()
    sheet["creation"]["means_assigned"] = {"PU": 5, "RE": -5, "MA": 3, "PR": -3, "EX": 2, "PE": -2}
    sheet["means"] = {"PU": 0, "RE": 0, "MA": 0, "PR": 0, "EX": 0, "PE": 0}
    assert ("means", "too_many_means_exchanges") in codes(SYSTEM.validate_sheet(sheet))


def test_it_checks_the_skill_package():
    sheet = marie_pierre_sheet()
    sheet["skills"][0]["nc"] = 12
    assert ("skills", "skill_package_mismatch") in codes(SYSTEM.validate_sheet(sheet))
    trade = marie_pierre_sheet()
    trade["creation"]["skill_package"] = "compagnon"
    trade["skills"] = [
        {"name": "Enchantement", "aspect": "ME", "default_means": "EX", "nc": 15},
        {"name": "Dague", "aspect": "PH", "default_means": "PR", "nc": 5},
    ]
    assert ("creation.skill_package", "package_not_allowed") in codes(SYSTEM.validate_sheet(trade))
    assert SYSTEM.validate_sheet(trade, {"allow_compagnon_trade": True}) == []


def test_it_checks_allowed_methods():
    sheet = marie_pierre_sheet()
    assert ("creation.aspect_method", "method_not_allowed") in codes(
        SYSTEM.validate_sheet(sheet, {"allow_aspect_roll_standard": False})
    )


def test_it_accepts_fixed_and_zero_creation_with_exchanges():
    """FIXED_10 + ZERO, then exchanges on both (G9: the 5 means points apply to ZERO too)."""
    sheet = {
        "creation": {
            "aspect_method": "FIXED_10",
            "means_method": "ZERO",
            "roll": {},
            "aspects_assigned": {"PH": 10, "ME": 10, "MY": 10},
            "means_assigned": dict.fromkeys(("PU", "RE", "MA", "PR", "EX", "PE"), 0),
            "skill_package": "standard",
        },
        "aspects": {"PH": 13, "ME": 8, "MY": 9},
        "means": {"PU": 2, "RE": 0, "MA": 1, "PR": 0, "EX": -3, "PE": 0},
        "skills": [
            {"name": f"S{i}", "aspect": "PH", "default_means": "PU", "nc": nc} for i, nc in enumerate((10, 10, 5, 5, 5))
        ],
    }
    assert SYSTEM.validate_sheet(sheet) == []
    assert SYSTEM.derive(sheet)["aspects"]["PH"] == 15  # 13 + 35 PX: 14 (14), 15 (15), 6 left
    budget = SYSTEM.creation_budget(sheet)
    assert budget.valid and budget.pools["aspect_exchanges"]["spent"] == 3
    assert budget.pools["means_exchanges"]["spent"] == 3


def test_it_reports_errors_in_the_budget():
    sheet = copy.deepcopy(marie_pierre_sheet())
    sheet["means"]["PU"] = 5
    budget = SYSTEM.creation_budget(sheet)
    assert not budget.valid
    assert ("means", "means_sum") in codes(budget.errors)


def test_it_skips_creation_checks_for_free_sheets():
    sheet = {
        "creation": {"skill_package": "free", "aspect_method": "FIXED_10", "means_method": "ZERO"},
        "aspects": {"PH": 18, "ME": 3, "MY": 12},
        "means": dict.fromkeys(("PU", "RE", "MA", "PR", "EX", "PE"), 0),
        "skills": [{"name": "Hache", "aspect": "PH", "default_means": "PU", "nc": 14}],
    }
    assert SYSTEM.validate_sheet(sheet) == []
    assert SYSTEM.derive(sheet)["aspects"] == {"PH": 18, "ME": 3, "MY": 12}


def test_it_reports_field_errors_with_dotted_paths():
    sheet = marie_pierre_sheet()
    sheet["skills"][1]["nc"] = 25
    sheet["skills"][2]["aspect"] = "XX"
    found = codes(SYSTEM.validate_sheet(sheet))
    assert ("skills.1.nc", "max_value") in found
    assert ("skills.2.aspect", "invalid_choice") in found


def test_it_rejects_duplicate_skills_under_the_same_aspect():
    sheet = marie_pierre_sheet()
    sheet["skills"][1]["name"] = "enchantement"
    assert ("skills.1.name", "duplicate_skill") in codes(SYSTEM.validate_sheet(sheet))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(["ROLL_STANDARD", "ROLL_LOW"]))
def test_it_always_sums_the_aspects_to_the_method_total(seed, method):
    record = creation_roll(SeededRandom(seed), method, "ROLL")
    total = 30 if method == "ROLL_STANDARD" else 20
    assert sum(record["aspect_results"]) == total
    assert 0 <= record["aspect_results"][2] <= 20
    assert sum(record["means_values"]) == 0
    assert all(-5 <= v <= 5 for v in record["means_values"])


def test_it_matches_the_third_aspect_distribution_d50():
    """D50: third = 24 − 4d6 in both methods; P(> 15) = P(< 5) = 70/1296."""
    from fractions import Fraction
    from itertools import product

    for method in ("ROLL_STANDARD", "ROLL_LOW"):
        counts: dict[int, int] = {}
        for dice in product(range(1, 7), repeat=4):
            third = creation_roll(ScriptedRandom(list(dice)), method, "ZERO")["aspect_results"][2]
            counts[third] = counts.get(third, 0) + 1
        assert [counts.get(v, 0) for v in range(21)] == [
            1,
            4,
            10,
            20,
            35,
            56,
            80,
            104,
            125,
            140,
            146,
            140,
            125,
            104,
            80,
            56,
            35,
            20,
            10,
            4,
            1,
        ]
        above = Fraction(sum(c for v, c in counts.items() if v > 15), 1296)
        below = Fraction(sum(c for v, c in counts.items() if v < 5), 1296)
        assert above == below == Fraction(70, 1296)


def test_a_new_placement_is_not_an_exchange():
    """Issue #19 item 3: 12/6/12 placed again as 6/12/12 restarts the exchanges (L523-L525, L550)."""
    from rules import get_system

    system = get_system("clefs-de-l-aube")
    before = {"creation": {"aspects_assigned": {"PH": 12, "ME": 6, "MY": 12}}, "aspects": {"PH": 13, "ME": 6, "MY": 11}}
    after = {"creation": {"aspects_assigned": {"PH": 6, "ME": 12, "MY": 12}}, "aspects": {"PH": 13, "ME": 6, "MY": 11}}
    followed = system.follow_edit(before, after)
    assert followed["aspects"] == {"PH": 6, "ME": 12, "MY": 12}
    assert after["aspects"] == {"PH": 13, "ME": 6, "MY": 11}  # inputs untouched
    # Final values edited in the same change are the player's: kept.
    edited = {**after, "aspects": {"PH": 7, "ME": 11, "MY": 12}}
    assert system.follow_edit(before, edited)["aspects"] == {"PH": 7, "ME": 11, "MY": 12}
    # Means: same reading (L576-L577).
    m_before = {"creation": {"means_assigned": {"PU": 2, "RE": -2}}, "means": {"PU": 2, "RE": -2}}
    m_after = {"creation": {"means_assigned": {"PU": -2, "RE": 2}}, "means": {"PU": 2, "RE": -2}}
    assert system.follow_edit(m_before, m_after)["means"] == {"PU": -2, "RE": 2}
