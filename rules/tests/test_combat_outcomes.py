"""Each system's public outcome sentence (what every viewer reads) for a hit, a miss and a death, FR and EN.

The sentence never quotes a hidden value (a CA, a score, a die, a damage figure
of a diceless system); a death is the rules' ``fallen_sentence`` for a
participant whose :meth:`combat_condition` became ``"dead"``.
"""

from __future__ import annotations

import copy
from typing import Any

from rules import get_system
from rules.base import Combatant, CombatResult, ScriptedRandom, fallen_sentence, join_sentences, set_path
from rules.tests import present
from rules.tests import test_altaride_combat as alt
from rules.tests import test_clefs_combat as clefs
from rules.tests import test_sms_combat as sms


def public(system: Any, result: CombatResult, actor: Combatant, target: Combatant | None) -> dict[str, str]:
    """The step's public sentence as the combat app builds it (with who falls)."""
    fallen = []
    for who in (actor, target):
        if who is None:
            continue
        state = copy.deepcopy(who.state)
        for change in result.state_changes:
            if change.participant_id == who.id:
                set_path(state, change.path, change.after)
        before, after = system.combat_condition(who.state), system.combat_condition(state)
        if after != before:
            fallen.append(fallen_sentence(who.name, after))
    return join_sentences(system.public_outcome(result, actor, target), *fallen).to_dict()


# ---- Ambre (diceless) -------------------------------------------------------------------------------------------
def _ambre(name: str, state: dict[str, Any] | None = None) -> Combatant:
    from combat.tests.conftest import ambre_sheet

    system = get_system("ambre")
    sheet = ambre_sheet(name)
    base = system.combat_state(sheet, {})
    base.update(state or {})
    return Combatant(name.lower(), name, "a", sheet, base)


def test_ambre_hit_miss_and_death():
    system = get_system("ambre")
    cendre, borel = _ambre("Cendre"), _ambre("Borel")
    hit = system.resolve_action(cendre, borel, {"mode": "melee"}, ScriptedRandom([]), {})
    text = public(system, hit, cendre, borel)
    assert text["fr"].startswith("Cendre touche Borel : blessure ") and "dégâts" not in text["fr"]
    assert text["en"].startswith("Cendre hits Borel: ") and text["en"].endswith(" wound.")
    ariane = _ambre("Ariane")
    miss = system.resolve_action(borel, ariane, {"mode": "ranged", "target_mode": "melee"}, ScriptedRandom([]), {})
    assert public(system, miss, borel, ariane) == {
        "fr": "Ariane esquive le tir de Borel.",
        "en": "Ariane evades Borel's shot.",
    }
    dying = _ambre("Borel", {"life": 1})
    death = system.resolve_action(cendre, dying, {"mode": "melee"}, ScriptedRandom([]), {"automatic_death": True})
    text = public(system, death, cendre, dying)
    assert text["fr"].endswith(" Borel meurt.") and text["en"].endswith(" Borel dies.")
    for lang in ("fr", "en"):
        assert not any(ch.isdigit() for ch in text[lang])  # no figure of a diceless game


# ---- Clefs de l'Aube ----------------------------------------------------------------------------------------------
CLEFS_ATTACK = {
    "kind": "opposed",
    "aspect_code": "PH",
    "means_code": "PU",
    "skill_name": "Épée",
    "defense_aspect_code": "PH",
    "defense_means_code": "RE",
    "harm": 4,
}


def test_clefs_hit_miss_and_death():
    system = clefs.SYSTEM
    alice, bob = clefs.fighter("alice"), clefs.fighter("bob")
    hit = system.resolve_action(alice, bob, CLEFS_ATTACK, ScriptedRandom([14, 7]), system.settings({}))
    assert public(system, hit, alice, bob) == {
        "fr": "Alice l'emporte sur Bob : Bob subit un handicap.",
        "en": "Alice prevails over Bob: Bob suffers a handicap.",
    }
    miss = system.resolve_action(alice, bob, CLEFS_ATTACK, ScriptedRandom([19, 7]), system.settings({}))
    assert public(system, miss, alice, bob) == {"fr": "Bob l'emporte sur Alice.", "en": "Bob prevails over Alice."}
    # No wound scale in the text (gap G1): death is the Keeper's decision, read from the state.
    assert system.combat_condition({**bob.state, "dead": True}) == "dead"
    assert present(fallen_sentence("Bob", "dead")).to_dict() == {"fr": "Bob meurt.", "en": "Bob dies."}


# ---- SMS ------------------------------------------------------------------------------------------------------------
def test_sms_hit_miss_and_death():
    system = sms.SMS
    hero, foe = sms.pc("Ysolde"), sms.npc("Garde", base_defence_die=8)
    hit = system.resolve_action(hero, foe, {"kind": "attack", "score": 6, "severity": "serious"}, ScriptedRandom([2]))
    assert public(system, hit, hero, foe) == {
        "fr": "Ysolde touche Garde : blessure grave (moyenne).",
        "en": "Ysolde hits Garde: serious wound.",
    }
    miss = system.resolve_action(hero, foe, {"kind": "attack", "score": 2, "severity": "light"}, ScriptedRandom([7]))
    assert public(system, miss, hero, foe) == {
        "fr": "Ysolde manque Garde : enjeu moyen.",
        "en": "Ysolde misses Garde: moderate stake.",
    }
    minion = sms.npc("Sbire", base_defence_die=4, is_minion=True)
    death = system.resolve_action(hero, minion, {"kind": "attack", "score": 6}, ScriptedRandom([]))
    assert public(system, death, hero, minion) == {
        "fr": "Ysolde touche Sbire : blessure légère. Sbire meurt.",
        "en": "Ysolde hits Sbire: light wound. Sbire dies.",
    }


# ---- Altaride -------------------------------------------------------------------------------------------------------
def test_altaride_hit_miss_and_death():
    system = alt.SYSTEM
    attacker, target = alt.fighter("a"), alt.fighter("t")
    hit = alt.act(attacker, target, {"action": "attack", "weapon": "dague"}, 7, 15)
    assert public(system, hit, attacker, target) == {
        "fr": "A touche T : 17 points d'Endurance Physique. T perd connaissance.",
        "en": "A hits T: 17 points of Physical Endurance. T falls unconscious.",
    }
    defender = alt.fighter("d", HAB=14, VIG=14)
    parried = alt.act(
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
    assert public(system, parried, attacker, defender) == {
        "fr": "D pare : A ne touche pas.",
        "en": "D parries: A does not hit.",
    }
    weak = alt.fighter("t", state={"endurance": {"EP": 12}})
    death = alt.act(attacker, weak, {"action": "attack", "weapon": "dague"}, 7, 15)
    assert public(system, death, attacker, weak)["fr"].endswith("T meurt.")
    assert public(system, death, attacker, weak)["en"].endswith("T dies.")
