"""Placeholder for the Mythe d'Altaride, Édition Action 2.1 system (being implemented)."""

from __future__ import annotations

from typing import Any

from rules.base import Budget, Field, Msg, RuleSystem


class _System(RuleSystem):
    slug = "altaride"
    name = Msg("Mythe d'Altaride, Édition Action 2.1", "Mythe d'Altaride, Action Edition 2.1")
    diceless = False

    def sheet_fields(self) -> tuple[Field, ...]:
        return ()

    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        return {}

    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        return Budget("points", 0, 0)


SYSTEM = _System()
