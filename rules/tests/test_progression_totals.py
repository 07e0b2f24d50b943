"""``RuleSystem.progression_reads_totals``: a system that claims its progression reads only the sums
of each currency's gains and spendings gives the same result from those sums as from every line."""

from __future__ import annotations

import random
from typing import Any

import pytest

import rules


def _totals(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    sums: dict[tuple[str, bool], int] = {}
    for entry in entries:
        key = (entry["currency"], entry["amount"] < 0)
        sums[key] = sums.get(key, 0) + entry["amount"]
    return [{"currency": c, "amount": a} for (c, _negative), a in sums.items() if a]


def _same(result: Any) -> tuple[Any, ...]:
    return (result.balances, result.flags, [n.to_dict() for n in result.notes], result.sheet)


@pytest.mark.parametrize("slug", sorted(rules.SYSTEM_MODULES))
def test_a_system_that_reads_totals_gives_the_same_result_from_them(slug: str) -> None:
    system = rules.get_system(slug)
    if not system.progression_reads_totals:
        pytest.skip(f"{slug} reads every ledger line")
    assert system.progression_entry_keys <= {"currency", "amount"}, "totals hold a currency and an amount only"
    draw = random.Random(f"totals-{slug}")
    currencies = [*system.currencies, "karma", "xp"]
    sheet = system.default_sheet()
    for _ in range(300):
        entries = [
            {"currency": draw.choice(currencies), "amount": draw.choice([0, 1, 2, 5, 30, 100, -1, -3, -40, -150])}
            for _ in range(draw.randint(0, 25))
        ]
        totals = _totals(entries)
        draw.shuffle(totals)
        assert _same(system.apply_progression(sheet, entries)) == _same(system.apply_progression(sheet, totals)), (
            entries
        )


def test_a_system_reads_every_line_unless_it_says_otherwise() -> None:
    assert rules.base.RuleSystem.progression_reads_totals is False
