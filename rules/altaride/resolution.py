"""The d20 roll-under test, opposed tests, magic, damage and learning rolls.

Conventions (spec §4.0-§4.5):
* ``T = base target + target modifiers`` (GM bonus/malus L105, multi-action
  malus L109, learning-day bonus L169/L221, VIG Mini malus L204).
* ``D = natural + die modifiers - XP lowering`` (stun +1 L185, weapon initiative
  L202, lowering L217). Criticals are read on the natural die (A20).
* natural 20 = critical failure whatever the margin (L100); natural 1 =
  critical success, +1 XP (L101). Otherwise success iff ``D <= T`` (L98).
* Margins on criticals are clamped at 0 (A9). ``meets_required`` = success and
  (natural 1 or success margin >= required margin) (L103, A12).
* Opposed tests (L105, L180): higher success margin wins, ties to the
  defender; a critical success beats a plain success (A10, configurable); an
  attacker who fails never wins; no defence -> the attacker needs a success (A11).

Every d20 of a test is tagged: ``natural_1`` / ``natural_20`` in
:attr:`Resolution.tags` and ``outcome["natural_ones"]`` (count of natural 1s
rolled by the character the resolution belongs to) so the session job can
credit +1 XP per natural 1 (L213) from stored rolls.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from rules.altaride import tables as T
from rules.altaride.derive import skill_cr, talent
from rules.altaride.schema import skill_name
from rules.base import (
    Field,
    LedgerDraft,
    Msg,
    RandomSource,
    Resolution,
    RulesError,
    error,
    validate_fields,
)

SLUG = "altaride"


# ---------------------------------------------------------------------------
# Pure evaluation
# ---------------------------------------------------------------------------
def evaluate(
    target: int,
    natural: int,
    *,
    die_modifier: int = 0,
    xp_lowering: int = 0,
    required_margin: int = 0,
) -> dict[str, Any]:
    """Evaluate one roll-under test from its natural die (spec §4.1-§4.2)."""
    die = natural + die_modifier - xp_lowering
    signed = target - die
    if natural == T.NATURAL_CRIT_FAILURE:
        level = "crit_failure"
    elif natural == T.NATURAL_CRIT_SUCCESS:
        level = "crit_success"
    elif die <= target:
        level = "success"
    else:
        level = "failure"
    success = level in ("success", "crit_success")
    success_margin = max(signed, 0) if success else None
    failure_margin = None if success else max(-signed, 0)
    meets = success and (level == "crit_success" or (success_margin or 0) >= required_margin)
    if not success:
        band = "failure"
    elif meets:
        band = "success"
    else:
        band = "insufficient_margin"  # "un jet réussi n'est jamais un échec" L103
    return {
        "target": target,
        "natural": natural,
        "die_modifier": die_modifier,
        "xp_lowering": xp_lowering,
        "die": die,
        "signed_margin": signed,
        "outcome": level,
        "success": success,
        "success_margin": success_margin,
        "failure_margin": failure_margin,
        "required_margin": required_margin,
        "meets_required": meets,
        "band": band,
        "xp_gain": T.NATURAL_ONE_XP if natural == T.NATURAL_CRIT_SUCCESS else 0,
    }


def opposed(active: dict[str, Any], defender: dict[str, Any] | None, crit_wins: bool = True) -> dict[str, Any]:
    """Compare two evaluated tests (L105, L180; A10, A11). Ties go to the defender."""
    if defender is None:
        won = bool(active["success"])
        return {"winner": "active" if won else None, "active_succeeds": won, "defender_succeeds": False}
    if not active["success"]:
        d_ok = bool(defender["success"])
        return {"winner": "defender" if d_ok else None, "active_succeeds": False, "defender_succeeds": d_ok}
    if not defender["success"]:
        return {"winner": "active", "active_succeeds": True, "defender_succeeds": False}
    a_crit = active["outcome"] == "crit_success"
    d_crit = defender["outcome"] == "crit_success"
    if crit_wins and a_crit != d_crit:
        active_wins = a_crit
    else:
        active_wins = active["success_margin"] > defender["success_margin"]
    return {
        "winner": "active" if active_wins else "defender",
        "active_succeeds": active_wins,
        "defender_succeeds": not active_wins,
    }


def action_malus(action_index: int) -> int:
    """k-th action of a round: -(k-1) on the target (L109)."""
    return -max(action_index - 1, 0)


def vig_min_malus(vigour: int, vig_min: int) -> int:
    """-5 per missing Vigour point under the weapon's VIG Mini (L204)."""
    return -T.VIG_MIN_MALUS_PER_POINT * max(0, vig_min - vigour)


