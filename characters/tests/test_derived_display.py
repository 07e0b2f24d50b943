"""Derived values are laid out for people: lists of records become tables."""

from __future__ import annotations

import rules
from characters import sheetform


def test_lists_of_records_become_tables() -> None:
    system = rules.get_system("clefs-de-l-aube")
    sheet = system.default_sheet()
    sheet["skills"] = [{"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": 10}]
    groups = sheetform.derived_groups(system, system.derive(sheet))
    tables = [row for group in groups for row in group["rows"] if row["kind"] == "table"]
    assert [row["key"] for row in tables] == ["skills"]
    assert tables[0]["value"][0][0] == "Épée"
    for row in tables:
        assert row["columns"]
        assert all(len(cells) == len(row["columns"]) for cells in row["value"])
        assert not any("{" in cell for cells in row["value"] for cell in cells)


def test_bilingual_messages_are_not_records() -> None:
    assert not sheetform._is_record({"fr": "a", "en": "b"})
    assert sheetform._is_record({"name": "Épée", "nc": 10})
