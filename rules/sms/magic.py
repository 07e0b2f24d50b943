"""Magic of the Omnivers de Loreval (L277–552): the spell builder, rituals, special powers, counter-magic.

:func:`build_spell` is pure and cheap: the web page calls it live while the player picks components.

Readings:
* offensive and curative spells are measured by the wound severity, not the power (L376, L424–430, L470):
  ``N = base + 2 × (severity − 1)``; other natures ``N = base + 2 × (power − 1)`` (L370);
* base D4 for a spell, the target's defence die when the target opposes (L366); a willing heal uses D4
  (spec Ambiguity 35); rituals D8 (L386) minus 2 per participant (L388); special powers D8 (L412);
* improvement / diminution / occult protection / counter-effect power = scope + rank − 1 ≤ 5 (L482);
* range, area and duration are negative modules on the caster's score (L316–320), default reading
  ``spell_range_reading = "score"``. The Tord-Gnoll example instead raises the die for distance (L431):
  campaign setting ``spell_range_reading = "die"`` adds 2 per range step to the die (D10 → D12 at
  «Rencontre») while area and duration stay on the score;
* energy cost (fatigue): a spell is one lasting level (L301, L414), a special power one transient level
  (L414), a spell cast as an intervention adds its effort as lasting fatigue (L571, spec Ambiguity 23),
  a ritual tires the caster and each participant by one lasting level (L390, REC); fatigue is paid on
  every attempt (spec Ambiguity 40).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.base import FieldError, Msg, error, is_digits
from rules.sms.core import difficulty_die
from rules.sms.health import severity_id, spell_damage_points
from rules.sms.tables import (
    DAMAGE_TYPE_COST,
    DIE_MAX,
    DISPEL_BASE_DIE,
    IMPROVEMENT_MAX_POWER,
    MAGIC_ENABLER,
    MAGIC_MODULE,
    MAGIC_NATIVE,
    NATURE_FAMILY,
    RITUAL_BASE_DIE,
    SPECIAL_POWER_BASE_DIE,
    SPELL_BASE_DIE,
    SPELL_NATURES,
)

_NATURES = {k for k, _ in SPELL_NATURES}
_SEVERITY_NATURES = {"offensive", "curative"}
_MODULE_NATURES = {"improvement", "diminution", "occult_protection", "counter_effect"}


def improvement_power(scope: int, rank: int) -> int:
    """Power of an improvement/diminution (and occult protection, counter-effect): scope + rank − 1 (L482)."""
    return int(scope) + int(rank) - 1


def barrier_reduction(power: int) -> int:
    """A barrier lowers the defence die by 2 per power level (L449–455)."""
    return 2 * max(0, int(power))


def counter_effect_cancels(rank: int, effect_power: int, matches: bool = True) -> bool:
    """A counter-effect cancels matching effects whose power ≤ its rank (L463)."""
    return bool(matches) and int(effect_power) <= int(rank)


def ritual_die(power: int, participants: int = 0, adjustments: int = 0) -> int:
    """Ritual difficulty: D8 at power 1, +2 per level (D16 at 5, L386), −2 per participant (L388)."""
    return difficulty_die(RITUAL_BASE_DIE + 2 * (int(power) - 1) - 2 * max(0, int(participants)), [adjustments])


def counter_spell_die(caster_base_die: int, power: int, adjustments: int = 0) -> int:
    """Counter-spell: the GM's base die to interrupt this caster + one die per power above 1 (L532)."""
    return difficulty_die(int(caster_base_die) + 2 * (int(power) - 1), [adjustments])


def dispel_die(power: int, adjustments: int = 0) -> int:
    """Dispel: absolute D4 at power 1, one die per power above (L540)."""
    return difficulty_die(DISPEL_BASE_DIE + 2 * (int(power) - 1), [adjustments])


