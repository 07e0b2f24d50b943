"""Placeholder for the Ambre (Système V2.1) system (being implemented)."""

from __future__ import annotations

from typing import Any

from rules.base import Budget, Field, Msg, RuleSystem


class _System(RuleSystem):
    slug = "ambre"
    name = Msg("Ambre (Système V2.1)", "Amber (V2.1 system)")
    diceless = True

    def sheet_fields(self) -> tuple[Field, ...]:
        return ()

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return {}

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return Budget("points", 0, 0)


SYSTEM = _System()
