"""Semi-random character creation (la création des personnages, L517-L621).

Order (spec §3): aspects rolled or fixed → up to 5 aspect exchanges →
means zero or rolled → up to 5 means exchange points → skills, whose levels
feed the aspects through the ladder without means exchanges.

The dice are rolled on the server by :func:`creation_roll`, which returns a
record (method, dice, results and the flat ``draws`` list in draw order:
aspect dice first, then means dice). The wizard stores it in
``creation.roll``; :func:`replay_creation_roll` recomputes it from its draws
(``ScriptedRandom``) and :func:`creation_errors` checks every later choice
against it.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from rules.base import (
    Budget,
    FieldError,
    Msg,
    RandomSource,
    RulesError,
    ScriptedRandom,
    as_dict,
    as_int,
    error,
    validate_fields,
)
from rules.clefs import schema
from rules.clefs import tables as t
from rules.clefs.derive import creation_level, means_errors, skills_of


def _roll_sum(rng: RandomSource, dice: int, sides: int) -> list[int]:
    return [rng.randint(1, sides) for _ in range(dice)]


def creation_roll(
    rng: RandomSource, aspect_method: str = "ROLL_STANDARD", means_method: str = "ROLL"
) -> dict[str, Any]:
    """Roll the creation dice and return the record the wizard stores.

    * ``ROLL_STANDARD``: 2 × (2d6+3), third = 30 − sum (L523-L524);
      ``ROLL_LOW``: 2 × (2d6−2), third = 20 − sum (footnote L529-L532);
      ``FIXED_10``: 10, 10, 10 without dice (L525).
    * Means ``ROLL``: 3 × (2d6−7) and their opposites (L573-L576); ``ZERO``: six 0.
    """
    errors: list[FieldError] = []
    if aspect_method not in t.ASPECT_METHODS:
        errors.append(error("aspect_method", "invalid_choice", "Méthode inconnue.", "Unknown method."))
    if means_method not in t.MEANS_METHODS:
        errors.append(error("means_method", "invalid_choice", "Méthode inconnue.", "Unknown method."))
    if errors:
        raise RulesError(errors)
    draws: list[int] = []
    spec = t.ASPECT_METHODS[aspect_method]
    aspect_dice: list[list[int]] = []
    if spec is None:
        aspect_results = [t.FIXED_ASPECT_VALUE] * 3
    else:
        for _ in range(2):
            dice = _roll_sum(rng, spec["dice"], spec["sides"])
            aspect_dice.append(dice)
            draws += dice
        first, second = (sum(d) + spec["modifier"] for d in aspect_dice)
        aspect_results = [first, second, spec["total"] - (first + second)]
    means_dice: list[list[int]] = []
    means_results: list[int] = []
    if means_method == "ROLL":
        for _ in range(t.MEANS_ROLL["count"]):
            dice = _roll_sum(rng, t.MEANS_ROLL["dice"], t.MEANS_ROLL["sides"])
            means_dice.append(dice)
            draws += dice
            means_results.append(sum(dice) + t.MEANS_ROLL["modifier"])
        means_values = means_results + [-value for value in means_results]
    else:
        means_values = [0] * len(t.MEANS)
    return {
        "aspect_method": aspect_method,
        "aspect_dice": aspect_dice,
        "aspect_results": aspect_results,
        "means_method": means_method,
        "means_dice": means_dice,
        "means_results": means_results,
        "means_values": means_values,
        "draws": draws,
    }


def replay_creation_roll(record: dict[str, Any]) -> dict[str, Any]:
    """Recompute a stored creation record from its draws; raises ``ValueError`` if they diverge."""
    replay = ScriptedRandom(record.get("draws") or [])
    again = creation_roll(replay, record.get("aspect_method", ""), record.get("means_method", ""))
    if replay.remaining:
        raise ValueError("too many draws in the creation record")
    return again


def roll_errors(record: Any, aspect_method: str, means_method: str) -> list[FieldError]:
    """Check that a stored roll record is genuine for the chosen methods."""
    path = "creation.roll"
    if not isinstance(record, dict) or not record:
        if t.ASPECT_METHODS.get(aspect_method) is None and means_method == "ZERO":
            return []  # nothing to roll
        return [error(path, "roll_missing", "Lancez d'abord les dés de création.", "Roll the creation dice first.")]
    if record.get("aspect_method") != aspect_method or record.get("means_method") != means_method:
        return [
            error(
                path,
                "roll_method_mismatch",
                "Le tirage ne correspond pas aux méthodes choisies.",
                "The roll does not match the chosen methods.",
            )
        ]
    try:
        again = replay_creation_roll(record)
    except (ValueError, TypeError, RulesError):
        return [error(path, "roll_invalid", "Tirage de création invalide.", "Invalid creation roll.")]
    for key in ("aspect_dice", "aspect_results", "means_dice", "means_results", "means_values"):
        if record.get(key) != again[key]:
            return [error(path, "roll_invalid", "Tirage de création invalide.", "Invalid creation roll.")]
    return []


def server_roll_errors(sheet: dict[str, Any], rolls: Any) -> list[FieldError]:
    """The sheet's ``creation.roll`` must be the record the server stored (``rolls["creation"]``).

    :func:`roll_errors` only proves a record is self-consistent (its results follow from its
    draws); anyone can write such a record with chosen draws. The server keeps its own copy in
    the dice chain and the app passes it here: a sheet carrying any other record, or a record
    the server never rolled, is refused. A sheet without a record is :func:`creation_errors`'
    business (``roll_missing`` when the methods need dice).
    """
    creation = as_dict(sheet.get("creation"))
    record = creation.get("roll")
    if not record:
        return []
    stored = (rolls or {}).get("creation")
    if stored is not None and record == stored:
        return []
    return [
        error(
            "creation.roll",
            "roll_not_from_server",
            "Ce tirage n'est pas celui du serveur : relancez les dés de création.",
            "This roll is not the server's: roll the creation dice again.",
        )
    ]


def aspect_exchange_errors(initial: dict[str, int], final: dict[str, int]) -> list[FieldError]:
    """Aspect exchanges (L550-L556), checked on the final state (reading G8: 5 in total).

    Sum unchanged; Σ raises ≤ 5; a raised aspect ends ≤ 15; a lowered one ≥ 5.
    """
    errors: list[FieldError] = []
    if sum(final.values()) != sum(initial.values()):
        errors.append(
            error(
                "aspects",
                "aspect_sum_changed",
                "Les échanges doivent conserver la somme des aspects ({n}).",
                "Exchanges must keep the sum of the aspects ({n}).",
                n=sum(initial.values()),
            )
        )
    used = sum(max(0, final[c] - initial[c]) for c in t.ASPECTS)
    if used > t.ASPECT_EXCHANGES:
        errors.append(
            error(
                "aspects",
                "too_many_aspect_exchanges",
                "{n} échanges d'aspects utilisés, 5 au plus.",
                "{n} aspect exchanges used, at most 5.",
                n=used,
            )
        )
    for code in t.ASPECTS:
        if final[code] > initial[code] and final[code] > t.ASPECT_EXCHANGE_MAX:
            errors.append(
                error(
                    f"aspects.{code}",
                    "aspect_raised_above_15",
                    "Un échange ne peut pas monter un aspect au-dessus de 15.",
                    "An exchange cannot raise an aspect above 15.",
                )
            )
        if final[code] < initial[code] and final[code] < t.ASPECT_EXCHANGE_MIN:
            errors.append(
                error(
                    f"aspects.{code}",
                    "aspect_lowered_below_5",
                    "Un échange ne peut pas descendre un aspect sous 5.",
                    "An exchange cannot lower an aspect below 5.",
                )
            )
    return errors


def follow_placement(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """A new placement of the rolled results restarts the exchanges made on the old one.

    The text orders the steps: the player places the three results "dans les
    aspects qu'il désire" (L523-L525), "peut ensuite faire 5 échanges"
    (L550); the means results are distributed, then "peut faire encore une
    fois jusqu'à 5 points d'échange" (L576-L577). Placing the same results in
    another order is therefore not an exchange: when
    ``creation.aspects_assigned`` (or ``means_assigned``) changes and the
    final values were not edited in the same change, the final values become
    the new placement. Returns a new sheet.
    """
    new = copy.deepcopy(after)
    old_raw, raw = before.get("creation"), new.get("creation")
    old_creation: dict[str, Any] = old_raw if isinstance(old_raw, dict) else {}
    creation: dict[str, Any] = raw if isinstance(raw, dict) else {}
    for placed, final in (("aspects_assigned", "aspects"), ("means_assigned", "means")):
        placement = creation.get(placed)
        if (
            isinstance(placement, dict)
            and placement != old_creation.get(placed)
            and new.get(final) == before.get(final)
        ):
            new[final] = dict(placement)
    return new


def means_exchange_points(assigned: dict[str, int], final: dict[str, int]) -> int:
    """Exchange points used between the placed values and the final profile: Σ max(0, final − assigned)."""
    return sum(max(0, final[c] - assigned[c]) for c in t.MEANS)


def _int_map(data: Any, codes: tuple[str, ...]) -> dict[str, int] | None:
    if not isinstance(data, dict):
        return None
    out = {}
    for code in codes:
        value = data.get(code)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        out[code] = value
    return out


def creation_errors(sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
    """Every creation check of spec §3.6 (skipped for the ``free`` package)."""
    creation = as_dict(sheet.get("creation"))
    package = creation.get("skill_package", "standard")
    if package == "free":
        return []
    errors: list[FieldError] = []
    aspect_method = creation.get("aspect_method")
    means_method = creation.get("means_method")
    allowed_aspects = {
        "ROLL_STANDARD": "allow_aspect_roll_standard",
        "ROLL_LOW": "allow_aspect_roll_low",
        "FIXED_10": "allow_aspect_fixed_10",
    }
    allowed_means = {"ZERO": "allow_means_zero", "ROLL": "allow_means_roll"}
    if aspect_method in allowed_aspects and not settings.get(allowed_aspects[aspect_method], True):
        errors.append(
            error(
                "creation.aspect_method",
                "method_not_allowed",
                "Méthode refusée dans cette campagne.",
                "Method not allowed in this campaign.",
            )
        )
    if means_method in allowed_means and not settings.get(allowed_means[means_method], True):
        errors.append(
            error(
                "creation.means_method",
                "method_not_allowed",
                "Méthode refusée dans cette campagne.",
                "Method not allowed in this campaign.",
            )
        )
    if aspect_method not in t.ASPECT_METHODS or means_method not in t.MEANS_METHODS:
        return errors  # field validation reports the bad choice
    record = creation.get("roll")
    problems = roll_errors(record, aspect_method, means_method)
    errors += problems
    if problems:
        return errors
    if not record:
        record = creation_roll(ScriptedRandom([]), aspect_method, means_method)

    # Step 1: the three results placed on the aspects (L524-L525).
    assigned = _int_map(creation.get("aspects_assigned"), t.ASPECTS)
    aspects = _int_map(sheet.get("aspects"), t.ASPECTS)
    if assigned is None:
        errors.append(
            error(
                "creation.aspects_assigned",
                "required",
                "Placez les trois résultats sur les aspects.",
                "Place the three results on the aspects.",
            )
        )
    elif Counter(assigned.values()) != Counter(record["aspect_results"]):
        errors.append(
            error(
                "creation.aspects_assigned",
                "aspects_not_from_roll",
                "Les aspects doivent reprendre les résultats {r}.",
                "The aspects must use the results {r}.",
                r=record["aspect_results"],
            )
        )
    elif aspects is not None:
        errors += aspect_exchange_errors(assigned, aspects)

    # Step 3: means placed from the roll, then up to 5 exchange points (L572-L581).
    placed = _int_map(creation.get("means_assigned"), t.MEANS)
    means = _int_map(sheet.get("means"), t.MEANS)
    if placed is None:
        errors.append(
            error("creation.means_assigned", "required", "Placez les valeurs des moyens.", "Place the means values.")
        )
    elif Counter(placed.values()) != Counter(record["means_values"]):
        errors.append(
            error(
                "creation.means_assigned",
                "means_not_from_roll",
                "Les moyens doivent reprendre les valeurs {r}.",
                "The means must use the values {r}.",
                r=record["means_values"],
            )
        )
    elif means is not None:
        later = as_int(sheet.get("means_exchanges_done"))
        used = means_exchange_points(placed, means)
        if used > t.MEANS_EXCHANGE_POINTS + later:
            errors.append(
                error(
                    "means",
                    "too_many_means_exchanges",
                    "{n} points d'échange de moyens utilisés, 5 au plus.",
                    "{n} means exchange points used, at most 5.",
                    n=used,
                )
            )

    # Step 4: the creation skills (L596-L606).
    levels = sorted((creation_level(s) for s in skills_of(sheet) if creation_level(s) > 0), reverse=True)
    expected = t.SKILL_PACKAGES.get(package)
    if package == "compagnon" and not settings.get("allow_compagnon_trade", False):
        errors.append(
            error(
                "creation.skill_package",
                "package_not_allowed",
                "Le Gardien n'autorise pas cet échange.",
                "The GM does not allow this trade.",
            )
        )
    if package == "custom" and not settings.get("allow_extra_creation_skills", False):
        errors.append(
            error(
                "creation.skill_package",
                "package_not_allowed",
                "Le Gardien n'accorde pas de compétences supplémentaires.",
                "The GM does not grant extra skills.",
            )
        )
    if expected is not None and tuple(levels) != expected:
        errors.append(
            error(
                "skills",
                "skill_package_mismatch",
                "Compétences de création attendues : {e} (actuellement {a}).",
                "Expected creation skills: {e} (currently {a}).",
                e=list(expected),
                a=levels,
            )
        )
    return errors


def creation_pools(sheet: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Exchange points and skill levels used, for the wizard's budget display."""
    creation = as_dict(sheet.get("creation"))
    assigned = _int_map(creation.get("aspects_assigned"), t.ASPECTS)
    aspects = _int_map(sheet.get("aspects"), t.ASPECTS)
    placed = _int_map(creation.get("means_assigned"), t.MEANS)
    means = _int_map(sheet.get("means"), t.MEANS)
    aspect_used = sum(max(0, aspects[c] - assigned[c]) for c in t.ASPECTS) if assigned and aspects else 0
    means_used = means_exchange_points(placed, means) if placed and means else 0
    expected = t.SKILL_PACKAGES.get(creation.get("skill_package", "standard")) or ()
    levels = sum(creation_level(s) for s in skills_of(sheet))
    return {
        "aspect_exchanges": {"total": t.ASPECT_EXCHANGES, "spent": aspect_used},
        "means_exchanges": {"total": t.MEANS_EXCHANGE_POINTS, "spent": means_used},
        "skill_levels": {"total": sum(expected) or levels, "spent": levels},
    }


