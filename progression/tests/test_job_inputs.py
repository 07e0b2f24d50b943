"""The session job hands the rules the same objects for every character's three computations
(now, before the session, at the session) and shares sheets with the campaign step: the rules
must never mutate their inputs (``apply_progression``, ``campaign_progression``), for every
system. No copy is made for them: a rule that mutated a sheet would corrupt the next one."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import rules

SYSTEMS = [system.slug for system in rules.available_systems()]


def _entries(system: Any) -> list[dict[str, Any]]:
    currency = next(iter(system.currencies), "xp")
    return [
        {"id": 1, "currency": currency, "amount": 40, "kind": "creation_budget", "data": {}, "session_id": None},
        {"id": 2, "currency": currency, "amount": -55, "kind": "purchase", "data": {"path": "x"}, "session_id": 3},
        {
            "id": 3,
            "currency": currency,
            "amount": 6,
            "kind": "gm_award",
            "data": {"reason": "session", "session": 3},
            "session_id": 3,
        },
    ]


def _frozen(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@pytest.mark.parametrize("slug", SYSTEMS)
def test_apply_progression_never_mutates_the_sheet_or_the_entries(slug: str) -> None:
    system = rules.get_system(slug)
    sheet = system.default_sheet()
    entries = _entries(system)
    before_sheet, before_entries = _frozen(sheet), _frozen(entries)
    for part in (entries, entries[:1], []):
        result = system.apply_progression(sheet, part, {})
        assert _frozen(sheet) == before_sheet and _frozen(entries) == before_entries
        assert isinstance(result.sheet, dict)
        # What the job stores is a new object or the untouched input, never an alias it may change.
        if result.sheet is sheet:
            assert _frozen(result.sheet) == before_sheet
    assert (
        system.apply_progression(sheet, entries, {}).balances == system.apply_progression(sheet, entries, {}).balances
    )


@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_campaign_step_never_mutates_the_sheets(slug: str) -> None:
    system = rules.get_system(slug)
    first, second = system.default_sheet(), system.default_sheet()
    sheets = {1: first, 2: second}
    frozen = _frozen(sheets)
    outcome = system.campaign_progression(sheets, {})
    assert _frozen(sheets) == frozen
    for item in (outcome or {}).values():
        new = item.get("sheet")
        if isinstance(new, dict):
            assert new is not first and new is not second  # a changed sheet is a new object
            for key, value in new.items():  # and what it rewrites is not shared with the input
                if isinstance(value, dict) and value != first.get(key) and value != second.get(key):
                    assert value is not first.get(key) and value is not second.get(key)


def test_an_ambre_ladder_step_copies_only_what_it_rewrites() -> None:
    system = rules.get_system("ambre")
    sheet = system.default_sheet()
    sheet["attributes"] = {"psy": 10, "phy": 3, "end": 0, "cbt": 7}
    other = copy.deepcopy(sheet)
    other["attributes"]["phy"] = 12
    outcome = system.campaign_progression({1: sheet, 2: other}, {})
    assert outcome is not None
    new = outcome[1]["sheet"]
    assert "true_position" not in json.dumps(new["ladder"])  # the GMs' ladder is never on a sheet (L18)
    assert "true_position" in json.dumps(sheet["ladder"])  # the input keeps what it had
    assert new["ladder"] is not sheet["ladder"]


@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_entry_keys_a_system_declares_are_all_it_reads(slug: str) -> None:
    """The job hands the rules only ``progression_entry_keys`` of each entry: the same results."""
    system = rules.get_system(slug)
    sheet = system.default_sheet()
    entries = _entries(system)
    keys = system.progression_entry_keys
    narrow = [{k: v for k, v in entry.items() if k in keys} for entry in entries]
    full, lean = system.apply_progression(sheet, entries, {}), system.apply_progression(sheet, narrow, {})
    assert (full.balances, full.flags, full.notes) == (lean.balances, lean.flags, lean.notes)


@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_batch_entry_point_gives_what_one_call_per_character_gives(slug: str) -> None:
    system = rules.get_system(slug)
    sheet = system.default_sheet()
    entries = _entries(system)
    items = [(sheet, entries), (sheet, entries[:1]), (sheet, [])]
    many = system.apply_progression_many(items, {})
    assert len(many) == 3
    for (one_sheet, part), result in zip(items, many, strict=True):
        alone = system.apply_progression(one_sheet, part, {})
        assert (result.balances, result.flags, result.notes) == (alone.balances, alone.flags, alone.notes)
