"""Sheets checked and computed by their system (read-only, through the rules engine)."""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import rules
from campaigns.models import Campaign
from characters.models import Character, SheetVersion
from characters.services.errors import _error
from characters.sheetform import type_errors
from config.prepared import PreparedQuery
from rules.base import Budget, FieldError


# ---------------------------------------------------------------------------
# Evaluation through the rules engine (read-only)
# ---------------------------------------------------------------------------
@dataclass
class Evaluation:
    """A sheet checked and computed by its system."""

    errors: list[FieldError] = field(default_factory=list)
    budget: Budget | None = None
    derived: dict[str, Any] | None = None

    @property
    def valid(self) -> bool:
        return not self.errors and (self.budget is None or self.budget.valid)

    def all_errors(self) -> list[FieldError]:
        """Validation errors plus budget errors not already reported."""
        seen = {(e.path, e.code) for e in self.errors}
        extra = [e for e in (self.budget.errors if self.budget else []) if (e.path, e.code) not in seen]
        return self.errors + extra


def system_settings(campaign: Campaign) -> dict[str, Any]:
    return dict(campaign.system_settings or {})


def evaluate(
    system: rules.base.RuleSystem,
    sheet: dict[str, Any],
    settings: dict[str, Any] | None,
    rolls: dict[str, Any] | None = None,
    *,
    npc: bool = False,
) -> Evaluation:
    """Validate (against the server's stored ``rolls`` too), budget and derive;
    a sheet with type errors is only validated.

    An NPC follows the system's NPC rules (``validate_npc``) and has no creation budget.
    """
    result = Evaluation()
    try:
        result.errors = list(system.validate_npc(sheet, settings) if npc else system.validate_sheet(sheet, settings))
        if not type_errors(result.errors):
            result.errors += system.verify_server_rolls(sheet, rolls or {})
    except Exception:
        result.errors = [_error("", "engine_error", "Feuille illisible par les règles.", "The rules cannot read it.")]
        return result
    if type_errors(result.errors):
        return result
    try:
        result.budget = None if npc else system.creation_budget(sheet, settings)
    except Exception:
        result.budget = None
    try:
        result.derived = system.derive(sheet, settings)
    except Exception:
        result.derived = None
    return result


def approval_sheet(character: Character) -> dict[str, Any] | None:
    """The sheet as the GM approved it (the first approved version), migrated to the current schema."""
    version = character.versions.filter(status=Character.Status.APPROVED).order_by("version").first()
    if version is None:
        return None
    try:
        return character.rule_system.migrate_sheet(copy.deepcopy(version.sheet), version.schema_version)
    except Exception:
        return None


#: The creation budget of approved sheets, per version: an approved version is never changed (append-only
#: history), so its budget is a function of that row, the system and the campaign's settings (see the key).
_APPROVED_BUDGETS: OrderedDict[tuple[Any, ...], Budget | None] = OrderedDict()
_MAX_APPROVED_BUDGETS = 2000
_approved_lock = threading.Lock()


def shown_budget(character: Character, result: Evaluation) -> tuple[Budget | None, bool]:
    """The budget a sheet page shows, and whether it is frozen.

    Before approval: the creation budget of the current sheet. Once approved,
    creation is over: the creation budget is the one of the approved sheet
    (frozen), and what was spent later comes from the ledger (purchases), not
    from the creation budget of today's sheet, which would count raises paid
    with experience as creation spending (Altaride "Talents : 4160 / 4000").
    The approved sheet's budget is computed once per process and version.
    """
    if character.status != Character.Status.APPROVED:
        return result.budget, False
    # The version's identity only: its sheet (a JSON document) is read when its budget is not kept yet.
    # Its creation time is part of the key: an id can be given again after a rolled-back transaction
    # (SQLite), never with the same time.
    first_version = _FIRST_APPROVED.first(character_id=character.pk)
    if first_version is None:
        return result.budget, False
    version_pk, created = first_version
    key = (version_pk, created, character.system, character.is_npc, repr(system_settings(character.campaign)))
    with _approved_lock:
        found = key in _APPROVED_BUDGETS
        budget = _APPROVED_BUDGETS.get(key)
    if not found:
        version = character.versions.get(pk=version_pk)
        try:
            approved = character.rule_system.migrate_sheet(copy.deepcopy(version.sheet), version.schema_version)
        except Exception:
            return result.budget, False
        budget = evaluate_character(character, approved).budget
        with _approved_lock:
            _APPROVED_BUDGETS[key] = budget
            if len(_APPROVED_BUDGETS) > _MAX_APPROVED_BUDGETS:
                _APPROVED_BUDGETS.popitem(last=False)
    return copy.deepcopy(budget), True


def _first_approved_version(character_id: int) -> Any:
    return (
        SheetVersion.objects.filter(character_id=character_id, status=Character.Status.APPROVED)
        .order_by("version")
        .values_list("pk", "created")[:1]
    )


#: The first approved version of a character (its id and time), compiled once per process.
_FIRST_APPROVED = PreparedQuery(_first_approved_version, {"character_id": (950_000_001, 960_000_002)}, rows=True)


def evaluate_character(character: Character, sheet: dict[str, Any] | None = None) -> Evaluation:
    return evaluate(
        character.rule_system,
        character.current_sheet() if sheet is None else sheet,
        system_settings(character.campaign),
        character.server_rolls(),
        npc=character.is_npc,
    )
