"""Campaign-wide progression steps: the rules decide (``RuleSystem.campaign_progression``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rules.base import RuleSystem

Sheets = dict[int, dict[str, Any]]
Step = Callable[[Sheets, dict[str, Any]], dict[int, dict[str, Any]]]


def campaign_step(system: RuleSystem) -> Step | None:
    """The system's campaign-wide step, or ``None`` when it has none (probed on no sheets)."""
    if system.campaign_progression({}, {}) is None:
        return None

    def step(sheets: Sheets, settings: dict[str, Any]) -> dict[int, dict[str, Any]]:
        return system.campaign_progression(sheets, settings) or {}

    return step
