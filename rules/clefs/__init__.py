"""Placeholder for the Les Clefs de l'Aube system (being implemented)."""

from __future__ import annotations

from typing import Any

from rules.base import Budget, Field, Msg, RuleSystem


class _System(RuleSystem):
    slug = "clefs-de-l-aube"
    name = Msg("Les Clefs de l'Aube", "Les Clefs de l'Aube")
    diceless = False

    def sheet_fields(self) -> tuple[Field, ...]:
        return ()

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return {}

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return Budget("points", 0, 0)


SYSTEM = _System()
