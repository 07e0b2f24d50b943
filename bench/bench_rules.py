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
numbers out), without validation, messages or result objects. Before timing,
every bare function is run beside its rules call on the same inputs and draws
and must give the same numbers (:func:`check_bare`): a bare function that
skipped a step of the rules would make the ratio flatter than it is. Rounds
are interleaved (call, limit, call, limit...), timed in CPU time of this
process, and the best round of each side is printed (the round least
disturbed by the other processes sharing the cores). The ratio is the figure
to read; the goal is issue #21's (the Ambre exchange within 6× of its bare
arithmetic, every other step within 10×).
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


def _bare_compare(req: dict[str, Any], tie_rule: str = "stalemate") -> dict[str, Any]:
    """The higher value wins (L418); a tie is the campaign's ``tie_rule`` (the parent attribute breaks it)."""
    a, b = req["a_value"], req["b_value"]
    if a != b:
        winner = "a" if a > b else "b"
    else:
        ta, tb = req.get("a_tiebreak"), req.get("b_tiebreak")
        winner = None
        if tie_rule == "attribute" and ta is not None and tb is not None and ta != tb:
            winner = "a" if ta > tb else "b"
    return {"winner": winner, "margin": abs(a - b), "tie": a == b}


def bare_ambre_test(n: int) -> None:
    req = COMPARISON
    for _ in range(n):
        _bare_compare(req)


def ambre_combat(n: int) -> None:
    resolve = AMBRE.resolve_action
    pairs = AMBRE_PAIRS
    k = len(pairs)
    for i in range(n):
        (actor, target), decl = pairs[i % k]
        resolve(actor, target, decl, None)


# The bare exchange (L418–L434): touch, parade, impact, wound with the weapon's quality (L123),
# the wound added to the loser's (pair-merged, L429), determination (L431–L434) and the death
# flags (L402, L429), reading the numbers straight from the two sheets and the states.
_BARE_TOUCH = {
    "melee": "hab_cac",
    "ranged": "hab_distance",
    "thrown": "dexterite",
    "wrestling": "force",
    "psychic": "mental",
}
_BARE_LEVEL = {**_BARE_TOUCH, "unarmed": "force", "none": "force"}
_BARE_LEVEL_KEY = {
    "melee": "melee_level",
    "ranged": "ranged_level",
    "thrown": "thrown_level",
    "wrestling": "wrestling_level",
    "unarmed": "wrestling_level",
    "none": "wrestling_level",
}
_BARE_DETERMINATION = {"serious": 6, "grave": 5, "mortal": 5}


def _bare_exchange(actor: Combatant, target: Combatant, decl: dict[str, Any]) -> dict[str, Any]:
    mode = decl["action"]
    target_mode = decl.get("target_mode", "melee")
    surprise = decl.get("surprise", False)
    ac, tc = actor.sheet["characteristics"], target.sheet["characteristics"]
    if mode == "psychic":
        d_char = "mental"
    elif mode == "wrestling":
        d_char = "force"
    elif target_mode == "unarmed" or surprise:
        d_char = "rapidite"
    else:
        d_char = "hab_cac"
    av, dv = ac[_BARE_TOUCH[mode]], tc[d_char]
    if surprise or av > dv:
        w, lo, w_mode = actor, target, mode
    elif dv > av:
        if mode in ("ranged", "thrown") and not decl.get("within_reach"):
            return {"winner": None, "miss": True}
        w, lo, w_mode = target, actor, target_mode
    else:
        return {"winner": None}
    wc, lc, ls = w.sheet["characteristics"], lo.sheet["characteristics"], lo.state
    if mode == "psychic" or w_mode == "psychic":
        loss = max(0, wc["mental"] - lc["volonte"])
        energy = ls["energy"] - loss
        return {"winner": w.id, "energy_loss": loss, "energy_after": energy, "coma": loss > 0 and energy <= 0}
    level = w.sheet["attributes"]["phy"] + wc[_BARE_LEVEL[w_mode]] + 25 + w.sheet["modifiers"][_BARE_LEVEL_KEY[w_mode]]
    if mode == "wrestling" or target_mode == "wrestling":
        parade = 0
    else:
        parade = lc["rapidite" if lo is target and (surprise or target_mode == "unarmed") else "hab_cac"]
    raw = max(0, level - parade)
    r = lc["resistance"]
    net = max(0, raw - r)
    wound = (
        None if net <= 0 else "light" if net < r else "serious" if net < 2 * r else "grave" if net < 4 * r else "mortal"
    )
    if wound == "light" and decl.get("weapon_quality" if w is actor else "target_weapon_quality") == "double":
        wound = "grave"
    lw = ls["wounds"]
    points = lw["light"] + 2 * lw["serious"] + 4 * lw["grave"] + 8 * lw["mortal"]
    if wound:
        points += {"light": 1, "serious": 2, "grave": 4, "mortal": 8}[wound]
    wounds = {"light": points & 1, "serious": (points >> 1) & 1, "grave": (points >> 2) & 1, "mortal": points >> 3}
    factor = _BARE_DETERMINATION.get(wound) if wound else None
    life = ls["life"] - net
    flags = []
    if wounds["mortal"]:
        flags.append("mortal_wound")
        if ls["karma"] is not None and ls["karma"] < 0:
            flags.append("mortal_wound_negative_karma")
    if life <= 0:
        flags.append("life_exhausted")
    return {
        "winner": w.id,
        "raw": raw,
        "net": net,
        "wound": wound,
        "determined": None if factor is None else net < factor * lc["volonte"],
        "life_after": life,
        "wounds_after": wounds,
        "flags": flags,
    }