def ritual_dispel_die(power: int, adjustments: int = 0) -> int:
    """Ritual of dispelling (L548): difficulty not stated; REC the ritual formula (spec Ambiguity 46)."""
    return difficulty_die(RITUAL_BASE_DIE + 2 * (int(power) - 1), [adjustments])


def dispel_score_penalty(duration_step: int, area_step: int, range_step: int) -> int:
    """Dispel score modifiers: the dispelled spell's duration and area manipulations + the range needed (L538)."""
    return int(duration_step) + int(area_step) + int(range_step)


def manipulation_penalty(range_step: int, area_step: int, duration_step: int, extension_rank: int = 0) -> int:
    """Spell manipulation penalty on the score (L316–320): 0..9, reduced by resistive spell-extension ranks."""
    total = int(range_step) + int(area_step) + int(duration_step)
    return max(0, total - max(0, int(extension_rank)))


def cast_permission(ranks: Mapping[str, int], magic_type: str, nature: str, mode: str = "spell") -> list[FieldError]:
    """Who may cast (L297, L384, L289–295): the main magic module at rank ≥ 1, the enabling module for
    a nature the magic lacks, ritual magic for a ritual. ``ranks`` maps predefined module keys to ranks."""
    errors: list[FieldError] = []
    main = MAGIC_MODULE.get(magic_type)
    if main is None:
        return [error("magic_type", "invalid_choice", "Type de magie inconnu.", "Unknown magic type.")]
    if int(ranks.get(main, 0)) < 1:
        errors.append(
            error(
                "magic_type",
                "missing_magic_module",
                "Il faut le module de magie ({m}) au rang 1 minimum (L297).",
                "The magic module ({m}) is needed at rank 1 at least (L297).",
                m=main,
            )
        )
    family = NATURE_FAMILY.get(nature)
    if family and family not in MAGIC_NATIVE[magic_type]:
        needed_nature, enabler = MAGIC_ENABLER[magic_type]
        if family != needed_nature or int(ranks.get(enabler, 0)) < 1:
            errors.append(
                error(
                    "nature",
                    "nature_not_allowed",
                    "Cette magie ne permet pas cet effet sans le module {m} (L289–295).",
                    "This magic cannot produce this effect without the {m} module (L289–295).",
                    m=enabler,
                )
            )
    if mode == "ritual" and int(ranks.get("ritual_magic", 0)) < 1:
        errors.append(
            error(
                "mode",
                "missing_ritual_magic",
                "Il faut la magie rituelle au rang 1 (L384).",
                "Ritual magic at rank 1 is needed (L384).",
            )
        )
    return errors


def _int(components: Mapping[str, Any], key: str, default: int, lo: int, hi: int, errors: list[FieldError]) -> int:
    value = components.get(key, default)
    if value is None or value == "":
        value = default
    if isinstance(value, str) and is_digits(value.lstrip("-")):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append(error(key, "invalid_int", "Entrez un nombre entier.", "Enter a whole number."))
        return default
    if value < lo or value > hi:
        errors.append(
            error(key, "out_of_range", "Doit être entre {lo} et {hi}.", "Must be between {lo} and {hi}.", lo=lo, hi=hi)
        )
        return max(lo, min(hi, value))
    return value


