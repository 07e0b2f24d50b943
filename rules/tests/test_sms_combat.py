"""SMS combat: attack/defence dice, armour, shields, size, initiative, reactions, PvP (spec §4.6, §4.9–4.13)."""

from __future__ import annotations

from typing import Any

import pytest

from rules import get_system
from rules.base import Combatant, RulesError, ScriptedRandom
from rules.sms.combat import (
    armour_modifier,
    initiative_order,
    pc_attack_die,
    pc_defence_die,
    pvp_outcome,
    size_modifier,
    weapon_size_malus,
)
from rules.tests import present

SMS = get_system("sms")


def test_t6_rapier_through_the_abdomen():
    assert pc_attack_die(8, "critical") == 12
    res = SMS.resolve({"kind": "attack_npc", "score": 3, "base_die": 8, "severity": "critical"}, ScriptedRandom([3]))
    assert res.success and res.outcome["wound"] == {"severity": "critical"}
    res = SMS.resolve({"kind": "attack_npc", "score": 3, "base_die": 8, "severity": "critical"}, ScriptedRandom([4]))
    assert not res.success and res.outcome["stake"] == "critical"


def test_t7_t8_t9_defence_and_leather():
    assert pc_defence_die(8, "serious") == 6
    # T8: leather (−2 as written) and a mortal thrust (−6) lower the die by 8
    assert pc_defence_die(12, "mortal", armour_modifier(1, "leather")) == 4
    assert armour_modifier(0, "leather", "light") == 1
    # T9: light wound at D6 on an NPC in leather → D8
    assert pc_attack_die(6, "light", armour_modifier(0, "leather")) == 8
    assert pc_attack_die(6, "light", armour_modifier(0, "leather", "light")) == 8  # 7 rounds up
    assert pc_defence_die(12, "mortal", armour_modifier(1, "leather", "light")) == 6


def test_d6_pc_attacks_npc():
    assert pc_attack_die(8, "critical", 2, -2) == 12
    assert pc_attack_die(8, "light", 2, -2) == 8
    assert present(
        SMS.odds({"kind": "attack_npc", "score": 6, "base_die": 8, "armour_category": 2, "circumstances": -2})
    )["success"] == pytest.approx(6 / 8)
    res = SMS.resolve({"kind": "attack_npc", "score": 6, "base_die": 4, "is_minion": True}, ScriptedRandom([]))
    assert res.success and res.draws == [] and res.outcome["target_status"] == "dead"


def test_d7_npc_attacks_pc():
    assert pc_defence_die(10, "mortal", 1, circumstances=2) == 6
    res = SMS.resolve(
        {
            "kind": "defend_npc",
            "score": 4,
            "base_die": 10,
            "severity": "mortal",
            "armour_category": 1,
            "circumstances": 2,
        },
        ScriptedRandom([5]),
    )
    assert not res.success and res.outcome["wound"] == {"severity": "mortal"}
    assert res.outcome["status"] == "out_of_combat"
    assert pc_defence_die(10, "light", 1, circumstances=2) == 12
    assert pc_defence_die(10, "light", 1, barrier_power=2, circumstances=2) == 8
    res = SMS.resolve(
        {
            "kind": "defend_npc",
            "score": 4,
            "base_die": 10,
            "severity": "serious",
            "armour_category": 3,
            "shield_category": 1,
        },
        ScriptedRandom([]),
    )
    assert res.success and res.outcome["die"] == 4 and res.draws == []
    res = SMS.resolve(
        {"kind": "defend_npc", "score": 1, "base_die": 12, "severity": "mortal", "leather": True}, ScriptedRandom([2])
    )
    assert res.outcome["die"] == 4


