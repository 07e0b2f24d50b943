"""Ambre: reference characters (spec §7.2), pools, global levels, validation, budget."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.ambre import derive
from rules.base import validate_fields

SYSTEM = get_system("ambre")


def make_sheet(attrs, chars, powers=(), **extra):
    sheet = SYSTEM.default_sheet()
    sheet["attributes"] = dict(zip(("psy", "phy", "end", "cbt"), attrs, strict=True))
    keys = (
        "mental",
        "concentration",
        "volonte",
        "force",
        "dexterite",
        "rapidite",
        "adaptation",
        "regeneration",
        "resistance",
        "hab_distance",
        "hab_cac",
        "strategie",
    )
    sheet["characteristics"] = dict(zip(keys, chars, strict=True))
    sheet["powers"] = [{"power": p, "level": None, "via_marelle_brisee": False, "selections": ""} for p in powers]
    sheet.update(copy.deepcopy(extra))
    return sheet


def ariane():
    return make_sheet(
        (0, 20, -10, 30),
        (10, 10, 5, 15, 10, 20, 5, 5, 5, 15, 30, 10),
        ("atouts",),
        allies=[{"type": "ami_cour", "name": "Flora", "description": "", "known_to_player": True}],
        shadows=[
            {
                "name": "Avalon",
                "type": "personnelle",
                "barrier": "acces",
                "control": "",
                "type_description": "Forêt",
                "barrier_description": "Un col",
            }
        ],
    )


def borel():
    return make_sheet(
        (40, 0, 5, -25),
        (25, 25, 15, 5, 10, 10, 5, 5, 20, 0, 0, 0),
        ("logrus", "metamorphose"),
        allies=[{"type": "soutien_maison", "name": "Maison Sawall"}],
        karma_loan=True,
    )


def cendre():
    return make_sheet((0, 10, 15, 25), (10, 5, 10, 10, 10, 15, 10, 10, 20, 10, 35, 5), ("conjuration",))


# spec §7.2 D1
@pytest.mark.parametrize(
    "maker, expected",
    [
        (
            ariane,
            {
                "life_max": 60,
                "energy_max": 40,
                "ranged_level": 60,
                "thrown_level": 55,
                "melee_level": 75,
                "wrestling_level": 60,
                "minor_keys": 3,
                "one_vs_many": 15,
            },
        ),
        (
            borel,
            {
                "life_max": 55,
                "energy_max": 95,
                "ranged_level": 25,
                "thrown_level": 35,
                "melee_level": 25,
                "wrestling_level": 30,
                "minor_keys": 10,
                "one_vs_many": 5,
            },
        ),
        (
            cendre,
            {
                "life_max": 75,
                "energy_max": 65,
                "ranged_level": 45,
                "thrown_level": 45,
                "melee_level": 70,
                "wrestling_level": 45,
                "minor_keys": 5,
                "one_vs_many": 15,
            },
        ),
    ],
)
def test_it_derives_global_levels_d1(maker, expected):
    derived = SYSTEM.derive(maker())
    assert {k: derived[k] for k in expected} == expected
    assert derived["life"] == derived["life_max"]


# spec §7.1 S1–S4
@pytest.mark.parametrize("points, pool", [(20, 45), (0, 25), (-25, 0), (-10, 15), (50, 75)])
def test_it_computes_characteristic_pools(points, pool):
    assert derive.pool(points) == pool


def test_it_reads_the_sorcerer_example_s4_s5():
    sheet = make_sheet((50, 0, 15, 0), (35, 25, 15, 9, 8, 8, 15, 10, 15, 9, 8, 8), ("sorcellerie",))
    derived = SYSTEM.derive(sheet)
    assert derived["attributes"]["psy"]["pool"] == 75
    assert derived["minor_keys"] == 12  # (35 + 15) / 4 = 12.5 -> 12 (L447)
    assert derived["energy_max"] == 115
    assert not [e for e in SYSTEM.validate_sheet(sheet) if e.code == "characteristics_sum"]


def test_it_applies_gm_modifiers_to_levels():
    sheet = ariane()
    sheet["modifiers"]["life_max"] = -5
    assert SYSTEM.derive(sheet)["life_max"] == 55


def test_it_labels_ranks_and_secret_overlay():
    assert derive.rank_label(-25)["label"] == "human"
    assert derive.rank_label(-10)["label"] == "chaosian"
    assert derive.rank_label(0)["label"] == "amberite"
    assert derive.rank_label(5, 2, 5)["label"] == "ranked"
    assert derive.rank_label(5, 1, 5)["label"] == "dominant"
    # Bought up from 20 while publicly second: secret, still shown at the public position (L18).
    secret = derive.rank_label(26, 2, 20)
    assert secret["label"] == "ranked" and secret["secret"] is True and secret["public_position"] == 2
    assert "true_position" not in secret


@pytest.mark.parametrize("maker", [ariane, borel, cendre])
def test_reference_characters_are_valid(maker):
    assert SYSTEM.validate_sheet(maker()) == []


# spec §7.2 D2
@pytest.mark.parametrize(
    "maker, total, spent, remaining", [(ariane, 110, 95, 15), (borel, 125, 128, -3), (cendre, 100, 70, 30)]
)
def test_it_computes_the_creation_budget_d2(maker, total, spent, remaining):
    budget = SYSTEM.creation_budget(maker())
    assert (budget.total, budget.spent, budget.remaining) == (total, spent, remaining)
    assert budget.valid
    assert budget.pools["characteristics.psy"]["total"] == budget.pools["characteristics.psy"]["spent"]


def test_negative_karma_requires_an_explicit_loan():
    sheet = borel()
    sheet["karma_loan"] = False
    budget = SYSTEM.creation_budget(sheet)
    assert [e.code for e in budget.errors] == ["karma_loan_required"]
    assert "karma_loan_required" in {e.code for e in SYSTEM.validate_sheet(sheet)}


def test_debt_limit_setting_caps_the_loan():
    budget = SYSTEM.creation_budget(borel(), {"debt_limit": 2})
    assert [e.code for e in budget.errors] == ["debt_limit"]
    assert SYSTEM.creation_budget(borel(), {"debt_limit": 3}).valid


def test_late_joiner_budget_from_gm():
    sheet = cendre()
    sheet["creation_points"] = 150
    assert SYSTEM.creation_budget(sheet).remaining == 80
    assert SYSTEM.creation_budget(cendre(), {"starting_budget": 120}).remaining == 50


def test_it_rejects_bad_attribute_ranks_and_sums():
    sheet = cendre()
    sheet["attributes"]["psy"] = -5
    sheet["characteristics"]["hab_cac"] = 30
    codes = {(e.path, e.code) for e in SYSTEM.validate_sheet(sheet)}
    assert ("attributes.psy", "invalid_attribute_rank") in codes
    assert ("attributes.cbt", "characteristics_sum") in codes


def test_it_rejects_wrong_types_with_bilingual_messages():
    sheet = cendre()
    sheet["attributes"]["phy"] = "ten"
    sheet["characteristics"]["force"] = -1
    errors = SYSTEM.validate_sheet(sheet)
    assert {(e.path, e.code) for e in errors} >= {
        ("attributes.phy", "invalid_int"),
        ("characteristics.force", "min_value"),
    }
    assert all(e.message.fr and e.message.en for e in errors)
    assert SYSTEM.validate_sheet("nope")[0].code == "invalid_dict"  # type: ignore[arg-type]  # bad on purpose


def test_it_requires_one_power_and_prerequisites():
    sheet = cendre()
    sheet["powers"] = []
    assert "power_required" in {e.code for e in SYSTEM.validate_sheet(sheet)}
    sheet = make_sheet((0, 0, 0, 0), (9, 8, 8) * 4, ("logrus", "compulsion"))
    errors = {(e.path, e.code) for e in SYSTEM.validate_sheet(sheet)}
    assert ("powers.0.power", "power_prerequisite") in errors  # L61 Logrus needs Shapeshifting
    assert ("powers.1.power", "power_prerequisite") in errors  # L75 Compulsion needs Conjuration
    dup = make_sheet((0, 0, 0, 0), (9, 8, 8) * 4, ("atouts", "atouts"))
    assert "power_duplicate" in {e.code for e in SYSTEM.validate_sheet(dup)}


def test_shadow_aspects_must_be_described_l173():
    sheet = ariane()
    sheet["shadows"][0]["barrier_description"] = ""
    assert ("shadows.0.barrier_description", "description_required") in {
        (e.path, e.code) for e in SYSTEM.validate_sheet(sheet)
    }
    assert SYSTEM.validate_sheet(sheet, {"require_shadow_descriptions": False}) == []


def test_invented_powers_need_the_gm_option():
    sheet = cendre()
    sheet["invented_powers"] = [
        {
            "name": "Roue",
            "domain": "limite",
            "versus": dict.fromkeys(("marelle", "logrus", "atouts", "metamorphose", "magie"), "impuissant"),
            "multipliers": {},
        }
    ]
    assert "invented_powers_disabled" in {e.code for e in SYSTEM.validate_sheet(sheet)}
    assert SYSTEM.validate_sheet(sheet, {"allow_invented_powers": True}) == []


def test_declarations_drive_forms():
    described = json.loads(json.dumps(SYSTEM.describe()))
    assert described["diceless"] is True and described["currencies"] == ["karma"]
    paths = {f["path"] for f in described["sheet_fields"]}
    assert {
        "attributes.psy",
        "characteristics.volonte",
        "powers",
        "artefacts",
        "shadows",
        "constructs",
        "allies",
        "karma_loan",
    } <= paths
    steps = [s["key"] for s in described["creation_steps"]]
    assert steps[:4] == ["identity", "attributes", "characteristics", "powers"]
    for step in described["creation_steps"]:
        assert set(step["paths"]) <= paths
    assert set(described["test_kinds"]) == {"comparison", "wound", "spell_cost"}
    assert {"attribute", "power", "power_level", "artefact", "shadow", "construct", "ally"} == set(
        described["purchase_kinds"]
    )
    settings = SYSTEM.default_campaign_settings()
    assert settings["starting_budget"] == 100 and settings["power_tables"] == {}
    assert validate_fields(settings, SYSTEM.campaign_settings_fields()) == []
    errors = SYSTEM.validate_settings({"power_tables": {"atouts": [{"level": 6}]}})
    assert [(e.path, e.code) for e in errors] == [("power_tables.atouts.0.cost", "required")]
    assert SYSTEM.validate_settings({"power_tables": {"atouts": "x"}})[0].path == "power_tables.atouts"


def test_default_sheet_is_consistent_but_needs_a_power():
    sheet = SYSTEM.default_sheet()
    assert [e.code for e in SYSTEM.validate_sheet(sheet)] == ["power_required"]
    assert SYSTEM.creation_budget(sheet).remaining == 100


def test_migration_from_draft_version():
    old = {"attributes": {"psy": {"points": 10}, "phy": 0}}
    new = SYSTEM.migrate_sheet(old, 0)
    assert new["attributes"] == {"psy": 10, "phy": 0} and new["powers"] == []
    assert old["attributes"]["psy"] == {"points": 10}
    assert SYSTEM.migrate_sheet(new, 1) == new
    with pytest.raises(ValueError):
        SYSTEM.migrate_sheet(new, 2)


def test_creation_ledger_matches_budget():
    entries = SYSTEM.creation_ledger(borel())
    assert sum(e.amount for e in entries) == -3
    assert {e.kind for e in entries} == {"creation_budget", "rank_refund", "auction_bid", "purchase"}


def test_package_imports_nothing_from_django():
    code = (
        "import sys, rules.ambre, rules.ambre.auction, rules.ambre.combat; "
        "print(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from([-25, -10, 0, 5, 20, 40, 60]), min_size=4, max_size=4),
    st.lists(
        st.sampled_from(["marelle", "atouts", "sorcellerie", "conjuration", "metamorphose"]), max_size=3, unique=True
    ),
    st.lists(st.sampled_from(["allie_ambre", "ami_cour", "protecteur_ambre"]), max_size=4),
    st.booleans(),
)
def test_budget_never_goes_negative_without_an_explicit_loan(attrs, powers, allies, loan):
    sheet = make_sheet(tuple(attrs), (0,) * 12, tuple(powers), karma_loan=loan, allies=[{"type": t} for t in allies])
    budget = SYSTEM.creation_budget(sheet)
    if budget.remaining < 0 and not loan:
        assert "karma_loan_required" in {e.code for e in budget.errors}
        assert "karma_loan_required" in {e.code for e in SYSTEM.validate_sheet(sheet)}
    else:
        assert "karma_loan_required" not in {e.code for e in budget.errors}
    refunds = sum(25 if a == -25 else 10 if a == -10 else 0 for a in attrs)
    assert budget.total == 100 + refunds
