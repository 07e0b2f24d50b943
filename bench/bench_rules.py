"""Benchmark: every system's common test and combat step beside its bare arithmetic.

Run: ``.venv/bin/python bench/bench_rules.py [seconds-per-measure] [rounds]``

For each system, two calls through the public interface (validation, state
changes and the bilingual messages included):

* the common test: Clefs aspect × means + skill action from a sheet, Altaride
  skill test from a sheet, SMS action, Ambre attribute comparison;
* the combat step: Ambre exchange (a rotating mix of declarations, as in
  ``bench_ambre_combat.py``), Altaride attack, SMS attack (PC on NPC), Clefs
  opposed confrontation.

Each is timed beside a *bare-function limit* measured in the same process and
run: the same arithmetic written plainly (the same die draws, the same
numbers out), without validation, messages or result objects. Rounds are
interleaved (call, limit, call, limit...), timed in CPU time of this process,
and the best round of each side is printed (the round least disturbed by the
other processes sharing the cores). The ratio is the figure to read.
"""

from __future__ import annotations

import gc
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import get_system
from rules.base import Combatant, SeededRandom

AMBRE = get_system("ambre")
CLEFS = get_system("clefs-de-l-aube")
ALTARIDE = get_system("altaride")
SMS = get_system("sms")


# --------------------------------------------------------------------------
# Ambre
# --------------------------------------------------------------------------
def _ambre_sheet(attrs: tuple[int, ...], chars: tuple[int, ...], powers: tuple[str, ...]) -> dict[str, Any]:
    sheet = AMBRE.default_sheet()
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
    sheet["powers"] = [{"power": p} for p in powers]
    return sheet


ARIANE = _ambre_sheet((0, 20, -10, 30), (10, 10, 5, 15, 10, 20, 5, 5, 5, 15, 30, 10), ("atouts",))
BOREL = _ambre_sheet((40, 0, 5, -25), (25, 25, 15, 5, 10, 10, 5, 5, 20, 0, 0, 0), ("logrus", "metamorphose"))
AMBRE_DECLS = [
    {"action": "melee"},
    {"action": "ranged", "within_reach": True},
    {"action": "thrown", "target_mode": "unarmed"},
    {"action": "wrestling"},
    {"action": "psychic"},
    {"action": "melee", "surprise": True, "weapon_quality": "double"},
]
A_ARIANE = Combatant("ariane", "Ariane", "a", ARIANE, AMBRE.combat_state(ARIANE, balances={"karma": 15}))
A_BOREL = Combatant("borel", "Borel", "b", BOREL, AMBRE.combat_state(BOREL, balances={"karma": -3}))
AMBRE_PAIRS = [((A_BOREL, A_ARIANE) if d["action"] == "psychic" else (A_ARIANE, A_BOREL), d) for d in AMBRE_DECLS]
COMPARISON = {"kind": "comparison", "a_value": 45, "b_value": 30, "a_label": "Ariane", "b_label": "Borel"}


def ambre_test(n: int) -> None:
    resolve = AMBRE.resolve
    for _ in range(n):
        resolve(COMPARISON, None)


def bare_ambre_test(n: int) -> None:
    req = COMPARISON
    for _ in range(n):
        a, b = req["a_value"], req["b_value"]
        winner = "a" if a > b else "b" if b > a else None
        _ = {"winner": winner, "margin": abs(a - b), "tie": winner is None}


def ambre_combat(n: int) -> None:
    resolve = AMBRE.resolve_action
    pairs = AMBRE_PAIRS
    k = len(pairs)
    for i in range(n):
        (actor, target), decl = pairs[i % k]
        resolve(actor, target, decl, None)


# The bare exchange: touch, parade, impact and wound (L418–L428), reading the
# few numbers it needs straight from the two sheets.
_BARE_TOUCH = {
    "melee": "hab_cac",
    "ranged": "hab_distance",
    "thrown": "dexterite",
    "wrestling": "force",
    "psychic": "mental",
}


