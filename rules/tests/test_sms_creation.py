"""SMS creation: budget, flaw cap, rank cap, races and archetypes (spec §3, §6 T2–T5, D22)."""

from __future__ import annotations

import pytest

from rules import get_system
from rules.base import RulesError
from rules.sms import apply_archetype, apply_race, module_xp
from rules.sms.creation import module_notation
from rules.sms.tables import ARCHETYPES, BESTIARY_CLASSES, RACES, race_package_xp

SMS = get_system("sms")


def mod(name, scope, rank, kind="positive", **extra):
    return {
        "name": name,
        "kind": kind,
        "scope": scope,
        "rank": rank,
        "free_rank": 0,
        "progress_ranks": 0,
        "source": "purchased",
        "predefined": "",
        "domain": "",
        "removable": False,
        "object_name": "",
        "object_possessed": True,
        "progressable": True,
        "roleplay": False,
        **extra,
    }


def human_d22(borgne=True, fort=2):
    modules = [
        mod("Fort", 5, fort),
        mod("Maîtrise de l'épée longue", 2, 3),
        mod("Stratège", 3, 2),
        mod("Vigilant", 4, 1),
        mod("Équitation", 3, 1),
        mod("Résistance à la douleur", 3, 1, "resistive"),
        mod("Épée de famille", 1, 3, removable=True, object_name="Épée de famille"),
        mod("Pouvoir des arcanes", 4, 2, predefined="arcane_power"),
        mod("Intimidation", 2, 3),
        mod("Nage", 1, 1),
        mod("Colérique", 4, 2, "negative"),
    ]
    if borgne:
        modules.append(mod("Borgne", 3, 1, "negative"))
    sheet = SMS.default_sheet()
    sheet["modules"] = modules
    return sheet


def codes(errors):
    return {e.code for e in errors}


# T3 (L65)
@pytest.mark.parametrize(("scope", "rank", "xp"), [(2, 1, 2), (2, 2, 4), (5, 1, 5), (1, 3, 3)])
def test_it_costs_scope_per_rank(scope, rank, xp):
    assert module_xp("positive", scope, rank) == xp
    assert module_xp("negative", scope, rank) == -xp


def test_it_validates_the_d22_human():
    sheet = human_d22()
    budget = SMS.creation_budget(sheet)
    assert (budget.total, budget.spent, budget.remaining, budget.valid) == (50, 50, 0, True)
    assert SMS.validate_sheet(sheet) == []


def test_it_rejects_over_budget_without_the_flaw():
    budget = SMS.creation_budget(human_d22(borgne=False))
    assert budget.total == 48 and budget.spent == 50
    assert codes(budget.errors) == {"over_budget"}
    assert "over_budget" in codes(SMS.validate_sheet(human_d22(borgne=False)))


def test_it_caps_ranks_at_three_at_creation():
    errors = SMS.validate_sheet(human_d22(fort=4))
    assert any(e.code == "rank_cap" and e.path == "modules.0.rank" for e in errors)


def test_it_caps_negative_credit_at_ten():
    sheet = human_d22()
    sheet["modules"].append(mod("Lâche", 5, 2, "negative"))
    budget = SMS.creation_budget(sheet)
    assert budget.total == 50  # 40 + min(10, 21)
    assert budget.pools["negative"] == {"total": 10, "spent": 10}


def test_it_gives_the_tifin_33_and_counts_raised_racial_ranks():
    sheet = apply_race(SMS.default_sheet(), "tifin")
    assert sheet["size_factor"] == 4
    agile = next(m for m in sheet["modules"] if m["name"] == "Agile")
    agile["rank"] = 3
    sheet["modules"] += [
        mod("Discrétion", 3, 3),
        mod("Crochetage", 2, 3),
        mod("Lancer de dague", 1, 3),
        mod("Baratin", 3, 1),
    ]
    budget = SMS.creation_budget(sheet)
    assert (budget.total, budget.spent, budget.remaining) == (33, 31, 2)
    assert SMS.validate_sheet(sheet) == []
    agile["rank"] = 4
    assert "rank_cap" in codes(SMS.validate_sheet(sheet))
    agile["rank"] = 3
    sheet["modules"].append(mod("Kleptomane", 2, 2, "negative"))
    assert SMS.creation_budget(sheet).total == 37  # racial negatives do not count in the credit


