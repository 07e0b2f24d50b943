"""Ambre: karma ledger, loans, purchases, session job (spec §5, D3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.ambre.progression import karma_balance, karma_state
from rules.tests.test_ambre_characters import ariane, borel, cendre

SYSTEM = get_system("ambre")


def entry(amount, kind="gm_award", currency="karma"):
    return {"currency": currency, "amount": amount, "kind": kind, "data": {}}


def test_d3_karma_repayment():
    creation = [entry(125, "creation_budget"), entry(-128, "purchase")]
    before = SYSTEM.apply_progression(borel(), creation)
    assert before.balances == {"karma": -3}
    assert {f["code"] for f in before.flags} == {"negative_karma"}
    after = SYSTEM.apply_progression(borel(), [*creation, entry(5)])
    assert after.balances == {"karma": 2} and after.flags == []
    assert (
        karma_state(-3)["state"] == "bad"
        and karma_state(2)["state"] == "good"
        and karma_state(0)["state"] == ("neutral")
    )


def test_xp_entries_are_karma_l391():
    assert karma_balance([entry(3, currency="xp"), entry(2), {"currency": "other", "amount": 9}]) == 5


def test_mortal_wound_and_negative_karma_is_flagged_not_death():
    sheet = borel()
    sheet["condition"]["wounds"]["mortal"] = 1
    result = SYSTEM.apply_progression(sheet, [entry(-1)])
    assert "mortal_wound_negative_karma" in {f["code"] for f in result.flags}
    assert result.sheet["condition"]["dead"] is False
    assert "mortal_wound_negative_karma" not in {f["code"] for f in SYSTEM.apply_progression(sheet, [entry(1)]).flags}


def test_apply_progression_is_idempotent():
    entries = [entry(100, "creation_budget"), entry(-97, "purchase"), entry(4)]
    first = SYSTEM.apply_progression(cendre(), entries)
    second = SYSTEM.apply_progression(first.sheet, entries)
    assert first.balances == second.balances == {"karma": 7} and first.sheet == second.sheet


def test_session_awards_are_gm_presets_only():
    assert SYSTEM.suggest_session_awards(cendre(), {"present": True}) == []
    drafts = SYSTEM.suggest_session_awards(cendre(), {"present": True}, {"session_award": 2})
    assert [(d.amount, d.kind, d.currency) for d in drafts] == [(2, "system_award", "karma")]
    assert SYSTEM.suggest_session_awards(cendre(), {"present": False}, {"session_award": 2}) == []


def test_attribute_purchase_with_allocation():
    request = {"kind": "attribute", "attribute": "phy", "points": 5, "allocation": {"force": 3, "rapidite": 2}}
    result = SYSTEM.purchase(cendre(), request, {"karma": 30})
    assert result.ok and [(e.amount, e.kind) for e in result.entries] == [(-5, "purchase")]
    assert result.sheet["attributes"]["phy"] == 15 and result.sheet["characteristics"]["force"] == 13
    assert SYSTEM.validate_sheet(result.sheet) == []
    wrong = SYSTEM.purchase(cendre(), {**request, "allocation": {"force": 4}}, {"karma": 30})
    assert [e.code for e in wrong.errors] == ["allocation_sum"]
    other = SYSTEM.purchase(cendre(), {**request, "allocation": {"mental": 5}}, {"karma": 30})
    assert "wrong_attribute" in {e.code for e in other.errors}


def test_raising_a_human_attribute():
    request = {"kind": "attribute", "attribute": "cbt", "points": 15, "allocation": {"hab_cac": 10, "hab_distance": 5}}
    result = SYSTEM.purchase(borel(), request, {"karma": 20})
    assert result.ok and result.sheet["attributes"]["cbt"] == -10 and result.entries[0].amount == -15
    bad = SYSTEM.purchase(borel(), {**request, "points": 5, "allocation": {"hab_cac": 5}}, {"karma": 20})
    assert "invalid_attribute_rank" in {e.code for e in bad.errors}
    priced = SYSTEM.purchase(borel(), request, {"karma": 40}, {"attribute_point_cost": 2})
    assert priced.entries[0].amount == -30


def test_power_purchase_prerequisites_and_conversion():
    ok = SYSTEM.purchase(cendre(), {"kind": "power", "power": "compulsion"}, {"karma": 30})
    assert ok.ok and ok.entries[0].amount == -5 and ok.sheet["powers"][-1]["power"] == "compulsion"
    refused = SYSTEM.purchase(ariane(), {"kind": "power", "power": "compulsion"}, {"karma": 30})
    assert [e.code for e in refused.errors] == ["power_prerequisite"]
    dup = SYSTEM.purchase(ariane(), {"kind": "power", "power": "atouts"}, {"karma": 99})
    assert [e.code for e in dup.errors] == ["power_duplicate"]
    sheet = cendre()
    sheet["powers"].append({"power": "marelle_brisee", "level": None})
    walk = SYSTEM.purchase(sheet, {"kind": "power", "power": "marelle"}, {"karma": 40})
    assert walk.ok and walk.entries[0].amount == -38
    assert [p["power"] for p in walk.sheet["powers"]] == ["conjuration", "marelle"]
    assert walk.sheet["powers"][-1]["via_marelle_brisee"] is True


def test_power_level_purchase_needs_gm_table():
    request = {"kind": "power_level", "power": "atouts", "level": 6}
    missing = SYSTEM.purchase(ariane(), request, {"karma": 20})
    assert [e.code for e in missing.errors] == ["power_table_missing"]
    table = {"power_tables": {"atouts": [{"level": 5, "cost": 40}, {"level": 6, "cost": 48}]}}
    bought = SYSTEM.purchase(ariane(), request, {"karma": 20}, table)
    assert bought.ok and bought.entries[0].amount == -8 and bought.sheet["powers"][0]["level"] == 6
    lower = SYSTEM.purchase(ariane(), {**request, "level": 5}, {"karma": 20}, table)
    assert [e.code for e in lower.errors] == ["level_not_higher"]
    held = SYSTEM.purchase(ariane(), {**request, "power": "logrus"}, {"karma": 20}, table)
    assert [e.code for e in held.errors] == ["power_not_held"]


@pytest.mark.parametrize(
    "kind, item, cost",
    [
        ("artefact", {"name": "Épée", "qualities": {"degats": "double"}}, 2),
        ("shadow", {"name": "Tir", "type": "royaume", "shared": True, "pays_odd_point": True}, 1),
        ("construct", {"name": "Roue", "base_power": "atouts", "origin_shadows": [{"type": "personnelle"}]}, 1),
        ("ally", {"type": "protecteur_ambre", "name": "Benedict"}, 6),
    ],
)
def test_asset_purchases(kind, item, cost):
    result = SYSTEM.purchase(ariane(), {"kind": kind, "item": item}, {"karma": 15})
    assert result.ok and result.entries[0].amount == -cost
    listed = {"artefact": "artefacts", "shadow": "shadows", "construct": "constructs", "ally": "allies"}[kind]
    assert result.sheet[listed][-1]["name"] == item["name"]
    # The ledger note names the asset as the text does, never by its internal key.
    label = {"artefact": "Artefact", "shadow": "Ombre", "construct": "Construct", "ally": "Allié"}[kind]
    assert result.entries[0].note.fr == f"{label} : {item['name']}"


def test_purchase_bad_input_and_permissions_of_the_loan():
    assert SYSTEM.purchase(cendre(), {"kind": "teleport"}, {"karma": 5}).errors[0].code == "unsupported"
    missing = SYSTEM.purchase(cendre(), {"kind": "attribute"}, {"karma": 5})
    assert {e.path for e in missing.errors} == {"attribute", "points"}
    loan = SYSTEM.purchase(cendre(), {"kind": "ally", "item": {"type": "protecteur_ambre"}}, {"karma": 2})
    assert [e.code for e in loan.errors] == ["karma_loan_required"] and loan.entries == []
    accepted = SYSTEM.purchase(
        cendre(), {"kind": "ally", "item": {"type": "protecteur_ambre"}, "accept_loan": True}, {"karma": 2}
    )
    assert accepted.ok and accepted.entries[0].data["balance_after"] == -4
    capped = SYSTEM.purchase(
        cendre(),
        {"kind": "ally", "item": {"type": "protecteur_ambre"}, "accept_loan": True},
        {"karma": 2},
        {"debt_limit": 3},
    )
    assert [e.code for e in capped.errors] == ["debt_limit"]
    bad_item = SYSTEM.purchase(cendre(), {"kind": "ally", "item": {"type": "roi"}}, {"karma": 9})
    assert [e.path for e in bad_item.errors] == ["item.type"]


purchases = st.one_of(
    st.builds(
        lambda t: {"kind": "ally", "item": {"type": t}},
        st.sampled_from(["allie_ambre", "ami_cour", "soutien_maison", "protecteur_ambre"]),
    ),
    st.builds(lambda p: {"kind": "power", "power": p}, st.sampled_from(["atouts", "sorcellerie", "marelle"])),
    st.builds(
        lambda n: {"kind": "attribute", "attribute": "psy", "points": n, "allocation": {"mental": n}},
        st.integers(1, 60),
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(purchases, st.booleans()), max_size=8), st.integers(-20, 60))
def test_balance_never_goes_negative_without_an_explicit_loan(steps, start):
    sheet, balance = cendre(), start
    for request, loan in steps:
        result = SYSTEM.purchase(sheet, {**request, "accept_loan": loan}, {"karma": balance})
        if not result.ok:
            assert result.sheet is sheet and result.entries == []
            continue
        spent = sum(e.amount for e in result.entries)
        assert spent <= 0
        if balance + spent < 0 and spent:
            assert loan
        balance += spent
        sheet = result.sheet
