"""Combat helpers (L171–275, L554–601): attack/defence dice, armour, size, initiative, PvP, turn budget.

Readings:
* PC attacks NPC: ``N = base + severity offset + armour category + circumstances`` (L185–194, L228, L258);
  a barrier on the NPC raises the die by 2 × power (mirror of armour, spec Ambiguity 36);
* NPC attacks PC: ``N = base − severity offset − armour − shield − 2 × barrier power + circumstances``
  (L196–198, L220–224, L232, L447–455, L254); a failed defence gives the wound sought, no extra stake
  (spec Ambiguity 38);
* leather armour: −2 by default (L224, L228), or a light armour −1 as in the table (L220) by campaign setting;
* size: the smaller combatant gets +d to hit/evade, the larger −d (L593–595); Model A has no damage amount,
  so size only moves the score (spec Ambiguity 29);
* initiative ties: Σ rank × scope (negative modules subtract), then a D12, higher first, re-rolled while
  tied (L558, spec Ambiguity 27);
* reactions: −k where k = reactions already made since the last own action (L573, spec Ambiguity 24);
  interventions allowed = 1 + rank of the «Intervention» module (L565, spec Ambiguity 25);
  one spell between two own actions, counter-spells included, special powers exempt (L575).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.base import RandomSource
from rules.sms.core import difficulty_die
from rules.sms.health import severity_id
from rules.sms.tables import SEVERITIES


def armour_modifier(category: int, kind: str = "custom", leather_reading: str = "minus_two") -> int:
    """Die modifier of an armour (L217–222); leather per campaign reading (L220 vs L224/L228)."""
    if kind == "leather":
        return 2 if leather_reading == "minus_two" else 1
    return max(0, min(3, int(category)))


def pc_attack_die(base: int, severity: Any, armour: int = 0, circumstances: int = 0, barrier_power: int = 0) -> int:
    """Die for a PC to wound an NPC (L185–194, L228, L258)."""
    offset = SEVERITIES[severity_id(severity)]["offset"]
    return difficulty_die(base, [offset, armour, 2 * barrier_power, circumstances])


def pc_defence_die(
    base: int, severity: Any, armour: int = 0, shield: int = 0, barrier_power: int = 0, circumstances: int = 0
) -> int:
    """Die for a PC to resist an NPC's attack (L198, L220–224, L232, L447–455, L254)."""
    offset = SEVERITIES[severity_id(severity)]["offset"]
    return difficulty_die(base, [-offset, -armour, -shield, -2 * barrier_power, circumstances])


def size_modifier(own_size: int, other_size: int) -> int:
    """Score modifier to hit or evade from the size difference (L593–595): smaller +d, larger −d."""
    return int(other_size) - int(own_size)


def weapon_size_malus(weapon_size: int, wielder_size: int) -> int:
    """An unsuited weapon costs the size difference on the score (L597)."""
    return -abs(int(weapon_size) - int(wielder_size))


def reaction_penalty(reactions_so_far: int) -> int:
    """−1 per reaction already made since the last own action (L573)."""
    return -max(0, int(reactions_so_far))


def interventions_allowed(intervention_rank: int = 0) -> int:
    """One intervention between two own actions, more with the «Intervention» module (L565)."""
    return 1 + max(0, int(intervention_rank))


def initiative_tiebreak(modules: Iterable[Mapping[str, Any]]) -> int:
    """Σ rank × scope of the initiative modules (L558), negative modules subtract."""
    total = 0
    for m in modules:
        value = int(m.get("rank", 0)) * int(m.get("scope", 1))
        total += -value if m.get("kind") == "negative" else value
    return total


def initiative_order(entries: list[dict[str, Any]], rng: RandomSource) -> list[dict[str, Any]]:
    """Order by score desc, tie-break desc, then D12 desc (re-rolled while tied) (L558).

    ``entries``: ``{"id", "score", "tiebreak"}``. D12 draws are made in the input order of the tied
    entries, so a replay with the recorded draws gives the same order.
    """
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for e in entries:
        e.setdefault("draws", [])
        groups.setdefault((e["score"], e["tiebreak"]), []).append(e)
    ordered: list[dict[str, Any]] = []
    for key in sorted(groups, reverse=True):
        ordered.extend(_break_ties(groups[key], rng))
    return ordered


def _break_ties(group: list[dict[str, Any]], rng: RandomSource) -> list[dict[str, Any]]:
    if len(group) == 1:
        return group
    rolls: dict[int, list[dict[str, Any]]] = {}
    for e in group:
        value = rng.randint(1, 12)
        e["draws"].append(value)
        rolls.setdefault(value, []).append(e)
    out: list[dict[str, Any]] = []
    for value in sorted(rolls, reverse=True):
        out.extend(_break_ties(rolls[value], rng))
    return out


def pvp_outcome(attacker_success: bool, defender_success: bool | None, attacker_die: int, defender_die: int) -> dict:
    """Opposed PCs (L581): attacker fails → nothing; defender fails (or does not react) → result die =
    attacker's die; both succeed → attacker's die − defender's die, ≤ 0 fully countered."""
    if not attacker_success:
        return {"effect": "none", "result_die": 0}
    if not defender_success:
        return {"effect": "full", "result_die": attacker_die}
    diff = attacker_die - defender_die
    if diff <= 0:
        return {"effect": "countered", "result_die": 0}
    return {"effect": "partial", "result_die": diff}
