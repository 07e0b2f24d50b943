"""Altaride creation: budget pools, derived values and validation (spec §3, §6.2 D1-D12)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules import get_system
from rules.altaride import tables as T

SYSTEM = get_system("altaride")

# Hypothetical catalogue rows, for tests only (the seed's skill and weapon tables are missing, spec §6 "hyp.").
SETTINGS: dict[str, Any] = {
    "skill_catalogue": [
        {"key": "mains_nues", "name": "Mains Nues", "category": "guerriere", "formula": "HAB+VIG"},
        {"key": "savoir", "name": "Savoir", "category": "intellectuelle", "formula": "ESP+SCI"},
        {"key": "persuasion", "name": "Persuasion", "category": "relationnelle", "formula": "AFF+EXP"},
        {"key": "esquive", "name": "Esquive", "category": "corporelle", "formula": "HAB+PER"},
        {"key": "epee", "name": "Épée", "category": "guerriere", "formula": "HAB+VIG"},
    ],
    "weapon_catalogue": [
        {
            "key": "dague",
            "name": "Dague",
            "initiative": 1,
            "damage_lucidite": 1,
            "damage_physique": 2,
            "vig_min": 0,
            "skill": "mains_nues",
        },
        {
            "key": "grande_epee",
            "name": "Grande épée",
            "initiative": 6,
            "damage_lucidite": 1,
            "damage_physique": 2,
            "vig_min": 14,
            "skill": "epee",
        },
        {
            "key": "lance",
            "name": "Lance de cavalerie",
            "initiative": 0,
            "damage_lucidite": 0,
            "damage_physique": 3,
            "skill": "epee",
            "mounted_only": True,
        },
    ],
    "aptitude_catalogue": [{"key": "nage", "name": "Nage", "level1_cost": 10}],
    "dodge_skill": "esquive",
}

ALDO_TALENTS = {
    "HAB": 13,
    "PER": 11,
    "VIG": 12,
    "ESP": 10,
    "GEN": 10,
    "SCI": 13,
    "AFF": 12,
    "DOM": 10,
    "EXP": 11,
    "INC": 15,
    "MAN": 15,
    "RUN": 14,
}


def aldo() -> dict[str, Any]:
    """Reference character of spec D1/D6."""
    sheet = SYSTEM.default_sheet()
    sheet["talents"] = dict(ALDO_TALENTS)
    sheet["schools"] = [{"school": "enchanteurs", "magic_level": 1, "max_accessible_level": 5}]
    sheet["skills"] = [
        {"key": "mains_nues", "level": 3},
        {"key": "savoir", "level": 4},
        {"key": "persuasion", "level": 2},
    ]
    sheet["endurance_bought"] = {"EP": 5, "EM": 0, "EL": 0, "EO": 6}
    sheet["scruples"] = 12
    sheet["capacities"] = [{"name": "Pistage", "level": 2}]
    return sheet


def codes(errors: list) -> set[str]:
    return {e.code for e in errors}


def test_it_starts_every_talent_at_five_and_skills_at_zero() -> None:  # S3
    sheet = SYSTEM.default_sheet()
    assert set(sheet["talents"].values()) == {5}
    assert sheet["skills"] == [] and sheet["scruples"] == 10
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []
    budget = SYSTEM.creation_budget(sheet, SETTINGS)
    assert budget.total == 4500 and budget.spent == 0
    assert budget.pools["talents"]["lost"] == 4000


def test_it_spends_aldo_talents_exactly() -> None:  # D1
    budget = SYSTEM.creation_budget(aldo(), SETTINGS)
    assert budget.pools["talents"] == {"total": 4000, "spent": 4000, "remaining": 0, "lost": 0}
    assert budget.valid


def test_it_derives_aldo_domains() -> None:  # D2
    assert SYSTEM.derive(aldo(), SETTINGS)["domains"] == {"PHYSIQUE": 12, "MENTAL": 11, "SOCIAL": 11, "OCCULTE": 14}


def test_it_rejects_an_overspent_talent_pool() -> None:  # D3
    sheet = aldo()
    sheet["talents"]["RUN"] = 15
    budget = SYSTEM.creation_budget(sheet, SETTINGS)
    assert budget.pools["talents"]["spent"] == 4075
    assert "talent_pool_exceeded" in codes(budget.errors)
    assert "talent_pool_exceeded" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))


@pytest.mark.parametrize("value", [4, 16])
def test_it_rejects_talents_outside_five_to_fifteen(value: int) -> None:  # D4, C1
    sheet = SYSTEM.default_sheet()
    sheet["talents"]["PER"] = value
    errors = SYSTEM.validate_sheet(sheet, SETTINGS)
    assert [(e.path, e.code) for e in errors] == [("talents.PER", "talent_creation_range")]


def test_it_loses_unspent_talent_points() -> None:  # D5
    sheet = SYSTEM.default_sheet()
    sheet["talents"] = {t: 12 for t in T.TALENTS}
    sheet["talents"]["INC"] = 15
    budget = SYSTEM.creation_budget(sheet, SETTINGS)
    assert budget.pools["talents"]["spent"] == 3990
    assert budget.pools["talents"]["lost"] == 10
    assert budget.valid


def test_it_spends_aldo_other_pool() -> None:  # D6
    budget = SYSTEM.creation_budget(aldo(), SETTINGS)
    assert budget.pools["other"]["spent"] == 153
    assert budget.pools["other"]["remaining"] == 347
    assert budget.spent == 4153
    drafts = SYSTEM.creation_ledger(aldo(), SETTINGS)
    assert [(d.amount, d.kind) for d in drafts] == [(347, "creation_budget")]


def test_it_can_lose_the_other_leftover_when_configured() -> None:  # A7 option
    settings = {**SETTINGS, "creation_leftover_kept": False}
    assert SYSTEM.creation_budget(aldo(), settings).pools["other"]["lost"] == 347
    assert SYSTEM.creation_ledger(aldo(), settings) == []


def test_it_derives_aldo_skills_and_endurance() -> None:  # D7, D8
    derived = SYSTEM.derive(aldo(), SETTINGS)
    assert [(s["key"], s["formula"], s["cr"]) for s in derived["skills"]] == [
        ("mains_nues", 12, 15),
        ("savoir", 11, 15),
        ("persuasion", 11, 13),
    ]
    assert {p: v["max"] for p, v in derived["endurance"].items()} == {"EP": 17, "EM": 11, "EL": 11, "EO": 20}
    assert all(v["current"] == v["max"] for v in derived["endurance"].values())
    assert SYSTEM.validate_sheet(aldo(), SETTINGS) == []


def test_it_rejects_a_cr_above_fifteen_at_creation() -> None:  # D9, C5
    sheet = aldo()
    sheet["skills"][0]["level"] = 4
    errors = SYSTEM.validate_sheet(sheet, SETTINGS)
    assert [(e.path, e.code) for e in errors] == [("skills.0.level", "skill_creation_cr")]


def test_it_caps_skill_level_by_formula_talents() -> None:  # D10, S2, C6
    sheet = SYSTEM.default_sheet()
    sheet["talents"].update(VIG=5, HAB=9)
    sheet["skills"] = [{"key": "mains_nues", "level": 6}]
    errors = SYSTEM.validate_sheet(sheet, SETTINGS)
    assert [(e.path, e.code) for e in errors] == [("skills.0.level", "skill_above_talent")]
    sheet["skills"][0]["level"] = 5
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []
    assert SYSTEM.derive(sheet, SETTINGS)["skills"][0]["cr"] == 12
    assert SYSTEM.creation_budget(sheet, SETTINGS).pools["other"]["spent"] == 15
    sheet["skills"][0]["level"] = 6
    assert SYSTEM.validate_sheet(sheet, {**SETTINGS, "skill_level_capped_by_talents": False}) == []


def test_it_costs_120_for_a_skill_to_fifteen() -> None:  # D11
    sheet = SYSTEM.default_sheet()
    sheet["skills"] = [{"key": "x", "level": 15, "formula": "RUN"}]
    assert SYSTEM.creation_budget(sheet, SETTINGS).pools["other"]["spent"] == 120


def test_it_rejects_sorciers_at_creation_without_gm_permission() -> None:  # D12, C7
    sheet = aldo()
    sheet["schools"] = [{"school": "sorciers", "guild": "Guilde de Port-Altar"}]
    assert "sorciers_at_creation" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))
    allowed = {**SETTINGS, "allow_sorciers_at_creation": True}
    assert SYSTEM.validate_sheet(sheet, allowed) == []
    assert SYSTEM.creation_budget(sheet, allowed).pools["other"]["spent"] == 53  # access 0 XP
    sheet["schools"][0]["guild"] = ""
    assert "guild_required" in codes(SYSTEM.validate_sheet(sheet, allowed))


def test_it_allows_only_one_school_at_creation() -> None:  # S23, C7
    sheet = aldo()
    sheet["schools"].append({"school": "pretres"})
    assert "one_school_at_creation" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))
    sheet["creation_complete"] = True
    assert "derogation_required" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))
    sheet["schools"][1]["derogation"] = True
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []


def test_it_checks_elementalist_elements() -> None:  # S13, C8
    sheet = aldo()
    sheet["schools"] = [{"school": "elementalistes", "major_element": "feu", "minor_element": "eau"}]
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []
    sheet["schools"][0]["minor_element"] = "feu"
    assert "elements_distinct" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))
    sheet["schools"][0].update(minor_element="", major_element="feu")
    assert "elements_required" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))
    done = aldo()
    done["creation_complete"] = True
    done["schools"] = [
        {"school": "elementalistes", "major_element": "feu", "minor_element": "eau", "major_level": 7, "minor_level": 2}
    ]
    assert SYSTEM.validate_sheet(done, SETTINGS) == []  # S13
    done["schools"][0]["minor_level"] = 8
    assert "minor_above_major" in codes(SYSTEM.validate_sheet(done, SETTINGS))


def test_it_refuses_magic_levels_bought_at_creation() -> None:  # A7, L157
    sheet = aldo()
    sheet["schools"][0]["magic_level"] = 2
    assert "magic_level_at_creation" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))


def test_it_rejects_an_overspent_other_pool() -> None:  # C3
    sheet = aldo()
    sheet["endurance_bought"]["EM"] = 200
    errors = SYSTEM.validate_sheet(sheet, SETTINGS)
    assert "other_pool_exceeded" in codes(errors)


def test_it_prices_scruples_and_bounds_them() -> None:  # S11, C9
    sheet = SYSTEM.default_sheet()
    sheet["scruples"] = 14
    assert SYSTEM.creation_budget(sheet, SETTINGS).pools["other"]["spent"] == 4
    sheet["scruples"] = 21
    assert [(e.path, e.code) for e in SYSTEM.validate_sheet(sheet, SETTINGS)] == [("scruples", "max_value")]
    sheet["scruples"] = 0
    assert [(e.path, e.code) for e in SYSTEM.validate_sheet(sheet, SETTINGS)] == [("scruples", "min_value")]


def test_it_reports_unknown_catalogue_entries() -> None:
    sheet = SYSTEM.default_sheet()
    sheet["skills"] = [{"key": "nope", "level": 1}]
    sheet["weapons"] = [{"key": "hache"}]
    sheet["aptitudes"] = [{"key": "vol", "level": 1}]
    assert codes(SYSTEM.validate_sheet(sheet, {})) == {"unknown_skill", "unknown_weapon", "unknown_aptitude"}


def test_it_prices_aptitudes_from_the_catalogue() -> None:  # D66
    sheet = SYSTEM.default_sheet()
    sheet["aptitudes"] = [{"key": "nage", "level": 4}]
    assert SYSTEM.creation_budget(sheet, SETTINGS).pools["other"]["spent"] == 19


def test_it_rejects_bad_types() -> None:
    sheet = SYSTEM.default_sheet()
    sheet["talents"]["HAB"] = "douze"
    sheet["endurance_bought"]["EP"] = -1
    assert {(e.path, e.code) for e in SYSTEM.validate_sheet(sheet, SETTINGS)} == {
        ("talents.HAB", "invalid_int"),
        ("endurance_bought.EP", "min_value"),
    }


def test_it_applies_the_anthropoid_cap_after_creation() -> None:  # L55
    sheet = aldo()
    sheet["creation_complete"] = True
    sheet["talents"]["VIG"] = 21
    assert "talent_anthropoid_max" in codes(SYSTEM.validate_sheet(sheet, SETTINGS))
    sheet["is_anthropoid"] = False
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []
    sheet["talents"]["VIG"] = 18  # after creation talents may pass 15 and CR may pass 15
    sheet["skills"][0]["level"] = 8
    sheet["is_anthropoid"] = True
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []


def test_it_ignores_the_magic_bonus_for_domains_but_uses_it_for_tests() -> None:  # L55
    sheet = aldo()
    sheet["talent_magic_bonus"]["HAB"] = 9
    derived = SYSTEM.derive(sheet, SETTINGS)
    assert derived["talents"]["HAB"] == 22
    assert derived["domains"]["PHYSIQUE"] == 12


def test_it_declares_every_sheet_field_and_step() -> None:
    paths = {f.path for f in SYSTEM.sheet_fields()}
    assert {f"talents.{t}" for t in T.TALENTS} <= paths
    assert {f"endurance_bought.{p}" for p in T.POOLS} <= paths
    steps = SYSTEM.creation_steps()
    assert [s.key for s in steps] == ["talents", "other", "equipment", "finish"]
    assert all(p in paths for s in steps for p in s.paths)
    desc = SYSTEM.describe()
    assert desc["slug"] == "altaride" and "skill_test" in desc["test_kinds"] and "talent" in desc["purchase_kinds"]


def test_it_starts_with_empty_catalogues_and_validates_them() -> None:  # A1
    defaults = SYSTEM.default_campaign_settings()
    assert defaults["skill_catalogue"] == [] and defaults["weapon_catalogue"] == []
    assert SYSTEM.validate_settings(SETTINGS) == []
    bad = copy.deepcopy(SETTINGS)
    bad["skill_catalogue"].append({"key": "savoir", "name": "Dup", "formula": "FOR+XYZ"})
    assert codes(SYSTEM.validate_settings(bad)) == {"duplicate_key", "invalid_formula"}


def test_it_migrates_an_incomplete_sheet() -> None:
    migrated = SYSTEM.migrate_sheet({"talents": {"HAB": 9}}, 1)
    assert migrated["talents"]["HAB"] == 9 and migrated["talents"]["PER"] == 5
    assert migrated["scruples"] == 10
    with pytest.raises(ValueError):
        SYSTEM.migrate_sheet({}, 2)