def damage_amount(margin: int, weapon_x: int, die: int, extras: list[int] | tuple[int, ...] = ()) -> int:
    """Damage = margin + X + floor(d20 / 2) + extras, clamped at 0 (L189-L196, A18)."""
    return max(0, margin + weapon_x + die // 2 + sum(extras))


def cast_cost(meets: bool, natural: int, spell_level: int, works_on_low_margin: bool = True) -> dict[str, Any]:
    """EO cost and effect of a casting (L120, L173, L175; A25)."""
    if meets:
        return {"eo_cost": 1, "spell_works": True}
    works = works_on_low_margin and natural != T.NATURAL_CRIT_FAILURE
    return {"eo_cost": spell_level, "spell_works": works}


def lower_die(
    resolution: Resolution | dict[str, Any],
    points: int,
    xp_balance: int,
    side: str = "active",
    settings: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], LedgerDraft]:
    """Spend XP to lower a stored roll's die (L217; A13) and return ``(re-judged resolution, ledger draft)``.

    ``side`` picks the roll in an opposed test (``"active"`` or ``"defender"``).
    Refused: a natural 20 (stays a critical failure), points < 1, a die below 1,
    not enough XP. Criticals never appear (they are read on the natural die);
    an opposed winner, a casting cost and ``meets_required`` are recomputed.
    """
    data = resolution.to_dict() if isinstance(resolution, Resolution) else resolution
    outcome = dict(data.get("outcome") or {})
    roll_key = {"active": "roll", "defender": "defender_roll"}.get(side)
    roll = outcome.get(roll_key or "") if roll_key else None
    if not isinstance(roll, dict):
        raise RulesError([error("side", "no_roll", "Aucun jet à modifier.", "No roll to change.")])
    errors = []
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        errors.append(error("points", "invalid_points", "Au moins 1 point.", "At least 1 point."))
    elif roll["natural"] == T.NATURAL_CRIT_FAILURE:
        errors.append(
            error(
                "points", "natural_20", "Un 20 reste un échec critique (L217).", "A 20 stays a critical failure (L217)."
            )
        )
    elif roll["die"] - points < 1:
        errors.append(error("points", "die_below_1", "Le dé ne descend pas sous 1.", "The die cannot go below 1."))
    elif points * T.DIE_LOWERING_COST > xp_balance:
        errors.append(error("points", "insufficient_xp", "Expérience insuffisante.", "Not enough experience."))
    if errors:
        raise RulesError(errors)
    new_roll = evaluate(
        roll["target"],
        roll["natural"],
        die_modifier=roll["die_modifier"],
        xp_lowering=roll["xp_lowering"] + points,
        required_margin=roll["required_margin"],
    )
    outcome[roll_key] = new_roll
    if side == "active" and "contest" not in outcome and "natural" in outcome:
        outcome.update(new_roll)  # simple tests mirror the roll at the top level
    crit_wins = (settings or {}).get("crit_success_wins_opposed", True)
    if "contest" in outcome:
        outcome["contest"] = opposed(outcome["roll"], outcome.get("defender_roll"), crit_wins)
    if data.get("kind") == "casting" and side == "active":
        outcome.update(
            cast_cost(
                new_roll["meets_required"],
                new_roll["natural"],
                outcome["spell_level"],
                outcome.get("works_on_low_margin", True),
            )
        )
        outcome["eo_after"] = outcome["eo_before"] - outcome["eo_cost"]
    outcome["success"] = (
        outcome.get("contest", {}).get("active_succeeds", new_roll["success"])
        if "contest" in outcome
        else new_roll["success"]
    )
    draft = LedgerDraft(
        "xp",
        -points * T.DIE_LOWERING_COST,
        "purchase",
        Msg(f"Dé abaissé de {points}", f"Die lowered by {points}"),
        {"purchase": "die_lowering", "points": points, "side": side},
    )
    judged = {**data, "outcome": outcome, "success": outcome["success"]}
    judged["level"], judged["margin"] = roll_level(outcome, outcome["success"])
    return judged, draft


# ---------------------------------------------------------------------------
# Request declarations
# ---------------------------------------------------------------------------
_MODS = (
    Field("target_modifier", "int", Msg("Bonus/malus du MJ", "GM bonus/malus"), default=0, audience="gm"),
    Field("die_modifier", "int", Msg("Modificateur du dé", "Die modifier"), default=0, audience="gm"),
    Field("action_index", "int", Msg("N° d'action dans l'assaut", "Action number in the round"), default=1, minimum=1),
    Field("required_margin", "int", Msg("Marge minimale", "Required margin"), default=0, minimum=0, audience="gm"),
    Field("label", "str", Msg("Libellé", "Label"), default="", max_length=200),
)
_SHEET = Field(
    "sheet",
    "dict",
    Msg("Feuille", "Sheet"),
    help=Msg("Feuille du personnage pour calculer la cible.", "Character sheet to compute the target."),
)
_TARGET = Field("target", "int", Msg("Chances de réussite", "Success chance"))
_TALENT = Field("talent", "choice", Msg("Talent", "Talent"), choices=tuple((t, T.TALENT_LABELS[t]) for t in T.TALENTS))