def test_it_gives_the_mielfin_36():
    sheet = apply_race(SMS.default_sheet(), "mielfin")
    assert SMS.creation_budget(sheet).total == 36


def test_t4_human_40_other_race_33():
    assert SMS.creation_budget(SMS.default_sheet()).total == 40
    for race in RACES:
        if race not in ("humain", "mielfin"):
            assert SMS.creation_budget(apply_race(SMS.default_sheet(), race)).total == 33


def test_it_lets_the_gm_change_the_endowment():
    assert SMS.creation_budget(SMS.default_sheet(), {"creation_xp": 30}).total == 30
    assert SMS.creation_budget(apply_race(SMS.default_sheet(), "elfin"), {"creation_xp": 50}).total == 43


def test_it_has_ten_races_each_worth_seven():
    assert len(RACES) == 10
    for key, race in RACES.items():
        assert race_package_xp(key) + race["free_xp"] == 7, key
    tifin = {m["name"]: m for m in RACES["tifin"]["modules"]}
    assert tifin["Petite taille"]["kind"] == "negative" and tifin["Résistance à la peur"]["kind"] == "resistive"
    assert race_package_xp("descar") == 7 and RACES["descar"]["modules"][1]["rank"] == 2


def test_it_replaces_racial_modules_when_the_race_changes():
    sheet = apply_race(SMS.default_sheet(), "tifin")
    sheet["modules"].append(mod("Baratin", 3, 1))
    sheet = apply_race(sheet, "dudin")
    names = [m["name"] for m in sheet["modules"]]
    assert "Agile" not in names and "Santé accrue" in names and "Baratin" in names
    assert sheet["size_factor"] == 5 and sheet["race"] == "dudin"
    assert SMS.validate_sheet(sheet) == []


def test_it_detects_tampered_or_missing_racial_modules():
    sheet = apply_race(SMS.default_sheet(), "descar")
    sheet["modules"][0]["scope"] = 2
    assert "racial_module_mismatch" in codes(SMS.validate_sheet(sheet))
    sheet = SMS.default_sheet()
    sheet["race"] = "elfin"
    assert "racial_modules_missing" in codes(SMS.validate_sheet(sheet))


def test_it_refuses_unknown_or_disallowed_race():
    with pytest.raises(RulesError):
        apply_race(SMS.default_sheet(), "orc")
    with pytest.raises(RulesError):
        apply_race(SMS.default_sheet(), "tifin", {"allowed_races": ["humain"]})
    sheet = apply_race(SMS.default_sheet(), "tifin")
    assert "race_not_allowed" in codes(SMS.validate_sheet(sheet, {"allowed_races": ["humain"]}))


def test_it_requires_an_object_for_removable_modules():
    # T2 (L55): «Kara - hache de bataille porte-bonheur» scope 1
    sheet = SMS.default_sheet()
    sheet["modules"] = [mod("Kara - hache de bataille porte-bonheur", 1, 3, removable=True)]
    assert "object_required" in codes(SMS.validate_sheet(sheet))
    sheet["modules"][0]["object_name"] = "Kara"
    assert SMS.validate_sheet(sheet) == [] and SMS.creation_budget(sheet).spent == 3


def test_it_requires_max_magic_for_special_powers():
    sheet = SMS.default_sheet()
    sheet["modules"] = [
        mod("Pouvoir des arcanes", 4, 3, predefined="arcane_power"),
        mod("Héroïsme", 2, 1, predefined="heroism"),
    ]
    assert "special_power_prerequisite" in codes(SMS.validate_sheet(sheet))
    assert "special_power_prerequisite" not in codes(SMS.validate_sheet(sheet, {"magic_max_rank": 3}))


def test_it_reports_field_errors_with_paths():
    sheet = SMS.default_sheet()
    sheet["modules"] = [mod("X", 6, 1)]
    sheet["size_factor"] = 12
    paths = {e.path for e in SMS.validate_sheet(sheet)}
    assert {"modules.0.scope", "size_factor"} <= paths


