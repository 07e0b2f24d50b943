"""One result vocabulary across systems (#16): the declaration's type key is ``action`` everywhere,
declarations stored with the old key still resolve, and results carry ``level``, ``margin`` and
(combat) ``severity`` in the shared words of ``rules/base/results.py``."""

from __future__ import annotations

from typing import Any

import pytest

from rules import get_system
from rules.base import ACTION_KEY, Combatant, CombatResult, ScriptedRandom, SeededRandom, with_action_key
from rules.tests.test_altaride_combat import act
from rules.tests.test_altaride_combat import fighter as altaride_fighter
from rules.tests.test_ambre_characters import borel, cendre
from rules.tests.test_ambre_combat import fighter as ambre_fighter

AMBRE, CLEFS, SMS = get_system("ambre"), get_system("clefs-de-l-aube"), get_system("sms")
DICELESS = ScriptedRandom([])  # Ambre draws nothing


def _same(a: CombatResult, b: CombatResult) -> None:
    assert a.to_dict() == b.to_dict()
    assert ACTION_KEY in a.to_dict()["inputs"] or ACTION_KEY in a.to_dict()["inputs"]["declaration"]


def test_the_old_key_is_renamed_in_place_and_nothing_else_changes() -> None:
    assert list(with_action_key({"note": "x", "mode": "melee", "b": 1}, "mode")) == ["note", ACTION_KEY, "b"]
    both = {"mode": "melee", ACTION_KEY: "psychic"}
    assert with_action_key(both, "mode") is both  # the new key wins: nothing to rename
    assert with_action_key(None, "mode") is None and with_action_key([], "kind") == []


def test_an_ambre_declaration_stored_with_mode_resolves_as_with_action() -> None:
    c, b = ambre_fighter("cendre", cendre()), ambre_fighter("borel", borel(), karma=-3)
    old = AMBRE.resolve_action(c, b, {"mode": "melee", "target_mode": "melee"}, DICELESS)
    new = AMBRE.resolve_action(c, b, {ACTION_KEY: "melee", "target_mode": "melee"}, DICELESS)
    _same(old, new)
    assert (new.level, new.margin, new.severity) == ("success", 35, "grave")  # touch 35 against 0 (L418-L428)
    order = AMBRE.initiative([c, b], {"cendre": {"mode": "psychic"}, "borel": {ACTION_KEY: "psychic"}}, DICELESS)
    assert {r["id"]: r["action_type"] for r in order} == {"cendre": "mental", "borel": "mental"}  # L416


def test_ambre_levels_a_comparison_from_side_a() -> None:
    won = AMBRE.resolve({"kind": "comparison", "a_value": 30, "b_value": 45}, DICELESS)
    tie = AMBRE.resolve({"kind": "comparison", "a_value": 30, "b_value": 30}, DICELESS)
    assert (won.level, won.margin, won.outcome["margin"]) == ("failure", -15, 15)  # the stored margin stays
    assert (tie.level, tie.margin, tie.success) == ("tie", 0, None)


def _clefs_fighter(cid: str) -> Combatant:
    sheet = {
        "creation": {"skill_package": "free", "aspect_method": "FIXED_10", "means_method": "ZERO"},
        "aspects": {"PH": 12, "ME": 10, "MY": 10},
        "means": {"PU": 2, "RE": -1, "MA": 1, "PR": 0, "EX": -2, "PE": 0},
        "skills": [{"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": 12}],
        "conditions": [],
    }
    return Combatant(cid, cid.title(), cid, sheet, CLEFS.combat_state(sheet))


@pytest.mark.parametrize("action", ["opposed", "simple"])
def test_a_clefs_declaration_stored_with_kind_resolves_as_with_action(action: str) -> None:
    a, b = _clefs_fighter("alice"), _clefs_fighter("bob")
    base = {"aspect_code": "PH", "means_code": "PU", "skill_name": "Épée", "harm": 4}
    old = CLEFS.resolve_action(a, b, {"kind": action, **base}, SeededRandom(3))
    new = CLEFS.resolve_action(a, b, {ACTION_KEY: action, **base}, SeededRandom(3))
    _same(old, new)
    assert new.kind == action


def test_clefs_levels_an_exceptional_feat_as_critical() -> None:
    request = {"kind": "action", "aspect": 10, "means": 0, "crit_die": 6}
    result = CLEFS.resolve(request, ScriptedRandom([5, 1, 4]))  # d20 5 ≤ CA 10; critical die 1, reroll 4
    assert result.outcome["level"] == "SUCCESS" and result.outcome["crit"]["triggered"]
    assert (result.level, result.margin) == ("critical_success", 9)  # °R 5 + 4 (L1002-L1010)
    fumble = CLEFS.resolve({"kind": "action", "aspect": 10, "means": 0}, ScriptedRandom([15]))
    assert (fumble.level, fumble.margin) == ("failure", -5)


def _sms(cid: str, npc: bool) -> Combatant:
    sheet = SMS.default_sheet()
    if npc:
        sheet["npc"].update(base_defence_die=8, base_attack_die=8)
    return Combatant(cid, cid, "npcs" if npc else "pcs", sheet, SMS.combat_state(sheet), is_npc=npc)


def test_an_sms_declaration_stored_with_kind_resolves_as_with_action() -> None:
    hero, foe = _sms("hero", False), _sms("foe", True)
    decl = {"score": 6, "severity": "critical"}
    old = SMS.resolve_action(hero, foe, {"kind": "attack", **decl}, ScriptedRandom([2]))
    new = SMS.resolve_action(hero, foe, {ACTION_KEY: "attack", **decl}, ScriptedRandom([2]))
    _same(old, new)
    # Roll 2 under score 6 on the NPC's die: a hit, margin 4; the critical wound is "grave" on the scale.
    assert (new.level, new.margin, new.severity) == ("success", 4, "grave")
    assert SMS.defence_fields({"kind": "attack"}, foe, hero) == SMS.defence_fields({ACTION_KEY: "attack"}, foe, hero)
    assert SMS.defence_fields({ACTION_KEY: "attack"}, foe, hero)


def test_an_sms_npc_attack_is_levelled_from_the_npc_side() -> None:
    hero, foe = _sms("hero", False), _sms("foe", True)
    result = SMS.resolve_action(foe, hero, {ACTION_KEY: "attack", "score": 2, "severity": "light"}, ScriptedRandom([7]))
    assert result.outcome["direction"] == "npc_to_pc" and result.outcome["success"] is False  # the defence fails
    assert result.level == "success" and result.margin is not None and result.margin > 0
    assert result.severity == "light"


def test_altaride_damage_severity_follows_the_endurance_thresholds() -> None:
    attacker = altaride_fighter("a")
    severities: dict[int, Any] = {}
    for ep in (17, 12, 40):
        target = altaride_fighter("t", state={"endurance": {"EP": ep}})
        result = act(attacker, target, {ACTION_KEY: "attack", "weapon": "dague"}, 7, 15)
        assert result.level == "success" and result.margin == result.outcome["roll"]["signed_margin"]
        severities[ep] = result.severity
    assert severities == {17: "grave", 12: "mortal", 40: "light"}  # unconscious, dead (L117-L120), hurt