def test_d8_pvp():
    assert pvp_outcome(True, True, 10, 6) == {"effect": "partial", "result_die": 4}
    assert pvp_outcome(True, False, 10, 6) == {"effect": "full", "result_die": 10}
    assert pvp_outcome(False, True, 10, 6)["effect"] == "none"
    assert pvp_outcome(True, True, 6, 8)["effect"] == "countered"
    req = {
        "kind": "opposed",
        "attacker_score": 7,
        "attacker_die": 10,
        "defender_score": 3,
        "defender_die": 6,
        "armour_category": 1,
    }
    res = SMS.resolve(req, ScriptedRandom([5, 2]))
    assert res.outcome["result_die"] == 4 and res.outcome["wound_levels"] == 1
    res = SMS.resolve(req, ScriptedRandom([5, 5]))
    assert res.outcome["wound_levels"] == 4 and res.outcome["defender"]["stake"] == "minor"
    res = SMS.resolve(req, ScriptedRandom([8, 1]))
    assert res.outcome["effect"] == "none" and res.outcome["attacker"]["stake"] == "major"
    res = SMS.resolve(req, ScriptedRandom([5, 5]), {"health_model": "wound_levels"})
    assert res.outcome["wound"] == {"severity": "mortal"}


def test_t26_size_factor():
    assert size_modifier(4, 5) == 1 and size_modifier(5, 4) == -1
    assert weapon_size_malus(6, 5) == -1


def test_d9_initiative_order_and_d12_ties():
    entries = [
        {"id": "A", "score": 3, "tiebreak": 11},
        {"id": "B", "score": 3, "tiebreak": 6},
        {"id": "C", "score": 3, "tiebreak": 7},
        {"id": "D", "score": 5, "tiebreak": 16},
        {"id": "E", "score": 1, "tiebreak": 0},
    ]
    assert [e["id"] for e in initiative_order(entries, ScriptedRandom([]))] == ["D", "A", "C", "B", "E"]
    tied = [{"id": "X", "score": 3, "tiebreak": 6}, {"id": "Y", "score": 3, "tiebreak": 6}]
    order = initiative_order(tied, ScriptedRandom([4, 9]))
    assert [e["id"] for e in order] == ["Y", "X"]
    tied = [{"id": "X", "score": 3, "tiebreak": 6}, {"id": "Y", "score": 3, "tiebreak": 6}]
    order = initiative_order(tied, ScriptedRandom([5, 5, 2, 8]))
    assert [e["id"] for e in order] == ["Y", "X"] and order[0]["draws"] == [5, 8]


def pc(cid, **sheet_extra):
    sheet = SMS.default_sheet()
    sheet.update(sheet_extra)
    return Combatant(cid, cid, "pcs", sheet, SMS.combat_state(sheet))


def npc(cid, **npc_extra):
    sheet = SMS.default_sheet()
    sheet["npc"].update(npc_extra)
    return Combatant(cid, cid, "npcs", sheet, SMS.combat_state(sheet), is_npc=True)


def test_initiative_from_sheets_and_declarations():
    a = pc(
        "A",
        modules=[
            {"name": "Réflexes", "kind": "positive", "scope": 4, "rank": 2, "domain": "initiative"},
            {"name": "Intuition", "kind": "positive", "scope": 3, "rank": 1, "domain": "initiative"},
        ],
    )
    e = pc("E")
    g = npc("G")
    decl: dict[str, dict[str, Any]] = {
        "E": {"modules": [{"kind": "positive", "rank": 1, "scope": 5}, {"kind": "negative", "rank": 1, "scope": 5}]},
        "G": {"score": 4},
    }
    order = SMS.initiative([a, e, g], decl, ScriptedRandom([]))
    assert [(o["id"], o["score"], o["tiebreak"]) for o in order] == [("G", 4, 0), ("A", 3, 11), ("E", 1, 0)]


def test_a_pc_initiative_reads_the_sheets_reflex_and_anticipation_modules_not_the_declared_score():
    """L558: initiative counts the modules of anticipation and of reflexes/intuition (issue #15 item 6)."""
    a = pc(
        "A",
        modules=[
            {"name": "Vif", "kind": "positive", "scope": 5, "rank": 2, "domain": "Réflexes"},
            {"name": "Stratège", "kind": "positive", "scope": 3, "rank": 1, "domain": "anticipation"},
            {"name": "Épée", "kind": "positive", "scope": 4, "rank": 5, "domain": "combat"},
        ],
    )
    b = pc("B")
    decl = {
        "A": {"kind": "attack", "score": 1},
        "B": {"kind": "attack", "score": 9, "modules": [{"kind": "positive", "rank": 9, "scope": 5}]},
    }
    order = SMS.initiative([a, b], decl, ScriptedRandom([]))
    assert [(o["id"], o["score"], o["tiebreak"]) for o in order] == [("A", 3, 13), ("B", 1, 0)]


