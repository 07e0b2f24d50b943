"""Derived values of an Ambre sheet: pools, global levels, keys, ranks.

Never stored: recomputed from the sheet (Foundry's ``prepareDerivedData``).

Attribute scale (spec §8 #3, L400): an attribute is stored as its signed
points A: 0 = Amberite rank (L17), > 0 = points bought above Amberite, -10 =
chaosian (L18 "rend 10 points"), -25 = human (L18 "rend 25pts"; L29 a human
has 0 in every characteristic). Global levels add A plus the 25-point human
gap per attribute appearing in the sum (L400), hence the +50 / +25 constants
of L402–L408.
"""

from __future__ import annotations

from typing import Any

from rules.ambre import tables as T
from rules.ambre.costs import power_rank
from rules.ambre.ranks import known_rank
from rules.ambre.schema import coerce
from rules.base import DerivedSpec, Msg, as_int


def attribute_points(sheet: dict[str, Any], key: str) -> int:
    """Signed attribute points A of ``key`` (0 = Amberite)."""
    return as_int((sheet.get("attributes") or {}).get(key), 0)


def characteristic(sheet: dict[str, Any], key: str) -> int:
    return as_int((sheet.get("characteristics") or {}).get(key), 0)


def pool(points: int) -> int:
    """Characteristic points of an attribute (L28): 25 + A (human 0, L29)."""
    return max(0, T.AMBERITE_POOL + points)


def effective(points: int) -> int:
    """Attribute value including the human gap (L400): A + 25."""
    return T.HUMAN_GAP + points


def base_rank(points: int) -> str:
    """Rank decided by the sheet alone (L18); ladder ranks need the campaign."""
    if points <= T.HUMAN_POINTS:
        return "human"
    if points < 0:
        return "chaosian"
    if points == 0:
        return "amberite"
    return "ranked"


def rank_label(points: int, public_position: int | None = None, public_points: int | None = None) -> dict[str, Any]:
    """Rank of one attribute as its owner may know it (L18): public positions only.

    The sheet stores the last public ladder position and the owner's points
    at that comparison (``ladder.<attr>``); see
    :func:`rules.ambre.ranks.known_rank`. The true ladder (everyone's current
    points) is the GMs' and is never stored on a sheet: the overtaken
    player's sheet, and its history, would change when someone bought up.
    """
    return known_rank(points, public_position, public_points)


