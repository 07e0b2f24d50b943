"""One read model per resource: what a user may see of a character and of its ledger.

The sheet page, its htmx fragments, the API and the live channel all start
from :func:`character_read` and :func:`ledger_read`, so each visibility rule
is written once, here:

* public part (name, portrait, public description, status, system, the
  plug-in's public parts such as Ambre's public ladder positions): whoever
  may see the character (campaign members, everyone for a public campaign;
  NPCs: the GMs only);
* full sheet (stored sheet, derived values, budget, rule errors, private
  background, GM comment, version, ledger, the plug-in's ``full_only`` parts
  such as Ambre's secret ranks): the owner, the GM and co-GMs;
* whatever a user may not see at all answers 404 (:func:`readable_character`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db.models import QuerySet

from campaigns.access import is_gm
from campaigns.models import Campaign
from characters import access, plugins
from characters.ledger import balances as ledger_balances
from characters.models import ChangeRequest, Character, LedgerEntry
from characters.plugins import SheetPart
from characters.services.evaluation import Evaluation, evaluate_character
from characters.sheetform import msg
from config.prepared import PreparedQuery


def can_see_full(user: Any, character: Character) -> bool:
    """The one rule for the full sheet and the ledger: the owner, the GM and co-GMs (NPCs: GMs)."""
    return access.can_see_full_sheet(user, character)


def visible_characters(user: Any, campaign: Campaign) -> QuerySet[Character]:
    """A campaign's characters ``user`` may list (the caller checked the campaign): player
    characters for whoever sees the campaign, NPCs for its GMs only (roster page and API)."""
    queryset = campaign.characters.select_related("owner__profile", "campaign").order_by("name", "id")
    if not is_gm(user, campaign):
        queryset = queryset.filter(is_npc=False)
    return queryset


def readable_character(user: Any, character_id: int | str, *, full: bool = False) -> Character:
    """The character if ``user`` may see it (``full``: its full sheet), else 404."""
    return access.get_character_for_user(user, character_id, write=full)


# ---------------------------------------------------------------------------
# The ledger
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BalanceRow:
    currency: str
    label: str
    amount: int


@dataclass(frozen=True)
class EntryRow:
    id: int
    created: datetime
    currency: str
    currency_label: str
    amount: int
    kind: str
    kind_label: str
    note: str
    approval: str


@dataclass(frozen=True)
class LedgerRead:
    """Balances (the system's currencies first) and the latest entries, newest first."""

    balances: dict[str, int]
    rows: list[BalanceRow]
    entries: list[EntryRow]

    def as_json(self) -> dict[str, Any]:
        return {
            "balances": [{"currency": r.currency, "label": r.label, "amount": r.amount} for r in self.rows],
            "entries": [
                {
                    "id": e.id,
                    "created": e.created.isoformat().replace("+00:00", "Z"),
                    "currency": e.currency,
                    "amount": e.amount,
                    "kind": e.kind,
                    "note": e.note,
                    "approval": e.approval,
                }
                for e in self.entries
            ],
        }


def currency_labels(character: Character) -> dict[str, str]:
    """The names of the character's system's currencies, in the reader's language."""
    return {code: msg(label) for code, label in character.rule_system.currency_labels().items()}


def entry_note(entry: LedgerEntry) -> str:
    """The note in the reader's language when the writer stored both (``data.note_i18n``)."""
    data = entry.data if isinstance(entry.data, dict) else {}
    localized = data.get("note_i18n")
    return msg(localized) if isinstance(localized, dict) and localized else entry.note


def ledger_read(user: Any, character: Character, *, limit: int = 50) -> LedgerRead | None:
    """What ``user`` sees of the character's ledger: everything (owner, GMs) or nothing (``None``)."""
    if not can_see_full(user, character):
        return None
    balances = ledger_balances(character)
    labels = currency_labels(character)
    rows = [
        BalanceRow(code, labels.get(code, code), amount)
        for code, amount in balances.items()
        if amount or code in character.rule_system.currencies
    ]
    kinds = dict(LedgerEntry.Kind.choices)
    entries = [
        EntryRow(
            id=e.pk,
            created=e.created,
            currency=e.currency,
            currency_label=labels.get(e.currency, e.currency),
            amount=e.amount,
            kind=e.kind,
            kind_label=str(kinds.get(e.kind, e.kind)),
            note=entry_note(e),
            approval=e.approval,
        )
        for e in _latest_entries(limit).all(character_id=character.pk)
    ]
    return LedgerRead(balances, rows, entries)


_CHARACTER_PROBES = {"character_id": (930_000_001, 940_000_002)}
#: The one value the per-character queries below take (each compiled once per process).


def latest_change_requests(character: Character, limit: int = 20) -> list[ChangeRequest]:
    """The character's latest change requests with their authors, newest first (one query)."""
    return _latest_changes(limit).all(character_id=character.pk)


@lru_cache(maxsize=8)
def _latest_changes(limit: int) -> PreparedQuery:
    return PreparedQuery(
        lambda character_id: ChangeRequest.objects.filter(character_id=character_id).select_related("author")[:limit],
        _CHARACTER_PROBES,
    )


@lru_cache(maxsize=8)
def _latest_entries(limit: int) -> PreparedQuery:
    return PreparedQuery(
        lambda character_id: LedgerEntry.objects.filter(character_id=character_id).order_by("-id")[:limit],
        _CHARACTER_PROBES,
    )


# ---------------------------------------------------------------------------
# The character
# ---------------------------------------------------------------------------
@dataclass
class CharacterRead:
    """What one user may see of one character. ``full`` fields are ``None`` for the public part."""

    character: Character
    full: bool
    is_gm: bool
    is_owner: bool
    system_name: str
    parts: list[SheetPart] = field(default_factory=list)
    sheet: dict[str, Any] | None = None
    evaluation: Evaluation | None = None
    ledger: LedgerRead | None = None

    @property
    def public_parts(self) -> list[SheetPart]:
        return [p for p in self.parts if not p.full_only]

    @property
    def private_parts(self) -> list[SheetPart]:
        return [p for p in self.parts if p.full_only]

    def as_json(self, lang: str) -> dict[str, Any]:
        """The JSON shape of :class:`api.serializers.CharacterSerializer` (owner and portrait are the API's)."""
        c = self.character
        result = self.evaluation
        parts = {p.key: p.data for p in self.parts}
        return {
            "id": c.pk,
            "campaign": c.campaign_id,
            "is_npc": c.is_npc,
            "name": c.name,
            "public_description": c.public_description,
            "system": c.system,
            "system_name": self.system_name,
            "status": c.status,
            "public_ranks": parts.get("public_ranks", []),
            "parts": parts,
            "full": self.full,
            "version": c.version if self.full else None,
            "schema_version": c.rule_system.schema_version if self.full else None,
            "sheet": self.sheet if self.full else None,
            "derived": result.derived if result else None,
            "budget": result.budget.to_dict(lang) if result and result.budget else None,
            "errors": [e.to_dict(lang) for e in result.all_errors()] if result else None,
            "valid": result.valid if result else None,
            "private_background": c.private_background if self.full else None,
            "gm_comment": c.gm_comment if self.full else None,
            "balances": dict(self.ledger.balances) if self.ledger else None,
            "created": c.created.isoformat().replace("+00:00", "Z"),
            "updated": c.updated.isoformat().replace("+00:00", "Z"),
        }


def character_read(user: Any, character: Character, *, ledger: bool = True) -> CharacterRead:
    """What ``user`` may see of ``character`` (the caller already checked it may see it at all)."""
    full = can_see_full(user, character)
    read = CharacterRead(
        character=character,
        full=full,
        is_gm=is_gm(user, character.campaign),
        is_owner=access.is_owner(user, character),
        system_name=msg(character.rule_system.name),
    )
    derived: dict[str, Any] = {}
    if full:
        read.sheet = character.current_sheet()
        read.evaluation = evaluate_character(character, read.sheet)
        derived = read.evaluation.derived or {}
        read.ledger = ledger_read(user, character) if ledger else None
    # A plug-in's full-only parts never reach the public part, whatever the plug-in returned.
    read.parts = [p for p in plugins.sheet_parts(character, derived) if full or not p.full_only]
    return read