def test_it_lists_archetypes_and_applies_gm_templates():
    assert len(ARCHETYPES) == 13 + 20 + 9 + 8
    assert ARCHETYPES["lancer_des_sorts_de_magie_divine"]["required_predefined"] == "divine_power"
    settings = {
        "archetype_modules": {
            "soldat": [
                {"name": "Tactique", "kind": "positive", "scope": 3, "rank": 3},
                {"name": "Épée", "kind": "positive", "scope": 3, "rank": 3},
            ]
        }
    }
    assert SMS.validate_settings(settings) == []
    sheet = apply_archetype(SMS.default_sheet(), "soldat", settings)
    assert [m["name"] for m in sheet["modules"]] == ["Tactique", "Épée"]
    assert sheet["archetypes"] == [{"key": "soldat"}]
    # T5 (L882): an archetype (≤ 33) on a human leaves 7 XP
    settings["archetype_modules"]["soldat"].append({"name": "Fort", "kind": "positive", "scope": 5, "rank": 3})
    sheet = apply_archetype(SMS.default_sheet(), "soldat", settings)
    assert SMS.creation_budget(sheet).remaining == 7
    settings["archetype_modules"]["soldat"].append({"name": "Discipline", "kind": "positive", "scope": 1, "rank": 1})
    assert {e.code for e in SMS.validate_settings(settings)} == {"archetype_too_expensive"}
    with pytest.raises(RulesError):
        apply_archetype(SMS.default_sheet(), "ninja", settings)
    # without GM data the template adds what the seed gives (issue #19 item 8): a module named after it, rank 0
    assert [(m["name"], m["rank"]) for m in apply_archetype(SMS.default_sheet(), "mage")["modules"]] == [("Mage", 0)]


def test_it_has_the_bestiary_classes():
    assert len(BESTIARY_CLASSES) == 17


def test_it_writes_modules_in_the_seed_notation():
    assert module_notation(mod("Fort", 5, 2)) == "Fort (5) : 2"
    assert module_notation(mod("Colérique", 4, 2, "negative")) == "Colérique (-4) : 2"
    assert module_notation(mod("Résistance à la douleur", 3, 1, "resistive")) == "Résistance à la douleur (*3) : 1"


def test_default_archetypes_apply_what_the_seed_gives():
    """Issue #19 item 8: with no GM list, applying an archetype adds its modules (L297, L876–985)."""
    from rules.sms.creation import ARCHETYPE_DEFAULT_NOTE, archetype_cost, archetype_modules
    from rules.sms.tables import ARCHETYPES

    assert len(ARCHETYPES) == 50
    for key in ARCHETYPES:
        modules = archetype_modules(key, {})
        assert modules and archetype_cost(modules) <= 33
    # A spell-casting trait: the predefined magic module at rank 1 (L297), paid 1 XP (scope 1 × rank 1, L63).
    caster = apply_archetype(SMS.default_sheet(), "lancer_des_sorts_de_magie_des_arcanes", {})
    magic = [m for m in caster["modules"] if m["source"] == "archetype"]
    assert [(m["name"], m["predefined"], m["rank"]) for m in magic] == [("Pouvoir des arcanes", "arcane_power", 1)]
    assert not [e for e in SMS.validate_sheet(caster) if e.path.startswith("modules.0")]
    # Any other archetype: a module named after it, no rank bought (the text gives no numbers).
    smith = apply_archetype(SMS.default_sheet(), "forgeron", {})
    assert [(m["name"], m["rank"], m["source"]) for m in smith["modules"] if m["source"] == "archetype"] == [
        ("Forgeron", 0, "archetype")
    ]
    assert SMS.creation_budget(smith).spent == SMS.creation_budget(SMS.default_sheet()).spent
    # A GM list replaces the default.
    gm = {"archetype_modules": {"forgeron": [{"name": "Métallurgie", "kind": "positive", "scope": 2, "rank": 2}]}}
    assert [m["name"] for m in apply_archetype(SMS.default_sheet(), "forgeron", gm)["modules"]] == ["Métallurgie"]
    assert "L893" in ARCHETYPE_DEFAULT_NOTE.fr and "L297" in ARCHETYPE_DEFAULT_NOTE.en
