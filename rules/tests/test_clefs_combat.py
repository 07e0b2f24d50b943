"""Clefs de l'Aube: combat as confrontations round by round (reading documented in rules.clefs.combat).

The seed stops before its combat chapter (L1134); these tests pin the
app's reading: confrontation winner (L1068-L1072), multiple-action
handicaps (L1078-L1087), harm recorded as handicaps (L739-L746).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import Combatant, RulesError, ScriptedRandom, SeededRandom
from rules.clefs import SYSTEM

MEANS = {"PU": 2, "RE": -1, "MA": 1, "PR": 0, "EX": -2, "PE": 0}


def fighter(cid, ph=12, skill_nc=12, conditions=(), npc=False):
    sheet = {
        "creation": {"skill_package": "free", "aspect_method": "FIXED_10", "means_method": "ZERO"},
        "aspects": {"PH": ph, "ME": 10, "MY": 10},
        "means": dict(MEANS),
        "skills": [{"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": skill_nc}],
        "conditions": list(conditions),
    }
    return Combatant(cid, cid.title(), "a" if cid == "alice" else "b", sheet, SYSTEM.combat_state(sheet), is_npc=npc)


def test_it_copies_active_sheet_conditions_into_combat_state():
    sheet_conditions = [
        {"kind": "handicap", "value": 3, "source": "blessure", "active": True},
        {"kind": "handicap", "value": 9, "active": False},
        {"kind": "advantage", "value": 2, "source": "épée de qualité"},
    ]
    state = fighter("bob", conditions=sheet_conditions).state
    assert [h["value"] for h in state["handicaps"]] == [3]
    assert [a["value"] for a in state["advantages"]] == [2]


def test_it_orders_by_the_gm_declared_order_without_dice():
    a, b, c = fighter("alice"), fighter("bob"), fighter("carol")
    order = SYSTEM.initiative(
        [a, b, c], {"alice": {"order": 2}, "bob": {"order": 1}, "carol": {"order": 2}}, ScriptedRandom([])
    )
    assert [row["id"] for row in order] == ["bob", "alice", "carol"]
    assert all(row["draws"] == [] for row in order)


def test_it_orders_by_opposed_rolls_when_configured():
    """Success before failure, higher °R first (L1068-L1072); draws recorded per participant."""
    a, b, c = fighter("alice"), fighter("bob"), fighter("carol")
    rng = ScriptedRandom([5, 11, 20])  # CA = PH 12 + Pe 0 = 12: 5 ok, 11 ok, 20 fails
    order = SYSTEM.initiative([a, b, c], {}, rng, {"initiative_mode": "opposed_roll"})
    assert [row["id"] for row in order] == ["bob", "alice", "carol"]
    assert [row["draws"] for row in order] == [[11], [5], [20]]
    assert rng.remaining == 0


def test_it_resolves_an_opposed_attack_and_records_harm():
    """Alice (PH 12 + Pu 2 + BC 2 = 16) vs Bob's defence PH 12 + Ré −1 = 11; both succeed, 14 > 7."""
    alice, bob = fighter("alice"), fighter("bob")
    decl = {
        "kind": "opposed",
        "aspect_code": "PH",
        "means_code": "PU",
        "skill_name": "Épée",
        "defense_aspect_code": "PH",
        "defense_means_code": "RE",
        "harm": 4,
        "harm_note": "entaille",
    }
    result = SYSTEM.resolve_action(alice, bob, decl, ScriptedRandom([14, 7]))
    assert result.outcome["actor"]["ca"] == 16 and result.outcome["target"]["ca"] == 11
    assert result.outcome["winner"] == "alice"
    assert result.draws == [14, 7]
    (change,) = result.state_changes
    assert (change.participant_id, change.path, change.before) == ("bob", "handicaps", [])
    assert change.after == [{"value": 4, "source": "harm", "note": "entaille", "by": "alice"}]


def test_it_subtracts_recorded_harm_on_later_actions():
    bob = fighter("bob")
    bob.state["handicaps"] = [{"value": 4, "source": "harm"}]
    result = SYSTEM.resolve_action(
        bob,
        fighter("alice"),
        {"kind": "opposed", "aspect_code": "PH", "means_code": "PU", "skill_name": "Épée"},
        ScriptedRandom([3, 3]),
    )
    assert result.outcome["actor"]["ca"] == 12
    assert result.outcome["winner"] is None  # equal °R: status quo (G4)
    assert result.state_changes == []


def test_it_applies_multiple_action_handicaps_in_combat():
    """Mireille's second of three actions: handicap 6; an unplanned one after three: 14 (L1099-L1107)."""
    alice, bob = fighter("alice"), fighter("bob")
    base = {"kind": "opposed", "aspect_code": "PH", "means_code": "PU", "skill_name": "Épée"}
    second = SYSTEM.resolve_action(
        alice, bob, {**base, "planned_actions": 3, "action_index": 2}, ScriptedRandom([1, 20])
    )
    assert second.outcome["actor"]["ca"] == 16 - 6
    unplanned = SYSTEM.resolve_action(
        alice, bob, {**base, "planned_actions": 3, "unplanned_index": 1}, ScriptedRandom([1, 20])
    )
    assert unplanned.outcome["actor"]["ca"] == 16 - 14
    assert unplanned.inputs["multiple_action_handicap"] == 14


