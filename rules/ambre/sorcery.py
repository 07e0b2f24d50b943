"""Sorcery keys and energy costs (L436–L449).

Formulas (spec §4.11) that reproduce the seed's worked examples:

* minor keys = floor((Mental + Volonté) / 4) (L440, L447: 50/4 -> 12).
* Shadow spell (no key): energy = spell cost, 2 turns (L442).
* Simple "real" spell: 1 key, energy = spell cost, 4 turns; impossible in
  Amber itself (L442).
* Prepared / modified spell, "clé majeure" (L443), m = modifications other
  than casting instantly: keys = (1 + m), doubled when cast instantly;
  energy = cost + 10 x m, + 10 when cast instantly (L447: cost 10, m = 1,
  instant -> 4 keys, 30 energy).
* Unprepared instant spell (L444): one minor key and double energy, then
  both doubled for each further modification, "instant" included:
  keys = 2^k, energy = 2 x cost x 2^k (L448: k = 2 -> 4 keys, 80 energy).
* Magic-rich shadow or a source of energy (L445, L449): casting instantly is
  free (it is not counted). Known inconsistency: L449 gives "30 points et 1
  clé" for the prepared case where this formula gives 20 energy and 2 keys
  (its unprepared figure, 40 energy / 2 keys, matches). The GM may override
  keys and energy per cast (``keys_override``/``energy_override``).
"""

from __future__ import annotations

from typing import Any

from rules.ambre import tables as T
from rules.base import FieldError, error


def spell_cost(
    base_cost: int,
    modifications: int = 0,
    *,
    real: bool = True,
    prepared: bool = False,
    instant: bool = False,
    magic_rich: bool = False,
    in_amber: bool = False,
) -> dict[str, Any]:
    """Keys, energy and casting time of one spell. Raises ValueError if impossible."""
    if base_cost < 0 or modifications < 0:
        raise ValueError("negative spell cost or modifications")
    if not real:
        if modifications:
            raise ValueError("shadow spells take no key modifications (L442)")
        return {"keys": 0, "energy": base_cost, "turns": T.SHADOW_SPELL_TURNS, "formula": "shadow"}
    if in_amber:
        raise ValueError("no real spell in Amber itself (L442)")
    instant_paid = instant and not magic_rich
    if instant and not prepared:
        k = modifications + (1 if instant_paid else 0)
        return {"keys": 2**k, "energy": 2 * base_cost * 2**k, "turns": 0, "formula": "unprepared"}
    if not modifications and not instant:
        return {"keys": 1, "energy": base_cost, "turns": T.REAL_SPELL_TURNS, "formula": "simple"}
    keys = (1 + modifications) * (2 if instant_paid else 1)
    energy = base_cost + T.ENERGY_PER_MODIFIED_KEY * modifications + (T.ENERGY_PER_MODIFIED_KEY if instant_paid else 0)
    return {"keys": keys, "energy": energy, "turns": 0 if instant else T.REAL_SPELL_TURNS, "formula": "major_key"}


def spell_request_errors(request: dict[str, Any], prefix: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("base_cost", "modifications"):
        value = request.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            errors.append(
                error(f"{prefix}{key}", "invalid_int", "Entier positif attendu.", "Expected a whole number ≥ 0.")
            )
    if not errors:
        try:
            spell_cost(
                request.get("base_cost", 0),
                request.get("modifications", 0),
                real=request.get("real", True) is not False,
                prepared=bool(request.get("prepared")),
                instant=bool(request.get("instant")),
                magic_rich=bool(request.get("magic_rich")),
                in_amber=bool(request.get("in_amber")),
            )
        except ValueError as exc:
            code = "spell_in_amber" if "Amber" in str(exc) else "spell_impossible"
            fr = (
                "Aucun sort « réel » en Ambre même (L442)."
                if code == "spell_in_amber"
                else "Un sort d'Ombre ne prend pas de modification par clé (L442)."
            )
            errors.append(error(f"{prefix}real", code, fr, str(exc)))
    return errors
