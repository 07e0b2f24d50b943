"""Ambre: powers, artefacts/creatures, shadows, constructs, allies, invented powers (spec §3, §7)."""

from __future__ import annotations

import pytest

from rules.ambre import costs
from rules.ambre.costs import (
    ally_cost,
    artefact_cost,
    construct_cost,
    invented_power_cost,
    pattern_conversion_cost,
    power_cost,
    shadow_cost,
)


@pytest.mark.parametrize(
    "power, cost, level",
    [
        ("marelle", 50, 8),
        ("logrus", 45, 8),
        ("atouts", 40, 5),
        ("metamorphose", 35, 5),
        ("mots_de_pouvoir", 10, 4),
        ("sorcellerie", 15, 5),
        ("conjuration", 20, 5),
        ("marelle_brisee", 10, 4),
        ("compulsion", 5, 3),
    ],
)
def test_initial_power_costs_l59_l75(power, cost, level):
    assert power_cost(power).amount == cost
    assert power_cost(power, level).valid
    below = power_cost(power, level - 1)
    assert [e.code for e in below.errors] == ["power_level_below_start"]


def test_s13_s14_minimum_totals():
    assert power_cost("logrus").amount + power_cost("metamorphose").amount == 80
    assert power_cost("conjuration").amount + power_cost("compulsion").amount == 25


def test_s11_broken_pattern_conversion():
    assert pattern_conversion_cost() == 38
    assert pattern_conversion_cost({"broken_pattern_reading": "plus_2"}) == 42
    assert power_cost("marelle", via_broken_pattern=True).amount == 48


def test_power_levels_need_the_gm_table():
    missing = power_cost("atouts", 7)
    assert [e.code for e in missing.errors] == ["power_table_missing"]
    table = {"power_tables": {"atouts": [{"level": 5, "cost": 40}, {"level": 6, "cost": 46}, {"level": 7, "cost": 55}]}}
    assert power_cost("atouts", 7, table).amount == 55
    assert power_cost("bogus").errors[0].code == "invalid_choice"


def test_power_ranks_l77():
    assert costs.power_rank(4)["label"]["fr"] == "Novice"
    assert costs.power_rank(5)["label"]["en"] == "Adept"
    assert costs.power_rank(8)["rank"] == 2
    assert costs.power_rank(9)["label"]["en"] == "Rank 3"
    assert costs.power_rank(9, {"power_rank_names": {"3": "Maître"}})["label"]["fr"] == "Maître"


# spec §7.2 D13
def test_a1_unique_sword():
    spec = {
        "qualities": {"degats": "double", "capacite_psy": "sens_danger"},
        "transfers": [{"kind": "quality", "target": "capacite_psy"}],
        "quantity": "unique",
    }
    assert artefact_cost(spec).amount == 9


def test_a2_hell_hound_horde():
    spec = {
        "kind": "creature",
        "qualities": {"vitalite": 2, "mouvement": "rapide", "agression": "aptitude"},
        "powers": {"mouvements_ombre": {"pister": True, "chemin": True, "recherche": False}},
        "quantity": "horde",
    }
    assert artefact_cost(spec).amount == 24


def test_a3_rings_need_sorcery():
    spec = {"qualities": {"defense_psy": "barriere"}, "powers": {"sorts": "recenses"}, "quantity": "recense"}
    assert artefact_cost(spec).amount == 12
    refused = artefact_cost(spec, owner_powers={"atouts"})
    assert [e.code for e in refused.errors] == ["creator_power_required"]
    assert artefact_cost(spec, owner_powers={"sorcellerie"}).valid


def test_conjurers_may_store_spells_in_creatures_l148():
    spec = {"kind": "creature", "powers": {"sorts": "un"}}
    assert artefact_cost(spec, owner_powers={"conjuration"}).valid
    assert not artefact_cost({**spec, "kind": "artefact"}, owner_powers={"conjuration"}).valid


