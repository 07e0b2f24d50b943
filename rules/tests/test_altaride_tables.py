"""Cost tables of Altaride (spec §3.4, §6.1 S1/S11/S12/S14/S21/S22, §6.2 D11/D56/D58/D66/D67)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.altaride import tables as T

# spec §3.4.1: from 5 to 6..15
TALENT_FROM_5 = [30, 65, 105, 150, 200, 255, 315, 380, 450, 525]


@pytest.mark.parametrize(("to", "expected"), list(zip(range(6, 16), TALENT_FROM_5, strict=True)))
def test_it_matches_the_talent_matrix_first_row(to: int, expected: int) -> None:
    assert T.talent_cost(5, to) == expected


@pytest.mark.parametrize(
    ("frm", "to", "expected"),
    [(6, 7, 35), (6, 15, 495), (9, 13, 230), (10, 11, 55), (12, 14, 135), (14, 15, 75), (13, 15, 145), (8, 12, 210)],
)
def test_it_matches_the_talent_matrix(frm: int, to: int, expected: int) -> None:
    assert T.talent_cost(frm, to) == expected


@pytest.mark.parametrize(
    ("to", "step", "cumulative"),
    [(16, 80, 605), (17, 85, 690), (18, 90, 780), (19, 95, 875), (20, 100, 975)],
)
def test_it_prices_talents_up_to_twenty(to: int, step: int, cumulative: int) -> None:
    assert T.talent_step_cost(to) == step
    assert T.talent_cost(5, to) == cumulative


def test_it_costs_2400_for_all_talents_at_ten() -> None:  # S1, L55
    assert 12 * T.talent_cost(5, 10) == 2400
    assert 12 * T.talent_cost(1, 10) == 3240  # from base 1 it would not match (A2)


@pytest.mark.parametrize(("n", "total"), [(11, 3060), (12, 3780), (13, 4560), (15, 6300)])
def test_it_matches_derived_all_talent_facts(n: int, total: int) -> None:
    assert 12 * T.talent_cost(5, n) == total


SKILL_FROM_0 = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78, 91, 105, 120]


@pytest.mark.parametrize(("to", "expected"), list(zip(range(1, 16), SKILL_FROM_0, strict=True)))
def test_it_matches_the_skill_matrix_first_row(to: int, expected: int) -> None:
    assert T.skill_cost(0, to) == expected


@pytest.mark.parametrize(
    ("frm", "to", "expected"),
    [(1, 2, 2), (3, 7, 22), (5, 15, 105), (9, 12, 33), (13, 15, 29), (14, 15, 15), (0, 16, 136), (0, 20, 210)],
)
def test_it_matches_the_skill_matrix(frm: int, to: int, expected: int) -> None:
    assert T.skill_cost(frm, to) == expected


MAGIC = {
    2: (20, 20, 10, 10),
    3: (30, 50, 15, 25),
    4: (40, 90, 20, 45),
    5: (50, 140, 25, 70),
    6: (60, 200, 30, 100),
    7: (70, 270, 35, 135),
    8: (80, 350, 40, 175),
    9: (90, 440, 45, 220),
    10: (100, 540, 50, 270),
}


@pytest.mark.parametrize("level", sorted(MAGIC))
def test_it_matches_the_magic_level_table(level: int) -> None:  # §3.4.4, S12, S14
    step, cumulative, e_step, e_cumulative = MAGIC[level]
    assert T.magic_level_step_cost(level) == step
    assert T.magic_level_cost(1, level) == cumulative
    assert T.magic_level_step_cost(level, elemental=True) == e_step
    assert T.magic_level_cost(1, level, elemental=True) == e_cumulative


def test_it_includes_level_one_in_school_access() -> None:  # A30
    assert T.magic_level_step_cost(1) == 0
    assert T.magic_level_cost(1, 10) == 540  # S12 "soit 540 points"
    assert 2 * T.magic_level_cost(1, 10, elemental=True) == 540  # D58
    assert T.magic_level_cost(1, 5) == 140  # D56


def test_it_prices_the_other_creation_items() -> None:
    assert T.endurance_cost(1) == 2  # S22
    assert T.school_access_cost("enchanteurs") == 100  # S23
    assert T.school_access_cost("sorciers") == 0  # L142
    assert T.capacity_cost(2) == 10  # L221
    assert T.scruples_cost(14) == 4  # S11
    assert T.scruples_cost(7) == 3  # D67
    assert T.aptitude_step_cost(2, 10) == 2 and T.aptitude_step_cost(3, 10) == 3  # S21
    assert T.aptitude_cost(4, 10) == 19  # D66


def test_it_groups_twelve_talents_in_four_domains() -> None:
    assert len(T.TALENTS) == 12 and len(set(T.TALENTS)) == 12
    assert T.DOMAINS["OCCULTE"] == ("INC", "MAN", "RUN")
    assert T.POOL_DOMAIN["EL"] == "SOCIAL"
    assert T.OBJECT_RUNES_SCORE == 10  # S17


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_property_talent_cost_is_monotonic_and_additive(a: int, b: int, c: int) -> None:
    lo, mid, hi = sorted((a, b, c))
    assert T.talent_cost(lo, hi) == T.talent_cost(lo, mid) + T.talent_cost(mid, hi)
    assert T.talent_cost(lo, hi) >= T.talent_cost(lo, mid) >= 0
    assert T.talent_cost(lo, hi + 1) > T.talent_cost(lo, hi)


@given(st.integers(0, 40), st.integers(0, 40))
def test_property_skill_and_magic_costs_are_monotonic(a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    assert T.skill_cost(0, hi) >= T.skill_cost(0, lo)
    assert T.skill_cost(0, hi + 1) > T.skill_cost(0, hi)
    assert T.skill_cost(0, hi) == hi * (hi + 1) // 2
    lo_m, hi_m = min(lo, 10), min(hi, 10)
    assert T.magic_level_cost(1, hi_m) >= T.magic_level_cost(1, lo_m)
    assert T.aptitude_cost(hi, 7) >= T.aptitude_cost(lo, 7)
    assert T.capacity_cost(hi + 1) > T.capacity_cost(hi)