def test_kinds() -> dict[str, tuple[Field, ...]]:
    """The request fields of every test kind (a fresh dict over cached, immutable field tuples)."""
    return dict(_test_kinds())


@cache
def _test_kinds() -> dict[str, tuple[Field, ...]]:
    return {
        "test": (Field("target", "int", Msg("Chances de réussite", "Success chance"), required=True), *_MODS),
        "skill_test": (
            Field("skill", "str", Msg("Compétence", "Skill"), required=True, max_length=60),
            _SHEET,
            _TARGET,
            *_MODS,
        ),
        "talent_test": (
            Field("talent", "choice", _TALENT.label, choices=_TALENT.choices, required=True),
            _SHEET,
            _TARGET,
            *_MODS,
        ),
        "opposed_test": (
            Field("target", "int", Msg("Chances de l'actif", "Active success chance"), required=True),
            Field(
                "defender_target",
                "int",
                Msg("Chances du défenseur (vide = pas de défense)", "Defender success chance (empty = no defence)"),
                audience="gm",
            ),
            Field(
                "defender_target_modifier",
                "int",
                Msg("Bonus/malus du défenseur", "Defender bonus/malus"),
                default=0,
                audience="gm",
            ),
            Field(
                "defender_die_modifier",
                "int",
                Msg("Modificateur du dé du défenseur", "Defender die modifier"),
                default=0,
                audience="gm",
            ),
            *_MODS,
        ),
        "casting": (
            Field("incantation", "int", Msg("Incantation", "Incantation"), required=True),
            Field(
                "eo_current",
                "int",
                Msg("Endurance Occulte actuelle", "Current Occult Endurance"),
                required=True,
                minimum=0,
            ),
            Field("spell_level", "int", Msg("Niveau du sort", "Spell level"), required=True, minimum=1, maximum=10),
            *_MODS[:3],
        ),
        "magic_attack": (
            Field("manipulations", "int", Msg("Manipulations du lanceur", "Caster's Manipulations"), required=True),
            Field(
                "defender_target",
                "int",
                Msg("Manipulations de la cible (vide = pas de défense)", "Target's Manipulations (empty = no defence)"),
                audience="gm",
            ),
            Field(
                "defender_target_modifier",
                "int",
                Msg("Bonus/malus de la cible", "Target bonus/malus"),
                default=0,
                audience="gm",
            ),
            *_MODS[:3],
        ),
        "runes_charge": (
            Field("runes", "int", Msg("Runes", "Runes"), required=True),
            Field(
                "object_runes",
                "int",
                Msg("Runes de l'objet", "Object's Runes"),
                default=T.OBJECT_RUNES_SCORE,
                minimum=0,
            ),
            Field("charges", "int", Msg("Charges actuelles", "Current charges"), default=0, minimum=0),
            *_MODS[:3],
        ),
        "use_charge": (
            Field("incantation", "int", Msg("Incantation", "Incantation"), required=True),
            Field("spell_level", "int", Msg("Niveau du sort", "Spell level"), required=True, minimum=1, maximum=10),
            Field(
                "eo_current",
                "int",
                Msg("Endurance Occulte actuelle", "Current Occult Endurance"),
                required=True,
                minimum=0,
            ),
            Field("charges", "int", Msg("Charges", "Charges"), required=True, minimum=0),
            *_MODS[:3],
        ),
        "explosion": (
            Field("charges", "int", Msg("Charges", "Charges"), required=True, minimum=0, maximum=100),
            Field("distance", "int", Msg("Distance (m)", "Distance (m)"), default=0, minimum=0),
        ),
        "learning": (
            Field("talent_score", "int", Msg("Talent (Science ou Esprit)", "Talent (Science or Wits)"), required=True),
            Field("level", "int", Msg("Niveau à apprendre", "Level to learn"), required=True, minimum=1),
            Field("day", "int", Msg("Jour d'apprentissage", "Learning day"), default=1, minimum=1),
            Field("until_learned", "bool", Msg("Jusqu'à réussite", "Until learned"), default=False),
            Field("max_days", "int", Msg("Jours max", "Max days"), default=60, minimum=1, maximum=365),
        ),
        "wake_up": (Field("el_current", "int", Msg("Endurance Lucidité actuelle", "Current Lucidity"), required=True),),
        "damage": (
            Field("margin", "int", Msg("Marge de réussite", "Success margin"), required=True, minimum=0),
            Field("damage_x", "int", Msg("X de l'arme", "Weapon X"), default=0),
            Field("damage_type", "choice", Msg("Type", "Type"), default="physique", choices=T.DAMAGE_TYPES),
            Field(
                "extras",
                "list",
                Msg("Bonus/malus annexes (−1..+1)", "Extra modifiers (−1..+1)"),
                default=[],
                max_items=10,
            ),
            *EXTRA_FIELDS,
        ),
    }