def test_a4_asterisk_category_is_exclusive():
    result = artefact_cost({"powers": {"guerison": ["autoreparation", "rapide"]}})
    assert [e.code for e in result.errors] == ["exclusive_tiers"]


def test_a5_transfer_inside_the_multiplier():
    spec = {
        "kind": "creature",
        "powers": {"guerison": "regeneration"},
        "transfers": [{"kind": "power", "target": "guerison"}],
        "quantity": "recense",
    }
    assert artefact_cost(spec).amount == 28
    assert artefact_cost(spec, settings={"transfers_multiplied": False}).amount == 18


def test_artefact_bad_input():
    result = artefact_cost(
        {
            "qualities": {"bogus": 1, "vitalite": 7},
            "quantity": "lots",
            "transfers": [{"kind": "quality", "target": "mouvement"}, {"kind": "x"}],
        }
    )
    codes = {(e.path, e.code) for e in result.errors}
    assert codes == {
        ("qualities.bogus", "unknown_quality"),
        ("qualities.vitalite", "invalid_choice"),
        ("quantity", "invalid_choice"),
        ("transfers.0.target", "transfer_target_missing"),
        ("transfers.1.kind", "invalid_choice"),
    }
    assert artefact_cost("nope").errors[0].code == "invalid_item"  # type: ignore[arg-type]  # bad on purpose


def test_trump_powers_reserved_to_trump_masters_l144():
    spec = {"powers": {"atouts": ["support", "jeu"]}}
    assert artefact_cost(spec).amount == 3
    assert not artefact_cost(spec, owner_powers=set()).valid


def test_combat_mastery_cost_is_a_setting_l119():
    spec = {"qualities": {"agression": "maitrise"}}
    assert artefact_cost(spec).amount == 4
    assert artefact_cost(spec, settings={"agression_tier3_cost": 3}).amount == 3


@pytest.mark.parametrize(
    "quantity, mult",
    [("unique", 1), ("recense", 2), ("horde", 3), ("repandu", 4), ("trans_ombre", 5), ("omnipresent", 6)],
)
def test_quantity_multipliers_l157_l167(quantity, mult):
    assert artefact_cost({"qualities": {"souffle": "ambrien"}, "quantity": quantity}).amount == 2 * mult


# spec §7.2 D14
@pytest.mark.parametrize(
    "spec, cost, share",
    [
        ({"type": "personnelle"}, 1, None),
        ({"type": "royaume", "barrier": "gardien", "control": "flux", "shared": True}, 8, 4),
        ({"type": "primal", "barrier": "communications", "control": "destin", "shared": True}, 9, 4),
        (
            {
                "type": "primal",
                "barrier": "communications",
                "control": "destin",
                "shared": True,
                "pays_odd_point": True,
            },
            9,
            5,
        ),
        ({"type": "personnelle", "broken_pattern": True, "control": "contenu"}, 5, None),
    ],
)
def test_shadow_costs_d14(spec, cost, share):
    result = shadow_cost(spec)
    assert result.valid and result.amount == cost and result.share == share


def test_sh4_shadow_type_is_exclusive():
    assert [e.code for e in shadow_cost({"type": ["personnelle", "royaume"]}).errors] == ["exclusive_tiers"]
    assert [e.code for e in shadow_cost({"type": ""}).errors] == ["required"]
    assert [e.code for e in shadow_cost({"type": "personnelle", "barrier": ["acces", "gardien"]}).errors] == [
        "exclusive_tiers"
    ]


def test_s12_broken_pattern_counts_as_primal_plane_l277():
    assert shadow_cost({"type": "personnelle", "broken_pattern": True}).amount == 4