def build_spell(components: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Difficulty and energy cost of a spell from its components (pure; safe to call on every keystroke).

    ``components`` keys (all optional): ``mode`` (spell/ritual/special_power), ``nature``, ``power`` 1..5,
    ``severity`` (offensive/curative: light … annihilation), ``scope``/``rank`` (improvement family),
    ``opposed`` + ``target_die`` (base defence die of an opposing target), ``range``/``area``/``duration``
    steps 0..3, ``extension_rank`` (resistive spell-extension modules), ``participants`` (ritual),
    ``circumstances`` (signed die adjustment), ``intervention`` (cast as an intervention),
    ``damage_type`` (Model B information), ``magic_type`` + ``caster_ranks`` (permission check).

    Returns ``{"difficulty", "energy_cost", "breakdown", "errors", ...}``; ``errors`` are dicts
    (``path``, ``code``, ``message`` FR/EN). A difficulty above 12 needs a score at least as high (L268, L386).
    """
    settings = settings or {}
    errors: list[FieldError] = []
    breakdown: list[dict[str, Any]] = []

    def line(fr: str, en: str, die: int = 0, score: int = 0) -> None:
        breakdown.append({"label": Msg(fr, en).to_dict(), "die": die, "score": score})

    mode = components.get("mode", "spell") or "spell"
    if mode not in ("spell", "ritual", "special_power"):
        errors.append(error("mode", "invalid_choice", "Mode inconnu.", "Unknown mode."))
        mode = "spell"
    nature = components.get("nature", "misc") or "misc"
    if nature not in _NATURES:
        errors.append(error("nature", "invalid_choice", "Nature d'effet inconnue.", "Unknown effect nature."))
        nature = "misc"
    opposed = bool(components.get("opposed", False))
    area_step = _int(components, "area", 0, 0, 3, errors)
    range_step = _int(components, "range", 0, 0, 3, errors)
    duration_step = _int(components, "duration", 0, 0, 3, errors)
    circumstances = _int(components, "circumstances", 0, -12, 12, errors)
    participants = _int(components, "participants", 0, 0, 50, errors)
    extension = _int(components, "extension_rank", 0, 0, 30, errors)
    target_die = _int(components, "target_die", 0, 0, 40, errors)
    is_area = area_step > 0

    effect: dict[str, Any] = {}
    power = 1
    if nature in _SEVERITY_NATURES:
        try:
            sev = severity_id(components.get("severity", "light") or "light")
        except ValueError:
            errors.append(error("severity", "invalid_choice", "Gravité inconnue.", "Unknown severity."))
            sev = 1
        power = sev  # equivalence power ↔ severity (L424–430)
        effective = sev - 1 if is_area else sev  # L433, L474
        effect = {"severity": sev, "effective_severity": effective}
    elif nature in _MODULE_NATURES:
        scope = _int(components, "scope", 1, 1, 5, errors)
        rank = _int(components, "rank", 1, 1, 5, errors)
        power = improvement_power(scope, rank)
        if power > IMPROVEMENT_MAX_POWER:
            errors.append(
                error(
                    "rank",
                    "power_too_high",
                    "Portée + rang − 1 = {p} dépasse 5 (L482).",
                    "Scope + rank − 1 = {p} exceeds 5 (L482).",
                    p=power,
                )
            )
            power = IMPROVEMENT_MAX_POWER
        effective_rank = rank - 1 if is_area else rank  # L484
        effect = {"scope": scope, "rank": rank, "effective_rank": effective_rank}
        if nature == "counter_effect":
            effect["cancels_up_to_power"] = rank  # L463
    else:
        power = _int(components, "power", 1, 1, 5, errors)
        if nature == "defensive":
            effect = {"barrier_reduction": barrier_reduction(power)}  # L449–455

    damage_type = components.get("damage_type") or ""
    if damage_type:
        if damage_type not in DAMAGE_TYPE_COST:
            errors.append(error("damage_type", "invalid_choice", "Type de dégâts inconnu.", "Unknown damage type."))
        else:
            points = spell_damage_points(power, damage_type, improvement=nature in ("improvement", "diminution"))
            if points is None:
                errors.append(
                    error(
                        "damage_type",
                        "power_too_low",
                        "Puissance insuffisante pour ce type de dégâts (L654–674).",
                        "Power too low for this damage type (L654–674).",
                    )
                )
            effect["damage_points"] = points
            effect["damage_type"] = damage_type

    # ---- difficulty --------------------------------------------------------
    range_reading = settings.get("spell_range_reading", "score")
    if mode == "ritual":
        base = RITUAL_BASE_DIE
        line("Rituel : dé de base D8 (L386)", "Ritual: base die D8 (L386)", die=base)
    elif mode == "special_power":
        base = SPECIAL_POWER_BASE_DIE
        line("Pouvoir particulier : dé de base D8 (L412)", "Special power: base die D8 (L412)", die=base)
    elif opposed or nature == "offensive":
        if target_die <= 0:
            errors.append(
                error(
                    "target_die",
                    "required",
                    "Indiquez le dé de défense de la cible (L366).",
                    "Give the target's defence die (L366).",
                )
            )
            base = SPELL_BASE_DIE
        else:
            base = target_die
        line("Cible opposée : sa capacité de défense (L366)", "Opposing target: its defence die (L366)", die=base)
    else:
        base = SPELL_BASE_DIE
        line("Sort : dé de base D4 (L366)", "Spell: base die D4 (L366)", die=base)
    die_sum = base
    if nature in _SEVERITY_NATURES:
        step = 2 * (power - 1)
        line(
            "Gravité visée : +2 par niveau au-delà de légère (L376, L426–430)",
            "Severity sought: +2 per level above light (L376, L426–430)",
            die=step,
        )
    else:
        step = 2 * (power - 1)
        line("Puissance : +2 par niveau au-delà de 1 (L370)", "Power: +2 per level above 1 (L370)", die=step)
    die_sum += step
    if mode == "ritual" and participants:
        die_sum -= 2 * participants
        line("Participants : −2 chacun (L388)", "Participants: −2 each (L388)", die=-2 * participants)
    if circumstances:
        die_sum += circumstances
        line("Circonstances (L374)", "Circumstances (L374)", die=circumstances)

    # ---- manipulation (score) ----------------------------------------------
    score_penalty = 0
    if mode == "spell":
        if range_reading == "die" and range_step:
            die_sum += 2 * range_step
            line("Portée sur le dé (lecture L431)", "Range on the die (L431 reading)", die=2 * range_step)
            raw = area_step + duration_step
        else:
            raw = range_step + area_step + duration_step
        score_penalty = max(0, raw - extension)
        if raw:
            line(
                "Manipulation portée/zone/durée : malus au score (L316–320)",
                "Range/area/duration manipulation: score penalty (L316–320)",
                score=-raw,
            )
        if extension and raw:
            line(
                "Modules résistifs d'extension des sorts (L320)",
                "Resistive spell-extension modules (L320)",
                score=min(raw, extension),
            )
    elif range_step or area_step or duration_step:
        line(
            "Rituels et pouvoirs particuliers portent leur portée, zone et durée (L386, L414)",
            "Rituals and special powers carry their own range, area and duration (L386, L414)",
        )
    difficulty = difficulty_die(die_sum)

    # ---- energy cost (fatigue) ----------------------------------------------
    intervention = bool(components.get("intervention", False))
    cost = {"transient": 0, "lasting": 0, "participants_lasting": 0}
    if mode == "special_power":
        cost["transient"] = 1 + (1 if intervention else 0)
    else:
        cost["lasting"] = 1 + (1 if intervention else 0)
        if mode == "ritual":
            cost["participants_lasting"] = participants

    # ---- permission -----------------------------------------------------------
    magic_type = components.get("magic_type") or ""
    ranks = components.get("caster_ranks")
    if magic_type and isinstance(ranks, Mapping):
        errors.extend(cast_permission(ranks, magic_type, nature, mode))

    return {
        "mode": mode,
        "nature": nature,
        "power": power,
        "difficulty": difficulty,
        "difficulty_sum": die_sum,
        "needs_score_above_12": difficulty > DIE_MAX,
        "score_penalty": score_penalty,
        "energy_cost": cost,
        "maintained": duration_step > 0 and mode == "spell",
        "effect": effect,
        "breakdown": breakdown,
        "errors": [e.to_dict() for e in errors],
    }