def _validate(kind: str, request: dict[str, Any]) -> None:
    kinds = test_kinds()
    if kind not in kinds:
        raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])
    errors = validate_fields(request, kinds[kind])
    if errors:
        raise RulesError(errors)


def _roll(rng: RandomSource) -> int:
    return rng.randint(1, T.DIE)


def _mods(request: dict[str, Any]) -> tuple[int, int]:
    target_mod = int(request.get("target_modifier") or 0) + action_malus(int(request.get("action_index") or 1))
    return target_mod, int(request.get("die_modifier") or 0)


def base_target(kind: str, request: dict[str, Any], settings: dict[str, Any]) -> int:
    """Target before modifiers: the given ``target``, or computed from ``sheet``."""
    if isinstance(request.get("target"), int) and not isinstance(request.get("target"), bool):
        return int(request["target"])
    sheet = request.get("sheet")
    if kind == "skill_test" and isinstance(sheet, dict):
        cr = skill_cr(sheet, str(request["skill"]), settings)
        if cr is None:
            raise RulesError(
                [
                    error(
                        "skill",
                        "unknown_skill",
                        "Compétence inconnue (catalogue de la campagne).",
                        "Unknown skill (campaign catalogue).",
                    )
                ]
            )
        return cr
    if kind == "talent_test" and isinstance(sheet, dict):
        return talent(sheet, str(request["talent"]))
    raise RulesError(
        [
            error(
                "target",
                "required",
                "Indiquez les Chances de réussite ou la feuille.",
                "Give the success chance or the sheet.",
            )
        ]
    )


def _tags(natural: int, prefix: str = "") -> list[str]:
    if natural == T.NATURAL_CRIT_SUCCESS:
        return [f"{prefix}natural_1"]
    if natural == T.NATURAL_CRIT_FAILURE:
        return [f"{prefix}natural_20"]
    return []


def _summary(label: str, roll: dict[str, Any]) -> Msg:
    out = T.OUTCOMES[roll["outcome"]]
    if roll["success"]:
        fr_m, en_m = f"marge de réussite {roll['success_margin']}", f"success margin {roll['success_margin']}"
    else:
        fr_m, en_m = f"marge d'échec {roll['failure_margin']}", f"failure margin {roll['failure_margin']}"
    return Msg(
        f"{label} : 1D20 = {roll['natural']} (dé {roll['die']}) sous {roll['target']} : {out.fr}, {fr_m}",
        f"{label}: 1D20 = {roll['natural']} (die {roll['die']}) under {roll['target']}: {out.en}, {en_m}",
    )