def changes(result):
    return {(c.participant_id, c.path): (c.before, c.after) for c in result.state_changes}


def test_resolve_action_pc_attacks_npc_and_wounds_it():
    hero, foe = pc("hero"), npc("foe", base_defence_die=8)
    foe.sheet["armour"]["category"] = 2
    res = SMS.resolve_action(
        hero, foe, {"kind": "attack", "score": 6, "severity": "critical", "circumstances": -2}, ScriptedRandom([6])
    )
    assert res.outcome["die"] == 12 and res.outcome["success"]
    ch = changes(res)
    assert ch[("foe", "wounds")][1][-1]["severity"] == "critical"
    assert res.secret == {"npc_die": 12}
    minion = npc("m", base_defence_die=4, is_minion=True)
    res = SMS.resolve_action(hero, minion, {"kind": "attack", "score": 6}, ScriptedRandom([]))
    assert changes(res)[("m", "status")] == ("active", "dead")


def test_resolve_action_npc_attacks_pc_with_reactions():
    hero, foe = pc("hero"), npc("foe", base_attack_die=10)
    hero.sheet["armour"].update(category=1)
    hero.state["reactions"] = 2
    res = SMS.resolve_action(
        foe, hero, {"kind": "attack", "score": 4, "severity": "mortal", "circumstances": 2}, ScriptedRandom([3])
    )
    # D6, score 4 − 2 (two earlier reactions) = 2, roll 3 fails → mortal wound
    assert res.outcome["die"] == 6 and res.outcome["score"] == 2 and not res.outcome["success"]
    ch = changes(res)
    assert ch[("hero", "reactions")] == (2, 3) and ch[("hero", "status")] == ("active", "out_of_combat")


def test_resolve_action_size_and_shield():
    tifin = pc("t", size_factor=4)
    foe = npc("foe", base_defence_die=6)
    res = SMS.resolve_action(tifin, foe, {"kind": "attack", "score": 3}, ScriptedRandom([4]))
    assert res.outcome["score"] == 4 and res.outcome["size_modifier"] == 1
    hero = pc("h")
    hero.sheet["shield"]["category"] = 1
    res = SMS.resolve_action(
        npc("o", base_attack_die=10),
        hero,
        {"kind": "attack", "score": 4, "shield": True, "severity": "serious", "armour_applies": "none"},
        ScriptedRandom([2]),
    )
    assert res.outcome["die"] == 8 and res.outcome["shield"] == 1