def minor_keys(mental: int, volonte: int) -> int:
    """ "Mental+Volonté / 4 = nb de clés mineures" (L440), rounded down (L447: 50/4 -> 12)."""
    return max(0, (mental + volonte) // T.KEYS_DIVISOR)


def global_levels(sheet: dict[str, Any]) -> dict[str, int]:
    """The four global levels (L402–L408) plus the thrown/wrestling variants.

    GM modifiers (L400 "sujets à de multiples variations") are added from
    ``sheet["modifiers"]``.
    """
    psy, phy, end = (attribute_points(sheet, k) for k in ("psy", "phy", "end"))
    mods = sheet.get("modifiers") or {}
    c = lambda key: characteristic(sheet, key)  # noqa: E731
    levels = {
        "life_max": end + phy + 2 * T.HUMAN_GAP,  # L402
        "energy_max": psy + end + 2 * T.HUMAN_GAP,  # L404
        "ranged_level": phy + c("hab_distance") + T.HUMAN_GAP,  # L406
        "thrown_level": phy + c("dexterite") + T.HUMAN_GAP,  # L406 "dextérité dans le cadre d'armes de lancer"
        "melee_level": phy + c("hab_cac") + T.HUMAN_GAP,  # L408
        "wrestling_level": phy + c("force") + T.HUMAN_GAP,  # L408 "force dans le cadre de lutte"
    }
    for key in levels:
        levels[key] += as_int(mods.get(key), 0)
    return levels


def wound_points(wounds: dict[str, Any]) -> int:
    """Weighted wound total W = L + 2S + 4G + 8M (L429)."""
    if not wounds:
        return 0
    if _FOUR is not None:  # the common case: four counts, read without the loop
        (kl, wl), (ks, ws), (kg, wg), (km, wm) = _FOUR
        get = wounds.get
        light, serious, grave, mortal = get(kl, 0), get(ks, 0), get(kg, 0), get(km, 0)
        if light.__class__ is serious.__class__ is grave.__class__ is mortal.__class__ is int and (
            light >= 0 and serious >= 0 and grave >= 0 and mortal >= 0
        ):
            return wl * light + ws * serious + wg * grave + wm * mortal
    total = 0
    for key, weight in _WEIGHTS:
        v = wounds.get(key)
        if v.__class__ is not int:
            v = as_int(v, 0)
        if v > 0:
            total += weight * v
    return total


_WEIGHTS = tuple((k, T.WOUND_WEIGHTS[k]) for k in T.WOUND_ORDER)
#: The wound track's four (key, weight) pairs for :func:`wound_points`' fast path (None: another
#: number of wound kinds, the loop alone).
_FOUR: tuple[tuple[str, int], ...] | None = _WEIGHTS if len(_WEIGHTS) == 4 else None


def _pair_merged(points: int) -> dict[str, int]:
    points = max(0, points)
    return {
        "light": points & 1,
        "serious": (points >> 1) & 1,
        "grave": (points >> 2) & 1,
        "mortal": points >> 3,
    }


#: The pair-merged states of the first 64 weighted totals, copied on each call (an exchange asks twice).
_MERGED = tuple(_pair_merged(points) for points in range(64))


def normalise_wounds(points: int) -> dict[str, int]:
    """Pair-merged wound state from W (L429: two of a kind make the next); a new dict."""
    if 0 <= points < 64:
        return _MERGED[points].copy()
    return _pair_merged(points)


def derive_sheet(sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """All derived values of a sheet (flat keys for display + details)."""
    sheet = coerce(sheet)
    levels = global_levels(sheet)
    attributes = {}
    ladder = sheet.get("ladder") or {}
    for key in T.ATTRIBUTES:
        points = attribute_points(sheet, key)
        positions = ladder.get(key) or {}
        attributes[key] = {
            "points": points,
            "effective": effective(points),
            "pool": pool(points),
            "allocated": sum(characteristic(sheet, c) for c in T.GOVERNS[key]),
            **rank_label(points, positions.get("public_position"), positions.get("public_points")),
        }
    condition = sheet.get("condition") or {}
    keys = minor_keys(characteristic(sheet, "mental"), characteristic(sheet, "volonte"))
    wounds = normalise_wounds(wound_points(condition.get("wounds") or {}))
    powers = []
    for item in sheet.get("powers") or []:
        if isinstance(item.get("power"), str) and item["power"] in T.POWERS:
            level = as_int(item.get("level"), T.POWERS[item["power"]].level)
            powers.append({"power": item["power"], "level": level, **power_rank(max(1, level), settings)})
    warnings = []
    if characteristic(sheet, "resistance") == 0:
        warnings.append(
            {
                "code": "zero_resistance",
                "message": {
                    "fr": "Résistance 0 : toute blessure sera mortelle (L428).",
                    "en": "Resistance 0: every wound will be mortal (L428).",
                },
            }
        )
    return {
        **levels,
        "life": levels["life_max"] - as_int(condition.get("life_damage"), 0),
        "energy": levels["energy_max"] - as_int(condition.get("energy_spent"), 0),
        "minor_keys": keys,
        "keys_available": max(0, keys - as_int(condition.get("keys_used"), 0)),
        "initiative_physical": characteristic(sheet, "rapidite"),  # L416
        "initiative_mental": characteristic(sheet, "concentration"),  # L416
        "one_vs_many": characteristic(sheet, "strategie") + characteristic(sheet, "adaptation"),  # L51
        "wound_points": wound_points(condition.get("wounds") or {}),
        "wounds": wounds,
        "attributes": attributes,
        "powers": powers,
        "warnings": warnings,
    }


_DERIVED: tuple[tuple[str, Msg, str], ...] = (
    ("life", Msg("Vie", "Life"), "levels"),
    ("life_max", Msg("Jauge de vie (L402)", "Life gauge (L402)"), "levels"),
    ("energy", Msg("Énergie", "Energy"), "levels"),
    ("energy_max", Msg("Jauge d'énergie (L404)", "Energy gauge (L404)"), "levels"),
    ("ranged_level", Msg("Niveau en combat à distance (L406)", "Ranged combat level (L406)"), "levels"),
    ("thrown_level", Msg("Niveau armes de lancer (L406)", "Thrown weapons level (L406)"), "levels"),
    ("melee_level", Msg("Niveau au corps à corps (L408)", "Melee level (L408)"), "levels"),
    ("wrestling_level", Msg("Niveau de lutte (L408)", "Wrestling level (L408)"), "levels"),
    ("minor_keys", Msg("Clés mineures (L440)", "Minor keys (L440)"), "sorcery"),
    ("keys_available", Msg("Clés disponibles", "Keys available"), "sorcery"),
    ("initiative_physical", Msg("Initiative physique (Rapidité)", "Physical initiative (Speed)"), "combat"),
    ("initiative_mental", Msg("Initiative mentale (Concentration)", "Mental initiative (Concentration)"), "combat"),
    (
        "one_vs_many",
        Msg("Un contre plusieurs (Stratégie + Adaptation, L51)", "One against many (Strategy + Adaptation, L51)"),
        "combat",
    ),
    ("wound_points", Msg("Poids des blessures", "Wound weight"), "condition"),
)


def derived_specs() -> tuple[DerivedSpec, ...]:
    """Labels of the derived values: gauges and levels (L402-L408), keys (L440), initiatives, wounds."""
    return tuple(DerivedSpec(key, label, group) for key, label, group in _DERIVED)