def _bare_exchange(sa: dict[str, Any], st: dict[str, Any], mode: str, target_mode: str, surprise: bool) -> dict:
    ac, tc = sa["characteristics"], st["characteristics"]
    if mode == "psychic":
        d_char = "mental"
    elif mode == "wrestling":
        d_char = "force"
    elif target_mode == "unarmed" or surprise:
        d_char = "rapidite"
    else:
        d_char = "hab_cac"
    av, dv = ac[_BARE_TOUCH[mode]], tc[d_char]
    if not surprise and av <= dv:
        return {"winner": "target" if dv > av else None}
    ta = st["attributes"]
    if mode == "psychic":
        loss = max(0, ac["mental"] - tc["volonte"])
        return {"winner": "actor", "energy_loss": loss, "energy_after": ta["psy"] + ta["end"] + 50 - loss}
    level = sa["attributes"]["phy"] + ac[_BARE_TOUCH[mode]] + 25
    parade = 0 if mode == "wrestling" else tc["rapidite" if surprise or target_mode == "unarmed" else "hab_cac"]
    raw = max(0, level - parade)
    r = tc["resistance"]
    net = max(0, raw - r)
    wound = (
        None if net <= 0 else "light" if net < r else "serious" if net < 2 * r else "grave" if net < 4 * r else "mortal"
    )
    return {"winner": "actor", "raw": raw, "net": net, "wound": wound, "life_after": ta["end"] + ta["phy"] + 50 - net}


def bare_ambre_combat(n: int) -> None:
    k = len(AMBRE_PAIRS)
    for i in range(n):
        (actor, target), decl = AMBRE_PAIRS[i % k]
        _bare_exchange(
            actor.sheet, target.sheet, decl["action"], decl.get("target_mode", "melee"), decl.get("surprise", False)
        )


# --------------------------------------------------------------------------
# Clefs de l'Aube
# --------------------------------------------------------------------------
CLEFS_MEANS = {"PU": 2, "RE": -1, "MA": 1, "PR": 0, "EX": -2, "PE": 0}


def _clefs_fighter(cid: str) -> Combatant:
    sheet = {
        "creation": {"skill_package": "free", "aspect_method": "FIXED_10", "means_method": "ZERO"},
        "aspects": {"PH": 12, "ME": 10, "MY": 10},
        "means": dict(CLEFS_MEANS),
        "skills": [{"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": 12}],
        "conditions": [],
    }
    return Combatant(cid, cid.title(), cid, sheet, CLEFS.combat_state(sheet))


C_ALICE, C_BOB = _clefs_fighter("alice"), _clefs_fighter("bob")
CLEFS_TEST = {"kind": "action", "sheet": C_ALICE.sheet, "aspect_code": "PH", "means_code": "PU", "skill_name": "Épée"}
CLEFS_DECL = {
    "action": "opposed",
    "aspect_code": "PH",
    "means_code": "PU",
    "skill_name": "Épée",
    "defense_aspect_code": "PH",
    "defense_means_code": "RE",
    "harm": 4,
    "harm_note": "entaille",
}