def resolve(request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    if not isinstance(request, dict):
        raise RulesError([error("", "invalid_request", "Requête invalide.", "Invalid request.")])
    kind = str(request.get("kind", ""))
    _validate(kind, request)
    result = _HANDLERS[kind](kind, request, rng, settings)
    result.level, result.margin = roll_level(result.outcome, result.success)
    return result


def roll_level(outcome: Mapping[str, Any], success: bool | None) -> tuple[str, int | None]:
    """The shared level and margin of a result whose outcome holds the active ``roll`` (``rules/README.md``).

    ``crit_success`` (a natural 1) and ``crit_failure`` (a natural 20) are the critical levels when the
    result goes their way (L101, L103); an opposed roll won or lost follows the contest (L105). The
    margin is the roll's ``signed_margin`` (target − die, L103); ``None`` without a roll."""
    roll = outcome.get("roll")
    if roll.__class__ is not dict:
        return _PLAIN_LEVELS[success], None
    return _CRITICAL_LEVELS.get((success, roll["outcome"])) or _PLAIN_LEVELS[success], roll.get("signed_margin")


_PLAIN_LEVELS: dict[bool | None, str] = {True: "success", False: "failure", None: "none"}
_CRITICAL_LEVELS: dict[tuple[bool | None, str], str] = {
    (True, "crit_success"): "critical_success",
    (False, "crit_failure"): "critical_failure",
}


def _simple_test(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    base = base_target(kind, request, settings)
    target_mod, die_mod = _mods(request)
    natural = _roll(rng)
    roll = evaluate(
        base + target_mod, natural, die_modifier=die_mod, required_margin=int(request.get("required_margin") or 0)
    )
    label = str(request.get("label") or "")
    if not label:
        if kind == "skill_test":
            label = skill_name(str(request["skill"]), settings)
        elif kind == "talent_test":
            label = T.TALENT_LABELS[str(request["talent"])].fr
        else:
            label = "Jet"
    inputs = {k: v for k, v in request.items() if k != "sheet"}
    inputs["base_target"] = base
    outcome = {"roll": roll, **roll, "target_modifier": target_mod, "natural_ones": 1 if natural == 1 else 0}
    return Resolution(SLUG, kind, inputs, [natural], outcome, _summary(label, roll), roll["success"], _tags(natural))


def _opposed_test(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    target_mod, die_mod = _mods(request)
    attr = "manipulations" if kind == "magic_attack" else "target"
    active_target = int(request[attr]) + target_mod
    natural = _roll(rng)
    draws = [natural]
    roll = evaluate(
        active_target, natural, die_modifier=die_mod, required_margin=int(request.get("required_margin") or 0)
    )
    defender = None
    tags = _tags(natural)
    if isinstance(request.get("defender_target"), int):
        d_nat = _roll(rng)
        draws.append(d_nat)
        defender = evaluate(
            int(request["defender_target"]) + int(request.get("defender_target_modifier") or 0),
            d_nat,
            die_modifier=int(request.get("defender_die_modifier") or 0),
        )
        tags += _tags(d_nat, "defender_")
    contest = opposed(roll, defender, settings.get("crit_success_wins_opposed", True))
    outcome = {
        "roll": roll,
        "defender_roll": defender,
        "contest": contest,
        "success": contest["active_succeeds"],
        "natural_ones": 1 if natural == 1 else 0,
        "defender_natural_ones": 1 if defender and defender["natural"] == 1 else 0,
    }
    if kind == "magic_attack":
        outcome["target_affected"] = contest["active_succeeds"]
    who = {
        "active": Msg("l'actif", "the active side"),
        "defender": Msg("le défenseur", "the defender"),
        None: Msg("personne", "nobody"),
    }[contest["winner"]]
    summary = Msg(
        f"Opposition : {natural} sous {roll['target']}"
        + (f" contre {defender['natural']} sous {defender['target']}" if defender else "")
        + f" : {who.fr} l'emporte",
        f"Opposed: {natural} under {roll['target']}"
        + (f" vs {defender['natural']} under {defender['target']}" if defender else "")
        + f": {who.en} wins",
    )
    return Resolution(SLUG, kind, dict(request), draws, outcome, summary, contest["active_succeeds"], tags)


def _casting(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    level = int(request["spell_level"])
    eo = int(request["eo_current"])
    if eo < level:  # L120, L175
        raise RulesError(
            [
                error(
                    "spell_level",
                    "not_enough_eo",
                    "Endurance Occulte insuffisante : il faut au moins {n} points (L175).",
                    "Not enough Occult Endurance: at least {n} points needed (L175).",
                    n=level,
                )
            ]
        )
    target_mod, die_mod = _mods(request)
    natural = _roll(rng)
    roll = evaluate(int(request["incantation"]) + target_mod, natural, die_modifier=die_mod, required_margin=level)
    works_low = bool(settings.get("spell_works_on_low_margin", True))
    cost = cast_cost(roll["meets_required"], natural, level, works_low)
    outcome = {
        "roll": roll,
        **cost,
        "spell_level": level,
        "eo_before": eo,
        "eo_after": eo - cost["eo_cost"],
        "works_on_low_margin": works_low,
        "success": roll["success"],
        "natural_ones": 1 if natural == 1 else 0,
    }
    summary = Msg(
        f"Incantation niveau {level} : {natural} sous {roll['target']}, "
        f"{'le sort agit' if cost['spell_works'] else 'le sort échoue'}, EO −{cost['eo_cost']}",
        f"Casting level {level}: {natural} under {roll['target']}, "
        f"{'the spell works' if cost['spell_works'] else 'the spell fails'}, EO −{cost['eo_cost']}",
    )
    return Resolution(SLUG, kind, dict(request), [natural], outcome, summary, cost["spell_works"], _tags(natural))


def _runes_charge(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Charging an object: RUN vs the object's Runes like Manipulations (L181; A27)."""
    target_mod, die_mod = _mods(request)
    natural = _roll(rng)
    roll = evaluate(int(request["runes"]) + target_mod, natural, die_modifier=die_mod)
    o_nat = _roll(rng)
    obj = evaluate(int(request.get("object_runes", T.OBJECT_RUNES_SCORE)), o_nat)
    contest = opposed(roll, obj, settings.get("crit_success_wins_opposed", True))
    charges = int(request.get("charges") or 0)
    charged = contest["active_succeeds"]
    outcome = {
        "roll": roll,
        "defender_roll": obj,
        "contest": contest,
        "charged": charged,
        "exploded": not charged,
        "charges_before": charges,
        "charges_after": charges + 1 if charged else 0,
        "explosion_charges": 0 if charged else charges,
        "success": charged,
        "natural_ones": 1 if natural == 1 else 0,
    }
    summary = Msg(
        f"Runes : {natural} sous {roll['target']} contre l'objet {o_nat} sous {obj['target']} : "
        + ("objet chargé" if charged else "l'objet explose"),
        f"Runes: {natural} under {roll['target']} vs object {o_nat} under {obj['target']}: "
        + ("object charged" if charged else "the object explodes"),
    )
    return Resolution(SLUG, kind, dict(request), [natural, o_nat], outcome, summary, charged, _tags(natural))


def _use_charge(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Using a charge: Incantation test; 0 EO on success, 1 EO on a miss (L181; A29)."""
    level = int(request["spell_level"])
    charges = int(request["charges"])
    eo = int(request["eo_current"])
    errors = []
    if charges < 1:
        errors.append(error("charges", "no_charge", "L'objet n'a plus de charge.", "The object has no charge left."))
    if eo < 1:
        errors.append(
            error(
                "eo_current",
                "not_enough_eo",
                "Il faut au moins 1 point d'Endurance Occulte.",
                "At least 1 Occult Endurance point is needed.",
            )
        )
    if errors:
        raise RulesError(errors)
    target_mod, die_mod = _mods(request)
    natural = _roll(rng)
    roll = evaluate(int(request["incantation"]) + target_mod, natural, die_modifier=die_mod, required_margin=level)
    works = roll["meets_required"] or (bool(settings.get("spell_works_on_low_margin", True)) and natural != 20)
    eo_cost = 0 if roll["meets_required"] else 1
    outcome = {
        "roll": roll,
        "eo_cost": eo_cost,
        "eo_before": eo,
        "eo_after": eo - eo_cost,
        "spell_works": works,
        "charges_before": charges,
        "charges_after": charges - 1,
        "spell_level": level,
        "success": roll["success"],
        "natural_ones": 1 if natural == 1 else 0,
    }
    summary = Msg(
        f"Charge utilisée : {natural} sous {roll['target']}, EO −{eo_cost}",
        f"Charge used: {natural} under {roll['target']}, EO −{eo_cost}",
    )
    return Resolution(SLUG, kind, dict(request), [natural], outcome, summary, works, _tags(natural))


def _explosion(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Broken charged object: 1D20 per charge, -1D20 per metre (L181; A28). Physique damage."""
    charges = int(request["charges"])
    distance = int(request.get("distance") or 0)
    dice = max(0, charges - distance)
    draws = [_roll(rng) for _ in range(dice)]
    total = sum(draws)
    tags = ["natural_1"] if settings.get("xp_for_every_d20") and 1 in draws else []
    outcome = {"dice": dice, "damage": total, "damage_type": "physique", "natural_ones": draws.count(1) if tags else 0}
    summary = Msg(
        f"Explosion : {dice}D20 = {total} points de dommages Physique",
        f"Explosion: {dice}D20 = {total} Physical damage",
    )
    return Resolution(SLUG, kind, dict(request), draws, outcome, summary, None, tags)


def _learning(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Learning a guild spell (Science, L169) or a capacity (Esprit, L221).

    One roll per day, target = talent + (day - 1) (+1 per failed day), success
    when the margin reaches the level (A33). ``until_learned`` loops day by day.
    """
    score = int(request["talent_score"])
    level = int(request["level"])
    day = int(request.get("day") or 1)
    last = day + int(request.get("max_days") or 60) - 1 if request.get("until_learned") else day
    rolls = []
    learned = False
    while day <= last:
        natural = _roll(rng)
        roll = evaluate(score + day - 1, natural, required_margin=level)
        roll["day"] = day
        rolls.append(roll)
        if roll["meets_required"]:
            learned = True
            break
        day += 1
    draws = [r["natural"] for r in rolls]
    ones = draws.count(1)
    outcome = {
        "rolls": rolls,
        "learned": learned,
        "days": rolls[-1]["day"],
        "next_day": rolls[-1]["day"] + 1,
        "success": learned,
        "natural_ones": ones,
    }
    tags = (["natural_1"] if ones else []) + (["natural_20"] if 20 in draws else [])
    summary = Msg(
        f"Apprentissage niveau {level} : " + ("appris" if learned else "pas encore") + f" (jour {outcome['days']})",
        f"Learning level {level}: " + ("learned" if learned else "not yet") + f" (day {outcome['days']})",
    )
    return Resolution(SLUG, kind, dict(request), draws, outcome, summary, learned, tags)


def _wake_up(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Wake-up roll: wakes iff d20 < current EL, strict, no critical override (L119; A23)."""
    el = int(request["el_current"])
    natural = _roll(rng)
    woke = natural < el
    outcome = {
        "natural": natural,
        "el_current": el,
        "woke": woke,
        "success": woke,
        "natural_ones": 1 if natural == 1 else 0,
    }
    summary = Msg(
        f"Réveil : {natural} contre EL {el} : " + ("réveillé" if woke else "toujours inconscient"),
        f"Wake-up: {natural} vs EL {el}: " + ("awake" if woke else "still unconscious"),
    )
    return Resolution(SLUG, kind, dict(request), [natural], outcome, summary, woke, _tags(natural))


def validate_extras(extras: Any, path: str = "extras") -> list[int]:
    """Each extra damage modifier is within [-1, +1] (L196, A22)."""
    if extras in (None, ""):
        return []
    if not isinstance(extras, list):
        raise RulesError([error(path, "invalid_list", "Liste attendue.", "Expected a list.")])
    errors = [
        error(
            f"{path}.{i}",
            "extra_out_of_range",
            "Chaque bonus/malus annexe est entre −1 et +1 (L196).",
            "Each extra modifier is between −1 and +1 (L196).",
        )
        for i, x in enumerate(extras)
        if isinstance(x, bool) or not isinstance(x, int) or abs(x) > T.DAMAGE_EXTRA_LIMIT
    ]
    if errors:
        raise RulesError(errors)
    return [int(x) for x in extras]


#: The extra damage modifiers the text names, one labelled input each (L192–L196: "taille de l'arme
#: (lutine/géante), enchantement (+1 quelque part), autres"; "ne peut excéder 1 point"). A request may still
#: send a free ``extras`` list (the API); both add up.
EXTRA_FIELDS: tuple[Field, ...] = (
    Field(
        "extra_size",
        "int",
        Msg("Taille de l'arme (lutine/géante)", "Weapon size (lutine/giant)"),
        default=0,
        minimum=-T.DAMAGE_EXTRA_LIMIT,
        maximum=T.DAMAGE_EXTRA_LIMIT,
    ),
    Field(
        "extra_enchantment",
        "int",
        Msg("Enchantement", "Enchantment"),
        default=0,
        minimum=-T.DAMAGE_EXTRA_LIMIT,
        maximum=T.DAMAGE_EXTRA_LIMIT,
    ),
    Field(
        "extra_other",
        "int",
        Msg("Autre bonus/malus annexe", "Other extra modifier"),
        default=0,
        minimum=-T.DAMAGE_EXTRA_LIMIT,
        maximum=T.DAMAGE_EXTRA_LIMIT,
    ),
)


def gather_extras(request: dict[str, Any]) -> list[int]:
    """The extra modifiers of a request: its ``extras`` list, then each named one that is not 0."""
    extras = validate_extras(request.get("extras"))
    named = [request.get(f.path) for f in EXTRA_FIELDS]
    for f, value in zip(EXTRA_FIELDS, named, strict=True):
        if value not in (None, "", 0):
            validate_extras([value], f.path)
    return extras + [int(v) for v in named if v not in (None, "", 0)]


def _damage(kind: str, request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    extras = gather_extras(request)
    natural = _roll(rng)
    amount = damage_amount(int(request["margin"]), int(request.get("damage_x") or 0), natural, extras)
    tags = ["natural_1"] if settings.get("xp_for_every_d20") and natural == 1 else []
    outcome = {
        "natural": natural,
        "half_die": natural // 2,
        "damage": amount,
        "damage_type": request.get("damage_type") or "physique",
        "extras": extras,
        "natural_ones": 1 if tags else 0,
    }
    summary = Msg(
        f"Dommages : {request['margin']} + {request.get('damage_x') or 0} + {natural}/2 = {amount}",
        f"Damage: {request['margin']} + {request.get('damage_x') or 0} + {natural}/2 = {amount}",
    )
    return Resolution(SLUG, kind, dict(request), [natural], outcome, summary, None, tags)


_HANDLERS = {
    "test": _simple_test,
    "skill_test": _simple_test,
    "talent_test": _simple_test,
    "opposed_test": _opposed_test,
    "magic_attack": _opposed_test,
    "casting": _casting,
    "runes_charge": _runes_charge,
    "use_charge": _use_charge,
    "explosion": _explosion,
    "learning": _learning,
    "wake_up": _wake_up,
    "damage": _damage,
}


def success_odds(target: int, die_modifier: int = 0, required_margin: int = 0) -> dict[str, Any]:
    """Exact odds of a single test (20 equiprobable faces)."""
    counts = {"crit_success": 0, "success": 0, "failure": 0, "crit_failure": 0, "meets_required": 0}
    for natural in range(1, 21):
        roll = evaluate(target, natural, die_modifier=die_modifier, required_margin=required_margin)
        counts[roll["outcome"]] += 1
        counts["meets_required"] += int(roll["meets_required"])
    success = counts["crit_success"] + counts["success"]
    return {
        "success": success / 20,
        "meets_required": counts["meets_required"] / 20,
        "crit_success": counts["crit_success"] / 20,
        "crit_failure": counts["crit_failure"] / 20,
        "counts": counts,
    }


def opposed_odds(
    active_target: int,
    defender_target: int | None,
    crit_wins: bool = True,
    active_die_modifier: int = 0,
    defender_die_modifier: int = 0,
) -> dict[str, Any]:
    """Exact odds of an opposed test over the 400 (or 20) equiprobable pairs of naturals."""
    wins = {"active": 0, "defender": 0, None: 0}
    faces = range(1, 21)
    for a in faces:
        ra = evaluate(active_target, a, die_modifier=active_die_modifier)
        if defender_target is None:
            wins[opposed(ra, None, crit_wins)["winner"]] += 20
            continue
        for d in faces:
            rd = evaluate(defender_target, d, die_modifier=defender_die_modifier)
            wins[opposed(ra, rd, crit_wins)["winner"]] += 1
    return {"active": wins["active"] / 400, "defender": wins["defender"] / 400, "nobody": wins[None] / 400}


def odds(request: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any] | None:
    kind = str(request.get("kind", ""))
    if kind in ("opposed_test", "magic_attack"):
        _validate(kind, request)
        target_mod, die_mod = _mods(request)
        attr = "manipulations" if kind == "magic_attack" else "target"
        defender = request.get("defender_target")
        return opposed_odds(
            int(request[attr]) + target_mod,
            None if defender is None else int(defender) + int(request.get("defender_target_modifier") or 0),
            bool(settings.get("crit_success_wins_opposed", True)),
            die_mod,
            int(request.get("defender_die_modifier") or 0),
        )
    if kind not in ("test", "skill_test", "talent_test", "casting"):
        return None
    _validate(kind, request)
    if kind == "casting":
        base = int(request["incantation"])
        required = int(request["spell_level"])
        if int(request["eo_current"]) < required:  # L120, L175: no roll at all, not a 75 % chance
            summary = Msg(
                f"impossible : il faut {required} points d'Endurance Occulte ({request['eo_current']} restants)",
                f"impossible: {required} Occult Endurance points needed ({request['eo_current']} left)",
            )
            return {
                "impossible": True,
                "success": 0.0,
                "meets_required": 0.0,
                "crit_success": 0.0,
                "crit_failure": 0.0,
                "summary": summary.to_dict(),
            }
    else:
        base = base_target(kind, request, settings)
        required = int(request.get("required_margin") or 0)
    target_mod, die_mod = _mods(request)
    return success_odds(base + target_mod, die_mod, required)


#: Names of the test kinds (:func:`test_kinds` keys).
TEST_KIND_LABELS: dict[str, Msg] = {
    "test": Msg("Test", "Test"),
    "skill_test": Msg("Test de compétence", "Skill test"),
    "talent_test": Msg("Test de talent", "Talent test"),
    "opposed_test": Msg("Test en opposition", "Opposed test"),
    "casting": Msg("Incantation", "Casting"),
    "magic_attack": Msg("Attaque magique", "Magic attack"),
    "runes_charge": Msg("Charge de runes", "Charging runes"),
    "use_charge": Msg("Utiliser une charge", "Using a charge"),
    "explosion": Msg("Explosion", "Explosion"),
    "learning": Msg("Apprentissage", "Learning"),
    "wake_up": Msg("Réveil", "Waking up"),
    "damage": Msg("Dégâts", "Damage"),
}