def bare_ambre_combat(n: int) -> None:
    pairs = AMBRE_PAIRS
    k = len(pairs)
    for i in range(n):
        (actor, target), decl = pairs[i % k]
        _bare_exchange(actor, target, decl)


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


def _bare_clefs_aspect(sheet: dict[str, Any], code: str) -> int:
    """The current aspect: the stored one raised by its skills' aspect-PX through the ladder (L645-L650)."""
    aspect = sheet["aspects"][code]
    mine = [s for s in sheet["skills"] if s["aspect"] == code]
    px = sum(s.get("aspect_px_granted", s["nc"]) for s in mine)
    if sheet["creation"]["skill_package"] == "free":
        px -= sum(s.get("creation_nc", s["nc"]) for s in mine)
    while px >= aspect + 1:
        px -= aspect + 1
        aspect += 1
    return aspect


def _bare_clefs_ca(sheet: dict[str, Any], aspect: str, means: str, skill: str | None) -> int:
    """CA = current aspect + means + BC (NC − 10) − handicaps + advantages (L720-L754)."""
    nc = next((s["nc"] for s in sheet["skills"] if s["name"] == skill), 0) if skill else None
    ca = _bare_clefs_aspect(sheet, aspect) + sheet["means"][means] + (nc - 10 if nc is not None else 0)
    for c in sheet["conditions"]:
        ca += c["value"] if c.get("kind") == "advantage" else -c["value"]
    return ca


def _bare_clefs_roll(ca: int, rng: random.Random, force: bool = False) -> dict[str, Any]:
    """Roll iff 2 ≤ CA ≤ 19 (or forced); level, °R and degree of failure (L724-L768, L797-L803)."""
    if not force and (ca <= 1 or ca >= 20):
        level = "AUTO_FAILURE" if ca <= 1 else "AUTO_SUCCESS"
        return {"ca": ca, "d20": None, "level": level, "dr": None, "de": None, "success": level == "AUTO_SUCCESS"}
    r = rng.randint(1, 20)
    if ca <= 1:
        ok = r == 1
        dr, de = (ca, None) if ok else (None, r - ca)
    elif ca >= 20:
        ok = r != 20
        dr, de = (r, None) if ok else (None, 20 - ca)
    else:
        ok = r <= ca
        dr, de = (r, None) if ok else (None, r - ca)
    level = "SUCCESS" if ok else "FAILURE"
    return {"ca": ca, "d20": r, "level": level, "dr": dr, "de": de, "success": ok}


def bare_clefs_test(n: int) -> None:
    rng = random.Random(1)
    req = CLEFS_TEST
    for _ in range(n):
        _bare_clefs_roll(_bare_clefs_ca(req["sheet"], req["aspect_code"], req["means_code"], req["skill_name"]), rng)


