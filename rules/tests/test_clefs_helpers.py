"""Shared builders for the Clefs de l'Aube tests (no tests here; named test_clefs_* to stay in the owned paths)."""

from __future__ import annotations

from typing import Any

from rules.base import ScriptedRandom
from rules.clefs import SYSTEM, creation_roll

#: Marie-Pierre's dice (L542-L547, L586-L589): aspects (2,2), (2,1); means 2d6 sums 4, 9, 12.
MARIE_PIERRE_DRAWS = [2, 2, 2, 1, 1, 3, 4, 5, 6, 6]


def marie_pierre_roll() -> dict[str, Any]:
    return creation_roll(ScriptedRandom(MARIE_PIERRE_DRAWS), "ROLL_STANDARD", "ROLL")


def marie_pierre_sheet() -> dict[str, Any]:
    """Marie-Pierre's Enchanter after every creation step (TV-S01..S04)."""
    return {
        "creation": {
            "aspect_method": "ROLL_STANDARD",
            "means_method": "ROLL",
            "roll": marie_pierre_roll(),
            "aspects_assigned": {"PH": 6, "ME": 17, "MY": 7},
            "means_assigned": {"EX": -5, "PE": -3, "MA": 3, "PR": 2, "PU": 5, "RE": -2},
            "skill_package": "standard",
        },
        "aspects": {"PH": 5, "ME": 16, "MY": 9},
        "means": {"PU": 3, "RE": -1, "MA": 4, "PR": 2, "EX": -5, "PE": -3},
        "skills": [
            {"name": "Enchantement", "aspect": "ME", "default_means": "EX", "nc": 10},
            {"name": "Alchimie", "aspect": "ME", "default_means": "PR", "nc": 10},
            {"name": "Méditation", "aspect": "MY", "default_means": "RE", "nc": 5},
            {"name": "Dague", "aspect": "PH", "default_means": "PR", "nc": 5},
            {"name": "Survie", "aspect": "PH", "default_means": "PE", "nc": 5},
        ],
        "means_exchanges_done": 0,
        "conditions": [],
        "notes": "",
    }


def act(draws: list[int], settings: dict[str, Any] | None = None, **request: Any) -> dict[str, Any]:
    """Resolve an ``action`` with scripted draws; asserts every draw was used."""
    rng = ScriptedRandom(draws)
    result = SYSTEM.resolve({"kind": "action", **request}, rng, settings)
    assert rng.remaining == 0, "not every scripted draw was used"
    assert result.draws == draws
    return result.to_dict()