# spec §7.2 D15
def test_c1_construct():
    spec = {
        "base_power": "atouts",
        "origin_shadows": [{"type": "personnelle", "barrier": "acces"}, {"type": "royaume", "control": "contenu"}],
        "shadow_quantity": "recense",
        "manifestations": [
            {
                "kind": "creature",
                "qualities": {"vitalite": "animale", "mouvement": "mobile", "intelligence": "vocalises"},
                "quantity": "unique",
                "connection": "canal",
            }
        ],
        "psyche": "sensible",
    }
    assert construct_cost(spec, owner_powers={"atouts"}).amount == 19
    refused = construct_cost(spec, owner_powers={"logrus"})
    assert [e.code for e in refused.errors] == ["creator_power_required"]


def test_c2_construct_base_readings():
    spec = {
        "base_power": "pouvoir_ombre",
        "origin_shadows": [{"type": "primal"}, {"type": "personnelle", "barrier": "gardien"}],
        "shadow_quantity": "recense",
    }
    assert construct_cost(spec).amount == 16
    assert construct_cost(spec, settings={"construct_base_reading": "most_expensive"}).amount == 10
    assert construct_cost(spec, settings={"construct_base_reading": "literal"}).amount == 10


def test_c3_minimal_construct_and_gm_psyche():
    assert construct_cost({"origin_shadows": [{"type": "personnelle"}]}).amount == 1
    spec = {"origin_shadows": [{"type": "personnelle"}], "psyche": "pouvoir"}
    assert [e.code for e in construct_cost(spec).errors] == ["gm_value_required"]
    assert construct_cost(spec, settings={"construct_power_psyche_cost": 3}).amount == 4
    assert construct_cost({**spec, "psyche_cost": 2}).amount == 3
    assert [e.code for e in construct_cost({}).errors] == ["required"]


@pytest.mark.parametrize(
    "kind, cost",
    [
        ("allie_ambre", 1),
        ("ami_demoniaque", 1),
        ("ami_cour", 2),
        ("soutien_maison", 3),
        ("protecteur_chaos", 4),
        ("protecteur_ambre", 6),
    ],
)
def test_ally_costs_l330_l340(kind, cost):
    assert ally_cost({"type": kind}).amount == cost
    assert ally_cost(kind).amount == cost


def test_ally_bad_type():
    assert ally_cost({"type": "roi"}).errors[0].code == "invalid_choice"


# spec §7.2 D16
@pytest.mark.parametrize("rule, cost", [("product", 306), ("sum", 136), ("max", 51)])
def test_d16_invented_power(rule, cost):
    spec = {
        "domain": "infini",
        "versus": {
            "marelle": "faible",
            "logrus": "faible",
            "atouts": "egal",
            "metamorphose": "impuissant",
            "magie": "fort",
        },
        "multipliers": {"communication": "objectif", "transport": "canal", "invocation": "invocation"},
    }
    assert invented_power_cost(spec, {"invented_multiplier_rule": rule}).amount == cost
    assert invented_power_cost({**spec, "gm_cost": 60}).amount == 60


def test_invented_power_must_rate_all_five():
    result = invented_power_cost({"domain": "aucun", "versus": {"marelle": "egal"}})
    assert len([e for e in result.errors if e.code == "required"]) == 4


def test_s10_selections_at_the_same_cost_l85():
    table = {
        "power_tables": {
            "mots_de_pouvoir": [
                {"level": 4, "cost": 10, "items": ["mots de défense niveau 1"]},
                {"level": 5, "cost": 14, "items": ["mots d'attaque niveau 1"]},
                {"level": 6, "cost": 14, "items": ["mots de rupture"]},
                {"level": 7, "cost": 20, "items": ["mots majeurs"]},
            ]
        }
    }
    at5 = costs.available_selections("mots_de_pouvoir", 5, table)
    assert "mots d'attaque niveau 1" in at5 and "mots de rupture" in at5 and "mots majeurs" not in at5
    assert costs.available_selections("mots_de_pouvoir", 3, table) == []
    assert costs.available_selections("sorcellerie", 5) == []


def test_public_calculators_are_exported():
    import rules.ambre as ambre

    assert ambre.shadow_cost({"type": "royaume"}).amount == 2
    assert ambre.spell_cost(10, 1, prepared=True, instant=True)["energy"] == 30