def clefs_test(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        CLEFS.resolve(CLEFS_TEST, rng)


def _bare_clefs_ca(sheet: dict[str, Any], aspect: str, means: str, skill: str | None) -> int:
    nc = next((s["nc"] for s in sheet["skills"] if s["name"] == skill), None) if skill else None
    return sheet["aspects"][aspect] + sheet["means"][means] + (nc - 10 if nc is not None else 0)


def bare_clefs_test(n: int) -> None:
    rng = random.Random(1)
    req = CLEFS_TEST
    for _ in range(n):
        ca = _bare_clefs_ca(req["sheet"], req["aspect_code"], req["means_code"], req["skill_name"])
        r = rng.randint(1, 20)
        _ = {"ca": ca, "r": r, "success": r <= ca, "dr": r if r <= ca else None}


def clefs_combat(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        CLEFS.resolve_action(C_ALICE, C_BOB, CLEFS_DECL, rng)


def bare_clefs_combat(n: int) -> None:
    rng = random.Random(1)
    d = CLEFS_DECL
    for _ in range(n):
        a = _bare_clefs_ca(C_ALICE.sheet, d["aspect_code"], d["means_code"], d["skill_name"])
        b = _bare_clefs_ca(C_BOB.sheet, d["defense_aspect_code"], d["defense_means_code"], None)
        ra, rb = rng.randint(1, 20), rng.randint(1, 20)
        sa, sb = ra <= a, rb <= b
        winner = "alice" if sa and (not sb or ra > rb) else "bob" if sb else None
        _ = {"winner": winner, "harm": [{"value": d["harm"], "by": "alice"}] if winner == "alice" else []}


# --------------------------------------------------------------------------
# Mythe d'Altaride
# --------------------------------------------------------------------------
from rules.tests.test_altaride_creation import SETTINGS as ALT_SETTINGS  # noqa: E402
from rules.tests.test_altaride_creation import aldo  # noqa: E402


def _alt_fighter(cid: str) -> Combatant:
    sheet = aldo()
    sheet["skills"].append({"key": "epee", "level": 3})
    return Combatant(cid, cid.upper(), cid, sheet, ALTARIDE.combat_state(sheet, ALT_SETTINGS))


T_A, T_B = _alt_fighter("a"), _alt_fighter("b")
ALT_TEST = {"kind": "skill_test", "skill": "mains_nues", "sheet": T_A.sheet}
ALT_DECL = {"action": "attack", "weapon": "dague", "defence": "parry", "defender_weapon": "dague"}
_ALT_FORMULA = {s["key"]: s["formula"].split("+") for s in ALT_SETTINGS["skill_catalogue"]}


def altaride_test(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        ALTARIDE.resolve(ALT_TEST, rng, ALT_SETTINGS)


def _bare_alt_target(sheet: dict[str, Any], skill: str) -> int:
    a, b = _ALT_FORMULA[skill]
    level = next((s["level"] for s in sheet["skills"] if s["key"] == skill), 0)
    return (sheet["talents"][a] + sheet["talents"][b]) // 2 + level


def _bare_alt_roll(target: int, natural: int) -> dict[str, Any]:
    level = (
        "crit_failure"
        if natural == 20
        else "crit_success"
        if natural == 1
        else ("success" if natural <= target else "failure")
    )
    return {"target": target, "natural": natural, "outcome": level, "margin": target - natural}


def bare_altaride_test(n: int) -> None:
    rng = random.Random(1)
    for _ in range(n):
        _bare_alt_roll(_bare_alt_target(T_A.sheet, "mains_nues"), rng.randint(1, 20))


def altaride_combat(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        ALTARIDE.resolve_action(T_A, T_B, ALT_DECL, rng, ALT_SETTINGS)


def bare_altaride_combat(n: int) -> None:
    rng = random.Random(1)
    for _ in range(n):
        a = _bare_alt_roll(_bare_alt_target(T_A.sheet, "mains_nues"), rng.randint(1, 20))
        d = _bare_alt_roll(_bare_alt_target(T_B.sheet, "mains_nues"), rng.randint(1, 20))
        hit = a["outcome"] in ("success", "crit_success") and (
            d["outcome"] not in ("success", "crit_success") or a["margin"] > d["margin"]
        )
        damage = max(0, a["margin"]) + 2 if hit else 0
        ep = T_B.state["endurance"]["EP"]
        _ = {"hit": hit, "damage": damage, "ep_after": ep - damage}


# --------------------------------------------------------------------------
# SMS
# --------------------------------------------------------------------------
def _sms_pc(cid: str) -> Combatant:
    sheet = SMS.default_sheet()
    return Combatant(cid, cid, "pcs", sheet, SMS.combat_state(sheet))


def _sms_npc(cid: str) -> Combatant:
    sheet = SMS.default_sheet()
    sheet["npc"].update(base_defence_die=8)
    sheet["armour"]["category"] = 2
    return Combatant(cid, cid, "npcs", sheet, SMS.combat_state(sheet), is_npc=True)


S_HERO, S_FOE = _sms_pc("hero"), _sms_npc("foe")
SMS_TEST = {"kind": "action", "score": 3, "die": 10, "circumstances": 1}
SMS_DECL = {"action": "attack", "score": 6, "severity": "critical", "circumstances": -2}


def sms_test(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        SMS.resolve(SMS_TEST, rng)


def _bare_round_die(n: int) -> int:
    n = max(2, min(12, n))
    return n + (n & 1)


def bare_sms_test(n: int) -> None:
    rng = random.Random(1)
    r = SMS_TEST
    for _ in range(n):
        die = _bare_round_die(r["die"] + r["circumstances"])
        roll = rng.randint(1, die)
        _ = {"die": die, "roll": roll, "success": roll <= r["score"]}


def sms_combat(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        SMS.resolve_action(S_HERO, S_FOE, SMS_DECL, rng)


_SMS_OFFSET = {"light": 0, "serious": 2, "critical": 4, "mortal": 6}


def bare_sms_combat(n: int) -> None:
    rng = random.Random(1)
    d = SMS_DECL
    for _ in range(n):
        base = S_FOE.sheet["npc"]["base_defence_die"]
        die = _bare_round_die(
            base + _SMS_OFFSET[d["severity"]] + S_FOE.sheet["armour"]["category"] + d["circumstances"]
        )
        roll = rng.randint(1, die)
        ok = roll <= d["score"]
        wounds = [*S_FOE.state.get("wounds", []), {"severity": d["severity"]}] if ok else None
        _ = {"die": die, "roll": roll, "success": ok, "wounds": wounds}


# --------------------------------------------------------------------------
MEASURES: list[tuple[str, Callable[[int], None], Callable[[int], None]]] = [
    ("ambre test (comparison)", ambre_test, bare_ambre_test),
    ("ambre combat (exchange)", ambre_combat, bare_ambre_combat),
    ("clefs test (aspect×means+skill)", clefs_test, bare_clefs_test),
    ("clefs combat (confrontation)", clefs_combat, bare_clefs_combat),
    ("altaride test (skill)", altaride_test, bare_altaride_test),
    ("altaride combat (attack)", altaride_combat, bare_altaride_combat),
    ("sms test (action)", sms_test, bare_sms_test),
    ("sms combat (attack)", sms_combat, bare_sms_combat),
]


def _time(fn: Callable[[int], None], seconds: float) -> float:
    """CPU seconds per call of ``fn`` (this process's CPU time, so the other
    processes sharing the cores do not count): batches until ``seconds``."""
    n, total, batch = 0, 0.0, 50
    while total < seconds:
        start = time.process_time()
        fn(batch)
        total += time.process_time() - start
        n += batch
        batch = min(batch * 2, 20000)
    return total / n


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    gc.collect()
    for _, call, bare in MEASURES:  # warm-up, and a crash here names the broken call
        call(20)
        bare(20)
    rows = []
    for name, call, bare in MEASURES:
        calls, bares = [], []
        for _ in range(rounds):
            calls.append(_time(call, seconds))
            bares.append(_time(bare, seconds))
        c, b = min(calls), min(bares)
        rows.append((name, c, b))
    print(f"{'measure':34} {'µs/call':>9} {'calls/s':>10} {'bare µs':>9} {'bare/s':>11} {'ratio':>7}")
    for name, c, b in rows:
        print(f"{name:34} {c * 1e6:9.2f} {1 / c:10,.0f} {b * 1e6:9.2f} {1 / b:11,.0f} {c / b:6.1f}×")


if __name__ == "__main__":
    main()
