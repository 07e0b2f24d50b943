"""Altaride combat round: initiative, attack/parry/dodge, damage, pools and recovery (spec §4.6-§4.9, D32-D41)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules import get_system
from rules.base import Combatant, CombatResult, RulesError, ScriptedRandom
from rules.tests.test_altaride_creation import SETTINGS, aldo

SYSTEM = get_system("altaride")


def fighter(cid: str, state: dict[str, Any] | None = None, **talents: int) -> Combatant:
    sheet = aldo()
    sheet["talents"].update(talents)
    sheet["skills"].append({"key": "epee", "level": 3})
    base = SYSTEM.combat_state(sheet, SETTINGS)
    base.update(copy.deepcopy(state or {}))
    return Combatant(cid, cid.upper(), cid, sheet, base)


def act(
    actor: Combatant,
    target: Combatant | None,
    decl: dict[str, Any],
    *draws: int,
    settings: dict[str, Any] | None = None,
) -> CombatResult:
    rng = ScriptedRandom(draws)
    result = SYSTEM.resolve_action(actor, target, decl, rng, settings if settings is not None else SETTINGS)
    assert rng.remaining == 0
    return result


def changes(result: CombatResult) -> dict[tuple[str, str], tuple[Any, Any]]:
    return {(c.participant_id, c.path): (c.before, c.after) for c in result.state_changes}


def test_it_builds_the_combat_state_from_the_sheet() -> None:
    state = SYSTEM.combat_state(aldo(), SETTINGS)
    assert state["endurance"] == {"EP": 17, "EM": 11, "EL": 11, "EO": 20}
    assert state["actions_taken"] == 0 and state["unconscious"] is False and state["dodge"] is None


# ---- initiative ----------------------------------------------------------------------------------------------
def test_it_orders_initiative_by_perception_roll_margin() -> None:  # D32
    a = fighter("a", PER=12)
    b = fighter("b", PER=14)
    order = SYSTEM.initiative(
        [b, a], {"a": {"weapon": "dague"}, "b": {"weapon": "grande_epee"}}, ScriptedRandom([5, 7]), SETTINGS
    )
    assert [e["id"] for e in order] == ["a", "b"]
    assert (order[0]["roll"]["die"], order[0]["margin"]) == (8, 4)
    assert (order[1]["roll"]["die"], order[1]["margin"]) == (11, 3)
    assert {"participant_id": "a", "path": "actions_taken", "before": 0, "after": 0} in order[0]["state_changes"]


def test_it_breaks_initiative_ties_by_perception_then_draw() -> None:  # D33
    a = fighter("a", PER=12)
    b = fighter("b", PER=14)
    order = SYSTEM.initiative([a, b], {}, ScriptedRandom([9, 11]), SETTINGS)
    assert [e["id"] for e in order] == ["b", "a"]
    c = fighter("c", PER=12)
    order = SYSTEM.initiative([a, c], {}, ScriptedRandom([9, 9, 100, 900]), SETTINGS)
    assert [e["id"] for e in order] == ["c", "a"]
    assert order[0]["draws"] == [9, 900]


def test_it_puts_criticals_first_and_last_and_skips_unconscious() -> None:
    a, b, c = (
        fighter("a", PER=5),
        fighter("b", PER=20),
        fighter("c", state={"unconscious": True, "unconscious_cause": "EL"}),
    )
    order = SYSTEM.initiative([a, b, c], {}, ScriptedRandom([1, 20]), SETTINGS)
    assert [(e["id"], e["acts"]) for e in order] == [("a", True), ("b", True), ("c", False)]
    assert order[0]["tags"] == ["natural_1"]


def test_it_supports_static_initiative() -> None:  # A15 option
    order = SYSTEM.initiative(
        [fighter("a", PER=12), fighter("b", PER=14)], {}, ScriptedRandom([]), {**SETTINGS, "initiative_mode": "static"}
    )
    assert [e["id"] for e in order] == ["b", "a"]


# ---- attacks -------------------------------------------------------------------------------------------------
def test_it_hits_and_knocks_out_or_kills() -> None:  # D36, D37
    attacker = fighter("a")
    for ep, after, unconscious, dead in ((17, 0, True, False), (12, -5, True, True)):
        target = fighter("t", state={"endurance": {"EP": ep}})
        result = act(attacker, target, {"action": "attack", "weapon": "dague"}, 7, 15)
        assert result.outcome["damage"]["amount"] == 17
        diff = changes(result)
        assert diff[("t", "endurance.EP")] == (ep, after)
        assert (("t", "unconscious") in diff) is unconscious
        assert (("t", "dead") in diff) is dead
        assert diff[("a", "actions_taken")] == (0, 1)


def test_it_stuns_with_plus_one_on_the_die() -> None:  # D38
    attacker, target = fighter("a"), fighter("t")
    result = act(
        attacker,
        target,
        {"action": "attack", "weapon": "dague", "damage_type": "lucidite", "modifier": -1, "extras": [1]},
        9,
        7,
    )
    assert (result.outcome["roll"]["die"], result.outcome["roll"]["success_margin"]) == (10, 4)
    assert result.outcome["damage"]["amount"] == 9
    assert changes(result)[("t", "endurance.EL")] == (11, 2)


def test_it_applies_the_vig_min_malus() -> None:  # S19, D22
    attacker = fighter("a")  # VIG 12, great sword VIG Mini 14, epee CR 15
    result = act(attacker, fighter("t"), {"action": "attack", "weapon": "grande_epee"}, 5, 2)
    assert result.outcome["target_parts"]["vig_min_malus"] == -10
    assert (result.outcome["roll"]["target"], result.outcome["roll"]["success_margin"]) == (5, 0)
    assert result.outcome["damage"]["amount"] == 0 + 2 + 1


def test_it_gives_ties_to_the_parrying_defender() -> None:  # D26, D27
    attacker = fighter("a")  # mains nues CR 15
    defender = fighter("d", HAB=14, VIG=14)  # epee: 14 + 3 = 17
    parried = act(
        attacker,
        defender,
        {
            "action": "attack",
            "weapon": "dague",
            "modifier": -1,
            "defence": "parry",
            "defender_skill": "epee",
            "defender_modifier": -4,
        },
        6,
        5,
    )
    assert parried.outcome["contest"]["winner"] == "defender" and "damage" not in parried.outcome
    assert changes(parried)[("d", "actions_taken")] == (0, 1)
    hit = act(
        attacker,
        defender,
        {
            "action": "attack",
            "weapon": "dague",
            "modifier": -1,
            "defence": "parry",
            "defender_skill": "epee",
            "defender_modifier": -4,
        },
        6,
        9,
        10,
    )
    assert hit.outcome["hit"] is True and hit.draws == [6, 9, 10]


def test_it_applies_the_action_malus_to_each_parry() -> None:  # D35
    attacker = fighter("a")
    defender = fighter("d", state={"actions_taken": 1}, HAB=14, VIG=14)
    decl = {
        "action": "attack",
        "weapon": "dague",
        "defence": "parry",
        "defender_skill": "epee",
        "defender_modifier": -3,
    }
    first = act(attacker, defender, decl, 16, 10)
    assert first.outcome["defender_roll"]["target"] == 13
    defender.state["actions_taken"] = 2
    second = act(attacker, defender, decl, 16, 10)
    assert second.outcome["defender_roll"]["target"] == 12


def test_it_keeps_one_dodge_for_the_whole_round() -> None:  # D34
    first_attacker, second_attacker = fighter("a"), fighter("b")
    dodger = fighter("c", HAB=13, PER=13)  # esquive HAB+PER -> CR 13
    result = act(first_attacker, dodger, {"action": "attack", "weapon": "dague", "defence": "dodge"}, 10, 6)
    assert result.outcome["roll"]["success_margin"] == 5
    assert result.outcome["defender_roll"]["success_margin"] == 7 and result.outcome["hit"] is False
    dodge = changes(result)[("c", "dodge")][1]
    dodger.state.update(dodge=dodge, actions_taken=1)
    again = act(second_attacker, dodger, {"action": "attack", "weapon": "dague", "defence": "none"}, 8)
    assert again.outcome["reused_dodge"] is True and again.outcome["contest"]["winner"] == "defender"
    with pytest.raises(RulesError) as exc:
        act(dodger, first_attacker, {"action": "attack", "weapon": "dague"})
    assert exc.value.errors[0].code == "dodged"


def test_it_hits_an_undefended_target_on_a_plain_success() -> None:  # D31
    result = act(fighter("a"), fighter("t"), {"action": "attack", "weapon": "dague", "modifier": -3}, 12, 2)
    assert result.outcome["roll"]["success_margin"] == 0 and result.outcome["hit"] is True


def test_it_refuses_impossible_attacks() -> None:
    attacker, target = fighter("a"), fighter("t")
    with pytest.raises(RulesError) as exc:
        act(attacker, target, {"action": "attack", "weapon": "lance"})
    assert exc.value.errors[0].code == "mounted_only"
    with pytest.raises(RulesError) as exc:
        act(attacker, target, {"action": "attack", "weapon": "hache"})
    assert exc.value.errors[0].code == "unknown_weapon"
    with pytest.raises(RulesError) as exc:
        act(attacker, None, {"action": "attack", "weapon": "dague"})
    assert exc.value.errors[0].code == "target_required"
    with pytest.raises(RulesError) as exc:
        act(fighter("x", state={"dead": True}), target, {"action": "attack", "weapon": "dague"})
    assert exc.value.errors[0].code == "dead"
    with pytest.raises(RulesError) as exc:
        act(attacker, target, {"action": "attack", "extras": [2], "weapon": "dague"})
    assert exc.value.errors[0].code == "extra_out_of_range"
    with pytest.raises(RulesError):
        act(attacker, target, {"action": "fly"})
    with pytest.raises(RulesError) as exc:
        act(
            fighter("y", state={"actions_taken": 2}),
            target,
            {"action": "attack", "weapon": "dague"},
            settings={**SETTINGS, "max_actions_per_round": 2},
        )
    assert exc.value.errors[0].code == "too_many_actions"


def test_it_allows_a_mounted_lance() -> None:
    rider = fighter("r")
    rider.sheet["conditions"]["mounted"] = True
    assert act(rider, fighter("t"), {"action": "attack", "weapon": "lance"}, 3, 4).outcome["hit"] is True


# ---- pools and recovery -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("amount", "after", "dead"), [(7, -4, False), (8, -5, True)])
def test_it_applies_ep_thresholds(amount: int, after: int, dead: bool) -> None:  # D40, S8
    victim = fighter("v", state={"endurance": {"EP": 3}})
    result = act(fighter("gm"), victim, {"action": "damage", "pool": "EP", "amount": amount})
    diff = changes(result)
    assert diff[("v", "endurance.EP")] == (3, after)
    assert diff[("v", "unconscious")] == (False, True)
    assert (("v", "dead") in diff) is dead


def test_it_flags_possible_madness_on_em() -> None:  # S9
    result = act(fighter("gm"), fighter("v"), {"action": "damage", "pool": "EM", "amount": 16})
    assert result.outcome["madness_possible"] is True
    assert changes(result)[("v", "unconscious_cause")] == ("", "EM")


def test_it_regenerates_lucidity_and_wakes_up() -> None:  # D41, S10
    state = {"endurance": {"EL": -1}, "unconscious": True, "unconscious_cause": "EL", "actions_taken": 2}
    knocked = fighter("k", state=state)
    sequence = [(1, 0, False), (1, 1, False), (2, 2, False), (1, 3, True)]
    el = -1
    for natural, el_after, woke in sequence:
        result = act(knocked, None, {"action": "recover"}, natural)
        diff = changes(result)
        assert diff[("k", "endurance.EL")] == (el, el_after)
        assert result.outcome["woke"] is woke
        knocked.state["endurance"]["EL"] = el = el_after
        knocked.state["actions_taken"] = 0
    assert diff[("k", "unconscious")] == (True, False)
    assert diff[("k", "actions_taken")] == (0, 1)  # waking is the 1st action, acting is the 2nd (-1)


def test_it_caps_recovery_at_the_maximum_and_restores_eo() -> None:
    fresh = fighter("f")
    result = act(fresh, None, {"action": "recover"})
    assert ("f", "endurance.EL") not in changes(result)
    tired = fighter("t", state={"endurance": {"EO": 3}})
    assert changes(act(tired, None, {"action": "sleep"}))[("t", "endurance.EO")] == (3, 20)
    hurt = fighter("h", state={"endurance": {"EP": -2}, "unconscious": True, "unconscious_cause": "EP"})
    diff = changes(act(fighter("gm"), hurt, {"action": "heal", "pool": "EP", "amount": 30}))
    assert diff[("h", "endurance.EP")] == (-2, 17) and diff[("h", "unconscious")] == (True, False)


def test_it_casts_in_combat_and_spends_eo() -> None:  # D43, D44
    mage = fighter("m")
    result = act(mage, None, {"action": "cast", "spell_level": 3}, 13)
    assert changes(result)[("m", "endurance.EO")] == (20, 17)
    mage.state["endurance"]["EO"] = 2
    with pytest.raises(RulesError):
        act(mage, None, {"action": "cast", "spell_level": 3})


def test_it_resolves_a_magic_attack_in_combat() -> None:  # D49
    caster, target = fighter("c"), fighter("t", MAN=12)
    result = act(caster, target, {"action": "magic_attack", "defence": "parry"}, 9, 6)
    assert result.outcome["target_affected"] is False
    assert changes(result)[("t", "actions_taken")] == (0, 1)


def test_it_lowers_declared_dice_in_combat() -> None:  # L217, A13
    attacker, target = fighter("a"), fighter("t")
    result = act(attacker, target, {"action": "attack", "weapon": "dague", "xp_lowering": 2}, 17, 10)
    assert (result.outcome["roll"]["die"], result.outcome["hit"]) == (15, True)
    assert result.outcome["xp_spent"] == {"actor": 2, "target": 0}
    no_effect = act(attacker, target, {"action": "attack", "weapon": "dague", "xp_lowering": 5}, 20)
    assert no_effect.outcome["xp_spent"]["actor"] == 0 and no_effect.outcome["hit"] is False
    floored = act(attacker, target, {"action": "attack", "weapon": "dague", "xp_lowering": 5}, 3, 10)
    assert floored.outcome["roll"]["die"] == 1 and floored.outcome["roll"]["outcome"] == "success"


# ---- review regressions ----------------------------------------------------------------------------------------
def test_it_keeps_an_el_knock_out_from_waking_a_character_at_zero_ep() -> None:  # L117, L119
    """Knocked out by EL, then EP falls to 0: the EL wake-up roll no longer applies (cause becomes EP)."""
    state = {"endurance": {"EL": -1, "EP": 3}, "unconscious": True, "unconscious_cause": "EL"}
    victim = fighter("v", state=state)
    diff = changes(act(fighter("gm"), victim, {"action": "damage", "pool": "EP", "amount": 3}))
    assert diff[("v", "unconscious_cause")] == ("EL", "EP")
    victim.state.update({"endurance": {**victim.state["endurance"], "EP": 0}, "unconscious_cause": "EP"})
    recovered = act(victim, None, {"action": "recover"})  # EL -1 -> 0, no wake-up roll drawn
    assert recovered.draws == [] and recovered.outcome["woke"] is False


def test_it_heals_ep_without_waking_a_character_still_out_by_el() -> None:  # L117, L119
    state = {"endurance": {"EP": -2, "EL": 0}, "unconscious": True, "unconscious_cause": "EP"}
    hurt = fighter("h", state=state)
    diff = changes(act(fighter("gm"), hurt, {"action": "heal", "pool": "EP", "amount": 5}))
    assert diff[("h", "endurance.EP")] == (-2, 3)
    assert diff[("h", "unconscious_cause")] == ("EP", "EL") and ("h", "unconscious") not in diff


def test_it_counts_natural_ones_per_side_in_an_attack() -> None:  # L101, L213, A35
    attacker, defender = fighter("a"), fighter("d", HAB=14, VIG=14)
    decl = {"action": "attack", "weapon": "dague", "defence": "parry", "defender_skill": "epee"}
    result = act(attacker, defender, decl, 5, 1)
    assert (result.outcome["natural_ones"], result.outcome["defender_natural_ones"]) == (0, 1)
    every = {**SETTINGS, "xp_for_every_d20": True}
    hit = act(attacker, fighter("t"), {"action": "attack", "weapon": "dague"}, 7, 1, settings=every)
    assert hit.outcome["damage"]["die"] == 1 and hit.outcome["natural_ones"] == 1  # damage die counted (option)
    plain = act(attacker, fighter("t"), {"action": "attack", "weapon": "dague"}, 7, 1)
    assert plain.outcome["natural_ones"] == 0