def clefs_combat(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        CLEFS.resolve_action(C_ALICE, C_BOB, CLEFS_DECL, rng)


def _bare_confrontation(rng: random.Random) -> dict[str, Any]:
    """Both sides roll (forced, L1065-L1073); the success, then the higher °R, wins; the winner's harm."""
    d = CLEFS_DECL
    a = _bare_clefs_roll(_bare_clefs_ca(C_ALICE.sheet, d["aspect_code"], d["means_code"], d["skill_name"]), rng, True)
    b = _bare_clefs_roll(
        _bare_clefs_ca(C_BOB.sheet, d["defense_aspect_code"], d["defense_means_code"], None), rng, True
    )
    if a["success"] != b["success"]:
        winner = "alice" if a["success"] else "bob"
    elif not a["success"]:
        winner = None
    else:
        a_dr = a["dr"] if a["dr"] is not None else a["ca"]
        b_dr = b["dr"] if b["dr"] is not None else b["ca"]
        winner = None if a_dr == b_dr else "alice" if a_dr > b_dr else "bob"
    return {"actor": a, "target": b, "winner": winner, "harm": d["harm"] if winner == "alice" else 0}


def bare_clefs_combat(n: int) -> None:
    rng = random.Random(1)
    for _ in range(n):
        _bare_confrontation(rng)


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
_ALT_WEAPONS = {w["key"]: w for w in ALT_SETTINGS["weapon_catalogue"]}


def altaride_test(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        ALTARIDE.resolve(ALT_TEST, rng, ALT_SETTINGS)


def _bare_alt_target(sheet: dict[str, Any], skill: str) -> int:
    """CR = floor(sum of the formula's two talents (magic bonus included) / 2) + level (L71, L89)."""
    a, b = _ALT_FORMULA[skill]
    bonus = sheet["talent_magic_bonus"]
    level = next((s["level"] for s in sheet["skills"] if s["key"] == skill), 0)
    return (sheet["talents"][a] + bonus.get(a, 0) + sheet["talents"][b] + bonus.get(b, 0)) // 2 + level


def _bare_alt_roll(target: int, natural: int) -> dict[str, Any]:
    """A roll under the target; a natural 1 or 20 is critical (L101-L103)."""
    if natural == 20:
        outcome = "crit_failure"
    elif natural == 1:
        outcome = "crit_success"
    else:
        outcome = "success" if natural <= target else "failure"
    success = outcome in ("success", "crit_success")
    margin = target - natural
    return {
        "target": target,
        "natural": natural,
        "outcome": outcome,
        "success": success,
        "success_margin": max(margin, 0) if success else None,
        "failure_margin": None if success else max(-margin, 0),
    }


def bare_altaride_test(n: int) -> None:
    rng = random.Random(1)
    for _ in range(n):
        _bare_alt_roll(_bare_alt_target(T_A.sheet, "mains_nues"), rng.randint(1, 20))


def altaride_combat(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        ALTARIDE.resolve_action(T_A, T_B, ALT_DECL, rng, ALT_SETTINGS)


def _bare_alt_attack(rng: random.Random) -> dict[str, Any]:
    """Attack and parry with the weapons' skills (L105), the higher success margin wins (a critical
    success beats a plain one), damage = margin + X + d20 / 2 (L189-L196) off the target's EP: dead
    at -5, unconscious at 0 (L117)."""
    weapon, parry = _ALT_WEAPONS[ALT_DECL["weapon"]], _ALT_WEAPONS[ALT_DECL["defender_weapon"]]
    a = _bare_alt_roll(_bare_alt_target(T_A.sheet, weapon["skill"]), rng.randint(1, 20))
    d = _bare_alt_roll(_bare_alt_target(T_B.sheet, parry["skill"]), rng.randint(1, 20))
    if not a["success"]:
        hit = False
    elif not d["success"]:
        hit = True
    elif (a["outcome"] == "crit_success") != (d["outcome"] == "crit_success"):
        hit = a["outcome"] == "crit_success"
    else:
        hit = a["success_margin"] > d["success_margin"]
    if not hit:
        return {"hit": False}
    amount = max(0, a["success_margin"] + weapon["damage_physique"] + rng.randint(1, 20) // 2)
    after = T_B.state["endurance"]["EP"] - amount
    return {"hit": True, "amount": amount, "after": after, "dead": after <= -5, "unconscious": after <= 0}


def bare_altaride_combat(n: int) -> None:
    rng = random.Random(1)
    for _ in range(n):
        _bare_alt_attack(rng)


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
    """The summed die rounded once: odd values up, below 1 the D0 (L262-L266)."""
    return 0 if n < 1 else n + (n & 1)


_SMS_STAKE = {2: "minor", 4: "minor", 6: "minor", 8: "moderate", 10: "major", 12: "critical"}


def _bare_sms_die(score: int, die: int, rng: random.Random) -> dict[str, Any]:
    """S ≥ die succeeds without a roll (L97); above 12 out of reach (L268); else roll ≤ S (L99)."""
    score = max(1, score)
    if die <= 0 or score >= die:
        return {"score": score, "die": die, "roll": None, "success": True, "stake": "none"}
    if die > 12:
        return {"score": score, "die": die, "roll": None, "success": False, "stake": "critical"}
    roll = rng.randint(1, die)
    ok = roll <= score
    return {"score": score, "die": die, "roll": roll, "success": ok, "stake": "none" if ok else _SMS_STAKE[die]}


def bare_sms_test(n: int) -> None:
    rng = random.Random(1)
    r = SMS_TEST
    for _ in range(n):
        _bare_sms_die(r["score"], _bare_round_die(r["die"] + r["circumstances"]), rng)


def sms_combat(n: int) -> None:
    rng = SeededRandom(1)
    for _ in range(n):
        SMS.resolve_action(S_HERO, S_FOE, SMS_DECL, rng)


_SMS_OFFSET = {"light": 0, "serious": 2, "critical": 4, "mortal": 6}


def _bare_sms_attack(rng: random.Random) -> dict[str, Any]:
    """A PC wounds an NPC: its defence die + the severity's offset + armour + circumstances (L185-L194,
    L228), the size difference on the score (L593); a success adds the wound (L133-L142)."""
    d, foe, hero = SMS_DECL, S_FOE.sheet, S_HERO.sheet
    size = foe["size_factor"] - hero["size_factor"]
    armour = max(0, min(3, foe["armour"]["category"]))
    die = _bare_round_die(foe["npc"]["base_defence_die"] + _SMS_OFFSET[d["severity"]] + armour + d["circumstances"])
    out = _bare_sms_die(d["score"] + size - S_HERO.state["reactions"], die, rng)
    if out["success"]:
        out["wounds"] = [*S_FOE.state["wounds"], {"severity": d["severity"]}]
    return out


def bare_sms_combat(n: int) -> None:
    rng = random.Random(1)
    for _ in range(n):
        _bare_sms_attack(rng)


# --------------------------------------------------------------------------
# The bare functions give the rules' numbers
# --------------------------------------------------------------------------
def _same(name: str, bare: dict[str, Any], got: dict[str, Any]) -> None:
    for key, value in bare.items():
        if got.get(key) != value:
            raise AssertionError(f"{name}: bare {key}={value!r}, rules {got.get(key)!r}")


def check_bare(calls: int = 300) -> None:
    """Every bare function beside its rules call, on the same inputs and draws: the same numbers."""
    for req in (COMPARISON, {**COMPARISON, "b_value": 45}, {**COMPARISON, "b_value": 60}):
        _same("ambre test", _bare_compare(req), AMBRE.resolve(req, None).outcome)
    for (actor, target), decl in AMBRE_PAIRS:
        _same(
            f"ambre {decl}",
            _bare_exchange(actor, target, decl),
            AMBRE.resolve_action(actor, target, decl, None).outcome,
        )
    pairs: list[tuple[str, Callable[[Any], dict[str, Any]], Callable[[Any], dict[str, Any]]]] = [
        (
            "clefs test",
            lambda rng: CLEFS.resolve(CLEFS_TEST, rng).outcome,
            lambda rng: _bare_clefs_roll(_bare_clefs_ca(C_ALICE.sheet, "PH", "PU", "Épée"), rng),
        ),
        (
            "clefs combat",
            lambda rng: _clefs_outcome(CLEFS.resolve_action(C_ALICE, C_BOB, CLEFS_DECL, rng).outcome),
            _bare_confrontation,
        ),
        (
            "altaride test",
            lambda rng: ALTARIDE.resolve(ALT_TEST, rng, ALT_SETTINGS).outcome["roll"],
            lambda rng: _bare_alt_roll(_bare_alt_target(T_A.sheet, "mains_nues"), rng.randint(1, 20)),
        ),
        (
            "altaride combat",
            lambda rng: _alt_outcome(ALTARIDE.resolve_action(T_A, T_B, ALT_DECL, rng, ALT_SETTINGS)),
            _bare_alt_attack,
        ),
        (
            "sms test",
            lambda rng: SMS.resolve(SMS_TEST, rng).outcome,
            lambda rng: _bare_sms_die(
                SMS_TEST["score"], _bare_round_die(SMS_TEST["die"] + SMS_TEST["circumstances"]), rng
            ),
        ),
        ("sms combat", lambda rng: _sms_outcome(SMS.resolve_action(S_HERO, S_FOE, SMS_DECL, rng)), _bare_sms_attack),
    ]
    for name, rules_call, bare_call in pairs:
        rules_rng, bare_rng = SeededRandom(7), random.Random(7)
        for _ in range(calls):
            _same(name, bare_call(bare_rng), rules_call(rules_rng))


def _clefs_outcome(out: dict[str, Any]) -> dict[str, Any]:
    return {**out, "actor": _pick(out["actor"]), "target": _pick(out["target"])}


def _pick(side: dict[str, Any]) -> dict[str, Any]:
    return {k: side[k] for k in ("ca", "d20", "level", "dr", "de", "success")}


def _alt_outcome(result: Any) -> dict[str, Any]:
    out = result.outcome
    damage = out.get("damage") or {}
    return {"hit": out["hit"], **{k: damage.get(k, False) for k in ("amount", "after", "dead", "unconscious")}}


def _sms_outcome(result: Any) -> dict[str, Any]:
    out = dict(result.outcome)
    for change in result.state_changes:
        if change.path == "wounds":
            out["wounds"] = [{"severity": w["severity"]} for w in change.after]
    return out


# --------------------------------------------------------------------------
MEASURES: list[tuple[str, Callable[[int], None], Callable[[int], None], float]] = [
    ("ambre test (comparison)", ambre_test, bare_ambre_test, 10),
    ("ambre combat (exchange)", ambre_combat, bare_ambre_combat, 6),
    ("clefs test (aspect×means+skill)", clefs_test, bare_clefs_test, 10),
    ("clefs combat (confrontation)", clefs_combat, bare_clefs_combat, 10),
    ("altaride test (skill)", altaride_test, bare_altaride_test, 10),
    ("altaride combat (attack)", altaride_combat, bare_altaride_combat, 10),
    ("sms test (action)", sms_test, bare_sms_test, 10),
    ("sms combat (attack)", sms_combat, bare_sms_combat, 10),
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
    check_bare()
    gc.collect()
    for _, call, bare, _goal in MEASURES:  # warm-up, and a crash here names the broken call
        call(20)
        bare(20)
    rows = []
    for name, call, bare, goal in MEASURES:
        calls, bares = [], []
        for _ in range(rounds):
            calls.append(_time(call, seconds))
            bares.append(_time(bare, seconds))
        c, b = min(calls), min(bares)
        rows.append((name, c, b, goal))
    print("bare functions: the rules' numbers on the same inputs and draws (checked)")
    head = f"{'measure':34} {'µs/call':>9} {'calls/s':>10} {'bare µs':>9} {'bare/s':>11} {'ratio':>7} {'goal':>6}"
    print(head)
    for name, c, b, goal in rows:
        ratio = c / b
        mark = "ok" if ratio <= goal else "over"
        print(
            f"{name:34} {c * 1e6:9.2f} {1 / c:10,.0f} {b * 1e6:9.2f} {1 / b:11,.0f} {ratio:6.1f}× {goal:4.0f}× {mark}"
        )


if __name__ == "__main__":
    main()