def validate_sheet(sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
    """Field types, then unique skills per aspect, creation levels, means and creation rules (L517-L621)."""
    errors = validate_fields(sheet, schema.sheet_fields())
    if errors:
        return errors
    seen: set[tuple[str, str]] = set()
    for index, skill in enumerate(skills_of(sheet)):
        key = (str(skill.get("name", "")).strip().casefold(), str(skill.get("aspect")))
        if key in seen:
            errors.append(
                error(
                    f"skills.{index}.name",
                    "duplicate_skill",
                    "Cette compétence existe déjà sous cet aspect.",
                    "This skill already exists under this aspect.",
                )
            )
        seen.add(key)
        nc = skill.get("nc") or 0
        if skill.get("creation_nc") is not None and skill["creation_nc"] > nc:
            errors.append(
                error(
                    f"skills.{index}.creation_nc",
                    "creation_nc_above_nc",
                    "Le NC de création dépasse le NC actuel.",
                    "The creation NC exceeds the current NC.",
                )
            )
        if skill.get("aspect_px_granted") is not None and skill["aspect_px_granted"] > nc:
            errors.append(
                error(
                    f"skills.{index}.aspect_px_granted",
                    "granted_above_nc",
                    "Une compétence ne donne pas plus de PX d'aspect que son NC.",
                    "A skill gives no more aspect PX than its NC.",
                )
            )
    errors += [FieldError(path, code, msg) for path, code, msg in means_errors(sheet.get("means") or {})]
    errors += creation_errors(sheet, settings)
    return errors


def creation_budget(sheet: dict[str, Any], settings: dict[str, Any]) -> Budget:
    """The aspect exchanges and means exchange points spent (L550-L577)."""
    pools = creation_pools(sheet)
    spent = pools["aspect_exchanges"]["spent"] + pools["means_exchanges"]["spent"]
    lines = [
        {
            "label": Msg("Échanges d'aspects", "Aspect exchanges").to_dict(),
            "amount": pools["aspect_exchanges"]["spent"],
            "path": "aspects",
        },
        {
            "label": Msg("Points d'échange de moyens", "Means exchange points").to_dict(),
            "amount": pools["means_exchanges"]["spent"],
            "path": "means",
        },
    ]
    errors = creation_errors(sheet, settings)
    errors += [FieldError(path, code, msg) for path, code, msg in means_errors(sheet.get("means") or {})]
    total = t.ASPECT_EXCHANGES + t.MEANS_EXCHANGE_POINTS
    return Budget("points", total, spent, lines, errors, pools)


__all__ = [
    "Msg",
    "aspect_exchange_errors",
    "creation_budget",
    "creation_errors",
    "creation_pools",
    "creation_roll",
    "means_errors",
    "means_exchange_points",
    "replay_creation_roll",
    "roll_errors",
    "validate_sheet",
]
