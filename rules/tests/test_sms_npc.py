"""SMS NPCs: definition methods, roles, bestiary; heal and recovery test kinds (spec §4.16, T38, T23, D24)."""

from __future__ import annotations

import pytest

from rules import get_system
from rules.base import RulesError, ScriptedRandom
from rules.sms.npc import npc_difficulty, role_hint

SMS = get_system("sms")


def test_t38_uber_simple_gnolls():
    assert npc_difficulty("uber_simple", 3) == 4
    assert npc_difficulty("simple", 5) == 6
    res = SMS.resolve({"kind": "npc_difficulty", "method": "uber_simple", "base": 3}, ScriptedRandom([]))
    assert res.outcome == {"die": 4} and res.draws == []


def test_semi_modular_and_deluxe():
    mods = [{"kind": "positive", "rank": 2}, {"kind": "positive", "rank": 1}]
    assert npc_difficulty("semi_modular", 6, mods) == 10  # 6 + 3 = 9 → D10
    assert npc_difficulty("deluxe", 0, mods) == 4
    assert npc_difficulty("deluxe", 0, [{"kind": "positive", "rank": 13}]) == 14
    with pytest.raises(ValueError):
        npc_difficulty("fancy", 3)


def test_roles():
    assert role_hint("disposable")["max_die"] == 6 and role_hint("disposable")["default_minion"]
    assert role_hint("boss")["open_ended"] and role_hint("one_shot")["min_die"] == 8


def test_heal_kind_t23():
    wounds = [{"severity": "mortal"}, {"severity": "light"}, {"severity": "light"}]
    res = SMS.resolve({"kind": "heal", "wounds": wounds, "level": "mortal", "area": True}, ScriptedRandom([]))
    assert [w["severity"] for w in res.outcome["wounds"]] == ["mortal"]
    assert res.outcome["healed"] == 2 and res.outcome["stabilised"]
    with pytest.raises(RulesError):
        SMS.resolve({"kind": "heal", "wounds": [{"severity": "scratch"}], "level": "light"}, ScriptedRandom([]))


def test_recovery_kind_d24():
    res = SMS.resolve(
        {"kind": "recovery", "event": "rest_hours", "amount": 2, "transient": 0, "lasting": 3}, ScriptedRandom([])
    )
    assert res.outcome == {"fatigue": {"transient": 0, "lasting": 1, "persistent": 0}, "penalty": 1}
    res = SMS.resolve({"kind": "recovery", "event": "sleep", "lasting": 3, "maintaining": True}, ScriptedRandom([]))
    assert res.outcome["fatigue"]["lasting"] == 3
