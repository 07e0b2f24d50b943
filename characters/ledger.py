"""The ledger of a system's currencies (experience, karma...): append entries, read balances.

Entries are never edited or deleted (:class:`characters.models.LedgerEntry`
refuses it). Balances are always the sum of the approved entries. Call
:func:`append_entry` inside the service's transaction.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Sum

from characters.models import Character, LedgerEntry
from config.prepared import PreparedQuery


def append_entry(
    character: Character,
    currency: str,
    amount: int,
    kind: str,
    *,
    session: Any = None,
    created_by: Any = None,
    note: str = "",
    data: dict[str, Any] | None = None,
    key: str | None = None,
    approval: str = LedgerEntry.Approval.APPROVED,
) -> LedgerEntry:
    """Append one entry. With ``key``, a second call with the same key
    returns the existing entry instead of writing twice (idempotent jobs).

    ``currency`` must be one of the character's system's (``RuleSystem.currencies``)."""
    if currency not in character.rule_system.currencies:
        raise ValueError(f"unknown currency {currency!r} for {character.system!r}")
    if kind not in LedgerEntry.Kind.values:
        raise ValueError(f"unknown ledger kind {kind!r}")
    if key is not None:
        existing = LedgerEntry.objects.filter(key=key).first()
        if existing is not None:
            return existing
    try:
        with transaction.atomic():
            return LedgerEntry.objects.create(
                character=character,
                currency=currency,
                amount=int(amount),
                kind=kind,
                session=session,
                created_by=created_by,
                note=note[:300],
                data=data or {},
                key=key,
                approval=approval,
            )
    except IntegrityError:
        if key is not None:
            return LedgerEntry.objects.get(key=key)
        raise


def balances(character: Character) -> dict[str, int]:
    """Current balances per currency: the sum of approved entries (every currency of the system, even at 0)."""
    result = {currency: 0 for currency in character.rule_system.currencies}
    result.update({currency: int(total or 0) for currency, total in _TOTALS.all(character_id=character.pk)})
    return result


def _totals(character_id: int) -> Any:
    # ``order_by()``: the model's ordering (by character, then campaign) only added two joins.
    return (
        LedgerEntry.objects.filter(character_id=character_id, approval=LedgerEntry.Approval.APPROVED)
        .order_by()
        .values_list("currency")
        .annotate(total=Sum("amount"))
    )


#: Each currency's sum of approved entries of one character, compiled once per process (config.prepared).
_TOTALS = PreparedQuery(_totals, {"character_id": (930_000_001, 940_000_002)}, rows=True)
