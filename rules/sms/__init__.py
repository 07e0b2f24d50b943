"""Placeholder for the Storytelling Modulary System (SMS) system (being implemented)."""

from __future__ import annotations

from typing import Any

from rules.base import Budget, Field, Msg, RuleSystem


class _System(RuleSystem):
    slug = "sms"
    name = Msg("Storytelling Modulary System (SMS)", "Storytelling Modulary System (SMS)")
    diceless = False

    def sheet_fields(self) -> tuple[Field, ...]:
        return ()

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return {}

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return Budget("points", 0, 0)


SYSTEM = _System()
