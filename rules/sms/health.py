"""Health: wounds as negative modules (Model A), fatigue and recovery, Model B calculators.

The seed mixes two health models (spec §0 and Ambiguity 1):

* **Model A** (default, campaign setting ``health_model = "severity_modules"``): a wound is a negative
  module whose rank is its severity — light −1, serious −2, critical −4, mortal out of combat or dead
  (L133–142, L183–198).
* **Model B** (L581–585, L603–678): damage counted in *wound levels* typed blunt/lethal/critical/elemental.
  The track length is missing from the seed (gap 43), so Model B is implemented as calculators returning
  ``{levels, damage_type}``. With ``health_model = "wound_levels"`` the levels are converted automatically
  into Model A wounds by :func:`levels_to_severity` (1 light, 2 serious, 3 critical, ≥ 4 mortal — the
  power ladder of L426–429 and L599), otherwise the GM converts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.sms.tables import DAMAGE_TYPE_COST, SEVERITIES, SEVERITY_IDS


def severity_id(value: Any) -> int:
    """Accept ``"light"`` … ``"annihilation"`` or 1..5."""
    if value.__class__ is str and value in SEVERITY_IDS:  # the common case first (hot path)
        return SEVERITY_IDS[value]
    if isinstance(value, int) and not isinstance(value, bool) and value in SEVERITIES:
        return value
    if isinstance(value, str) and value in SEVERITY_IDS:
        return SEVERITY_IDS[value]
    raise ValueError(f"unknown severity {value!r}")


def severity_key(value: Any) -> str:
    return str(SEVERITIES[severity_id(value)]["key"])


def levels_to_severity(levels: int) -> int | None:
    """Optional mapping of Model B wound levels to a Model A severity (spec Ambiguity 1 (d))."""
    if levels <= 0:
        return None
    return min(levels, 4)


def status_after_wound(severity: int, is_minion: bool = False) -> str:
    """Status after a wound: mortal → out of combat at least (L140); a minion dies from any hit (L583)."""
    if is_minion:
        return "dead"
    if severity >= 5:
        return "dead"
    if severity == 4:
        return "out_of_combat"
    return "active"


def heal_wounds(wounds: Iterable[Mapping[str, Any]], level: Any, area: bool = False) -> list[dict[str, Any]]:
    """Magical healing (L470–476).

    «Un soin magique soigne une unique blessure du niveau considéré par cible, ou bien, toutes les blessures
    des niveaux inférieurs» (L472); on an area the level drops by one (L474). Annihilation cannot be healed
    as a wound (L470). Returns the new wound list (order kept).
    """
    lvl = severity_id(level) - (1 if area else 0)
    items = [dict(w) for w in wounds]
    if lvl < 1:
        return items
    sev = [severity_id(w.get("severity", "light")) for w in items]
    if lvl in sev:
        index = sev.index(lvl)
        return items[:index] + items[index + 1 :]
    return [w for w, s in zip(items, sev, strict=True) if s > lvl]


# ---------------------------------------------------------------------------
# Fatigue (L150–162, L301, L362, L414, L571)
# ---------------------------------------------------------------------------
FATIGUE_EVENTS = ("catch_breath", "sequence_end", "rest_hours", "sleep", "rest_days")


def fatigue_penalty(fatigue: Mapping[str, int], per_level: int = 1) -> int:
    """Penalty of the fatigue modules: REC −1 per level of every kind (L154 «beaucoup plus minime», L301)."""
    return per_level * sum(max(0, int(fatigue.get(k, 0))) for k in ("transient", "lasting", "persistent"))


def recover_fatigue(
    fatigue: Mapping[str, int], event: str, amount: int = 0, maintaining: bool = False
) -> dict[str, int]:
    """Recovery (L158–162).

    * ``catch_breath`` (whole action spent catching breath) and ``sequence_end`` clear transient fatigue (L158);
    * ``rest_hours``: one lasting level per hour of inactivity (L160);
    * ``sleep``: a sleep period clears all lasting fatigue (L160);
    * ``rest_days``: one persistent level per full day of rest (L162).

    While the character maintains a duration spell he cannot rest (L362): lasting and persistent fatigue
    do not recover (REC R-F11).
    """
    new = {k: max(0, int(fatigue.get(k, 0))) for k in ("transient", "lasting", "persistent")}
    if event in ("catch_breath", "sequence_end"):
        new["transient"] = 0
    elif event == "rest_hours":
        if not maintaining:
            new["lasting"] = max(0, new["lasting"] - max(0, int(amount)))
    elif event == "sleep":
        if not maintaining:
            new["lasting"] = 0
    elif event == "rest_days":
        if not maintaining:
            new["persistent"] = max(0, new["persistent"] - max(0, int(amount)))
    else:
        raise ValueError(f"unknown fatigue event {event!r}")
    return new


# ---------------------------------------------------------------------------
# Falls and projections (L619–646)
# ---------------------------------------------------------------------------
def triangular(k: int) -> int:
    """1 + 2 + … + k (L623 «1 + 2 + 3 = 6 niveaux»)."""
    return k * (k + 1) // 2 if k > 0 else 0


def fall_multiples(height: float, size_factor: int) -> int:
    """Number of whole size-factor multiples strictly exceeded by the height (L623 «supérieure à»)."""
    if height <= 0:
        return 0
    k = int(height // size_factor)
    if k * size_factor == height:
        k -= 1
    return max(0, k)


def fall_levels(height: float, size_factor: int) -> int:
    """Wound levels of a fall of ``height`` metres (L623)."""
    return triangular(fall_multiples(height, size_factor))


def fall_force(height: float, size_factor: int, controlled: bool = False) -> int:
    """Fall attack force: 3 per whole multiple of the size factor (L625), −3 when controlled (L629)."""
    force = 3 * fall_multiples(height, size_factor)
    return max(0, force - 3) if controlled else force


def fall_virtual_height(height: float, size_factor: int, outcome: str) -> float:
    """Resisting changes the height used for the impact (L625): success −FT, critical −2 FT, critical failure +FT."""
    shift = {"success": -1, "critical_success": -2, "failure": 0, "critical_failure": 1, "none": 0}[outcome]
    return max(0.0, height + shift * size_factor)


def fall_is_mortal(height: float, size_factor: int) -> bool:
    """Beyond 5 × FT the fall is mortal (L627)."""
    return height > 5 * size_factor


def projection_levels(distance: float, size_factor: int, obstacle_after: float | None = None) -> int:
    """Projection impact (L640–646): tiers start at 0 m («dès le palier 0»); an obstacle hit after
    ``obstacle_after`` metres makes the impact the remaining distance (L644). Without obstacle the full
    distance is used (literal reading, spec Ambiguity 41)."""
    d = distance - obstacle_after if obstacle_after is not None else distance
    if d < 0:
        d = 0
    return triangular(1 + fall_multiples(d, size_factor))


# ---------------------------------------------------------------------------
# Model B damage (L583–585, L595, L609, L654–676)
# ---------------------------------------------------------------------------
def spell_damage_points(power: int, damage_type: str, improvement: bool = False) -> int | None:
    """Damage points of a spell by power (L654–658), or of an improvement (L674: one more power level).

    Blunt P, lethal P − 1, critical P − 2, elemental one more level (L654, L656). ``None`` when the power
    is too low for the type.
    """
    cost = DAMAGE_TYPE_COST[damage_type] + (1 if improvement else 0)
    points = int(power) - cost
    return points if points >= 1 else None


def protection_points(power: int, damage_type: str) -> int | None:
    """Points of a defensive spell against a damage type (L668–670), inclusive like magic protection."""
    return spell_damage_points(power, damage_type)


def weapon_damage_levels(
    weapon_base: int,
    result_die: int,
    armour: int = 0,
    size_difference: int = 0,
    damage_type: str = "lethal",
    magical: bool = False,
) -> int:
    """Model B weapon damage (L583): base (−1/0/+1) + class of the result die − armour − defences.

    ``size_difference`` is signed (+ for the bigger attacker); a size malus cannot lower damage below 1 and
    is applied before armour (L595). Elemental damage is absorbed by 1 point whatever the armour (L609);
    magical damage by at most 1 level (L585).
    """
    from rules.sms.core import die_class

    raw = int(weapon_base) + die_class(result_die)
    if size_difference:
        raw = raw + size_difference
        if size_difference < 0:
            raw = max(1, raw)
    absorbed = int(armour)
    if damage_type.startswith("elemental") or magical:
        absorbed = min(1, absorbed)
    return max(0, raw - absorbed)


def armour_after_elemental(category: int, enchanted: bool, damage_type: str) -> int:
    """Elemental attacks erode armour by one category (L609); enchanted armour resists lethal elemental."""
    if not damage_type.startswith("elemental"):
        return category
    if enchanted and damage_type == "elemental_lethal":
        return category
    return max(0, category - 1)


def affliction_progress(kind: str, boxes_total: int, boxes_checked: int, steps: int) -> dict[str, Any]:
    """Disease/poison progression (L613–617).

    Boxes are ticked at the affliction's rate; once every box is ticked, each further step inflicts one
    wound: poison lethal, disease critical (L615). The box count is GM data (missing in the seed, gap 43).
    """
    checked = max(0, int(boxes_checked))
    total = max(0, int(boxes_total))
    free = max(0, total - checked)
    ticked = min(free, max(0, steps))
    overflow = max(0, steps) - ticked
    return {
        "boxes_checked": checked + ticked,
        "boxes_total": total,
        "wounds": overflow,
        "damage_type": "lethal" if kind == "poison" else "critical",
        "armour_protects": False,
    }
