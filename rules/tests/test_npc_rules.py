"""NPCs follow each system's NPC rules, not the player characters' creation rules (issue #19 item 6)."""

from __future__ import annotations

import pytest

from rules import get_system
from rules.base import set_path

SLUGS = ["ambre", "clefs-de-l-aube", "sms", "altaride"]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_system_accepts_its_default_sheet_as_an_npc_and_checks_types(slug):
    system = get_system(slug)
    assert system.validate_npc(system.default_sheet()) == []
    broken = system.default_sheet()
    first_int = next(f for f in system.sheet_fields() if f.kind == "int")
    set_path(broken, first_int.path, "beaucoup")
    assert [e.code for e in system.validate_npc(broken)] == ["invalid_int"]


def test_a_clefs_npc_needs_no_creation_package_or_roll():
    system = get_system("clefs-de-l-aube")
    sheet = system.default_sheet()
    sheet["aspects"] = {"PH": 14, "ME": 8, "MY": 6}
    sheet["skills"] = [{"name": "Hache", "aspect": "PH", "default_means": "PU", "nc": 15}]
    assert {e.code for e in system.validate_sheet(sheet)} >= {"skill_package_mismatch"}  # a PC could not
    assert system.validate_npc(sheet) == []


def test_an_sms_npc_is_defined_by_noted_difficulties_or_modules_without_a_budget():
    """L995–1009: uber-simple/simple = noted numbers; deluxe = modules, no XP budget."""
    system = get_system("sms")
    simple = system.default_sheet()
    noted = [{"name": "attaque", "difficulty": 3}, {"name": "défense", "difficulty": 3}]
    simple["npc"] = {**simple["npc"], "method": "simple", "difficulties": noted}
    assert system.validate_npc(simple) == []
    simple["npc"]["difficulties"].append({"name": "alpha", "difficulty": "5/5"})
    assert [e.path for e in system.validate_npc(simple)] == ["npc.difficulties.2.difficulty"]
    simple["npc"]["difficulties"][2]["difficulty"] = 31
    assert [e.path for e in system.validate_npc(simple)] == ["npc.difficulties.2.difficulty"]
    # A sheet stored before (a dict by name) reads as the list.
    old = {"npc": {"method": "simple", "difficulties": {"attaque": 3}}}
    migrated = system.migrate_sheet(old, 1)
    assert migrated["npc"]["difficulties"] == [{"name": "attaque", "difficulty": 3}]
    deluxe = system.default_sheet()
    deluxe["modules"] = [{"name": "Hache de guerre", "rank": 9, "kind": "skill"}]
    assert not [e for e in system.validate_npc(deluxe) if e.code in ("over_budget", "rank_cap")]