def test_d10_turn_budget():
    hero = pc("h")
    foe = npc("f")
    # interventions: default 1, each costs 1 transient fatigue
    res = SMS.resolve_action(
        hero, None, {"kind": "other", "timing": "intervention", "score": 5, "die": 4}, ScriptedRandom([])
    )
    ch = changes(res)
    assert ch[("h", "interventions_used")] == (0, 1) and ch[("h", "fatigue.transient")] == (0, 1)
    hero.state["interventions_used"] = 1
    with pytest.raises(RulesError) as exc:
        SMS.resolve_action(
            hero, None, {"kind": "other", "timing": "intervention", "score": 5, "die": 4}, ScriptedRandom([])
        )
    assert exc.value.errors[0].code == "no_intervention_left"
    hero.sheet["modules"] = [
        {"name": "Intervention", "kind": "positive", "scope": 2, "rank": 1, "predefined": "intervention"}
    ]
    SMS.resolve_action(
        hero, None, {"kind": "other", "timing": "intervention", "score": 5, "die": 4}, ScriptedRandom([])
    )
    # counter-spell as a reaction, then a spell in an intervention → refused; a special power → allowed
    hero = pc("h2")
    res = SMS.resolve_action(
        hero,
        foe,
        {"kind": "counter_spell", "timing": "reaction", "score": 6, "spell": {"power": 1, "caster_base_die": 4}},
        ScriptedRandom([]),
    )
    ch = changes(res)
    assert ch[("h2", "spell_cast")] == (False, True) and ch[("h2", "fatigue.lasting")] == (0, 1)
    assert ch[("h2", "reactions")] == (0, 1)
    hero.state.update(spell_cast=True, reactions=1)
    with pytest.raises(RulesError) as exc:
        SMS.resolve_action(
            hero,
            foe,
            {"kind": "spell", "timing": "intervention", "score": 6, "spell": {"power": 1}},
            ScriptedRandom([]),
        )
    assert exc.value.errors[0].code == "one_spell_per_turn"
    res = SMS.resolve_action(
        hero,
        foe,
        {"kind": "spell", "timing": "intervention", "score": 6, "special_power": True, "spell": {"power": 1}},
        ScriptedRandom([2]),
    )
    ch = changes(res)
    assert res.outcome["die"] == 8 and res.outcome["score"] == 5  # −1 for the earlier reaction
    assert ch[("h2", "fatigue.transient")] == (0, 2) and ("h2", "spell_cast") not in ch
    # the next action clears the reaction penalty after applying it
    res = SMS.resolve_action(hero, foe, {"kind": "other", "score": 6, "die": 4}, ScriptedRandom([]))
    assert res.outcome["score"] == 5 and changes(res)[("h2", "reactions")] == (1, 0)


def test_resolve_action_offensive_spell_and_catch_breath():
    mage, foe = pc("m"), npc("f", base_defence_die=8)
    res = SMS.resolve_action(
        mage,
        foe,
        {"kind": "spell", "score": 5, "spell": {"nature": "offensive", "severity": "serious", "range": "1"}},
        ScriptedRandom([4]),
    )
    assert res.outcome["die"] == 10 and res.outcome["score"] == 4 and res.outcome["success"]
    ch = changes(res)
    assert ch[("f", "wounds")][1][-1]["severity"] == "serious" and ch[("m", "fatigue.lasting")] == (0, 1)
    mage.state["fatigue"]["transient"] = 3
    res = SMS.resolve_action(mage, None, {"kind": "catch_breath"}, ScriptedRandom([]))
    assert changes(res)[("m", "fatigue.transient")] == (3, 0)


def test_resolve_action_rejects_bad_requests():
    with pytest.raises(RulesError):
        SMS.resolve_action(npc("a"), npc("b"), {"kind": "attack", "score": 3}, ScriptedRandom([]))
    with pytest.raises(RulesError):
        SMS.resolve_action(pc("a"), None, {"kind": "attack", "score": 3}, ScriptedRandom([]))
    with pytest.raises(RulesError):
        SMS.resolve_action(pc("a"), None, {"kind": "dance"}, ScriptedRandom([]))
    with pytest.raises(RulesError):
        SMS.resolve_action(pc("a"), npc("b"), {"kind": "spell", "score": 3, "spell": {"power": 9}}, ScriptedRandom([]))


def test_npcs_never_roll_and_unsuited_weapons_cost_the_difference():
    with pytest.raises(RulesError) as exc:
        SMS.resolve_action(npc("a"), pc("b"), {"kind": "other", "score": 3, "die": 6}, ScriptedRandom([]))
    assert exc.value.errors[0].code == "npc_never_rolls"
    hero = pc("h", weapons=[{"name": "Dague d'ogre", "uses": "", "size_factor": 6}])
    res = SMS.resolve_action(
        hero, npc("f", base_defence_die=6), {"kind": "attack", "score": 4, "weapon": 0}, ScriptedRandom([2])
    )
    assert res.outcome["score"] == 3


def test_other_actions_need_a_die():
    with pytest.raises(RulesError) as exc:
        SMS.resolve_action(pc("a"), None, {"kind": "other", "score": 3}, ScriptedRandom([]))
    assert exc.value.errors[0].path == "die"