def test_it_forces_rolls_in_confrontations_at_automatic_ca():
    strong, weak = fighter("alice", ph=20), fighter("bob", ph=0)
    result = SYSTEM.resolve_action(
        strong,
        weak,
        {"kind": "opposed", "aspect_code": "PH", "means_code": "PU", "skill_name": "Épée"},
        ScriptedRandom([20, 1]),
    )
    assert result.outcome["actor"]["level"] == "FAILURE"  # forced roll at CA ≥ 20: a 20 fails (L801-L803)
    assert result.outcome["target"]["level"] == "SUCCESS"
    assert result.outcome["winner"] == "bob"


def test_it_computes_margin_harm_as_a_house_rule():
    alice, bob = fighter("alice"), fighter("bob")
    decl = {"kind": "opposed", "aspect_code": "PH", "means_code": "PU", "skill_name": "Épée"}
    result = SYSTEM.resolve_action(alice, bob, decl, ScriptedRandom([14, 7]), {"harm_mode": "margin"})
    assert result.outcome["harm"] == 7
    failed_defence = SYSTEM.resolve_action(alice, bob, decl, ScriptedRandom([9, 15]), {"harm_mode": "margin"})
    assert failed_defence.outcome["harm"] == 9


def test_it_resolves_a_simple_action_with_nd():
    result = SYSTEM.resolve_action(
        fighter("alice"),
        None,
        {"kind": "simple", "aspect_code": "PH", "means_code": "MA", "nd": 5},
        ScriptedRandom([6]),
    )
    assert result.outcome["actor"]["ca"] == 13
    assert result.outcome["actor"]["nd_met"] is True


def test_it_lets_the_gm_add_and_remove_handicaps():
    bob = fighter("bob")
    added = SYSTEM.resolve_action(
        fighter("alice"),
        bob,
        {"kind": "condition", "condition_op": "add", "condition_value": 5, "harm_note": "poison"},
        ScriptedRandom([]),
    )
    (change,) = added.state_changes
    assert change.after == [{"value": 5, "source": "gm", "note": "poison"}]
    bob.state["handicaps"] = change.after
    removed = SYSTEM.resolve_action(
        fighter("alice"), bob, {"kind": "condition", "condition_op": "remove", "condition_index": 0}, ScriptedRandom([])
    )
    assert removed.state_changes[0].after == []


@pytest.mark.parametrize(
    ("declaration", "target", "code"),
    [
        ({"kind": "opposed", "aspect_code": "PH"}, None, "required"),
        ({"kind": "fly"}, "bob", "unsupported"),
        ({"kind": "opposed", "planned_actions": 2, "action_index": 3}, "bob", "index_above_planned"),
        ({"kind": "opposed", "harm": -1}, "bob", "out_of_range"),
        ({"kind": "opposed", "aspect_code": "XX"}, "bob", "invalid_choice"),
        ({"kind": "condition", "condition_op": "remove", "condition_index": 3}, "bob", "out_of_range"),
        ({"kind": "condition", "condition_op": "add", "condition_value": 0}, "bob", "min_value"),
    ],
)
def test_it_rejects_bad_declarations(declaration, target, code):
    with pytest.raises(RulesError) as info:
        SYSTEM.resolve_action(
            fighter("alice"), fighter(target) if target else None, declaration, ScriptedRandom([5, 5])
        )
    assert code in {e.code for e in info.value.errors}


def test_it_keeps_npc_ca_secret_fields():
    result = SYSTEM.resolve_action(
        fighter("alice"), fighter("bob", npc=True), {"kind": "opposed", "aspect_code": "PH"}, ScriptedRandom([5, 5])
    )
    assert result.secret == {"target_ca": result.outcome["target"]["ca"]}
    assert result.to_dict()["system"] == "clefs-de-l-aube"


_junk = st.one_of(st.none(), st.booleans(), st.integers(-300, 300), st.text(max_size=4))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from([f.path for f in SYSTEM.action_fields()]), _junk, max_size=8))
def test_it_only_raises_rules_errors_on_junk_declarations(declaration):
    try:
        SYSTEM.resolve_action(fighter("alice"), fighter("bob"), declaration, SeededRandom(3))
    except RulesError as exc:
        assert exc.errors


def test_a_declared_skill_must_be_on_the_sheet():
    """Issue #19 item 9: "Hache" is refused for a character who has only "Épée" (L429-L432; reading G13)."""
    alice, bob = fighter("alice"), fighter("bob")
    errors = SYSTEM.validate_action(alice.sheet, {"kind": "simple", "skill_name": "Hache"})
    assert [(e.path, e.code) for e in errors] == [("skill_name", "unknown_skill")]
    assert "Hache" in errors[0].message.fr and "Épée" in errors[0].message.fr
    assert SYSTEM.validate_action(alice.sheet, {"kind": "simple", "skill_name": "épée"}) == []
    assert SYSTEM.validate_action(alice.sheet, {"kind": "simple", "skill_name": ""}) == []
    # The GM may have the character use a skill he lacks: an untrained roll (NC 0).
    assert SYSTEM.validate_action(alice.sheet, {"kind": "simple", "skill_name": "Hache", "skill_untrained": True}) == []
    defence = {"kind": "opposed", "skill_name": "Épée", "defense_skill_name": "Bouclier"}
    assert [e.path for e in SYSTEM.validate_action(alice.sheet, defence, bob.sheet)] == ["defense_skill_name"]
    untrained = next(f for f in SYSTEM.action_fields() if f.path == "skill_untrained")
    assert untrained.audience == "gm"
