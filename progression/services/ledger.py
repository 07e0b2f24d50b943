"""The campaign's approved ledger, read once and streamed chunk by chunk (the session job's input)."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from django.db.models import Case, TextField, Value, When
from django.db.models.functions import Cast, NullIf

from characters.models import LedgerEntry

#: A ledger entry's empty ``data`` as the database gives it back as text.
EMPTY_JSON = frozenset({"{}", "", None})


class CharacterLedger(NamedTuple):
    """A character's approved entries in order, as the rules read them, and each entry's rank:
    the number of its session, ``-inf`` for an entry without session recorded before the run's
    session closed, ``inf`` after (so "up to session n" is ``rank <= n``)."""

    entries: list[dict[str, Any]]
    ranks: list[float]


class LedgerStream:
    """The campaign's approved ledger, read once: one query in (character, entry) order, streamed
    (a server-side cursor on PostgreSQL, ``fetch`` rows per round trip) and handed out chunk by
    chunk (:meth:`take`, characters in increasing id order). Entries are dicts as the rules read
    them: ``id``, ``currency``, ``amount``, ``kind``, ``data``, ``session_id`` and ``pre_close``
    (recorded before ``closed_at``, computed by SQL); ``numbers`` are the campaign's session
    numbers by id (the ranks of :class:`CharacterLedger`)."""

    def __init__(self, campaign_id: int, closed_at: Any, numbers: dict[int, int], fetch: int = 5000) -> None:
        # ``data`` as text, null when empty (decoded only when not); no per-value converters on the rows.
        rows = (
            LedgerEntry.objects.filter(character__campaign_id=campaign_id, approval=LedgerEntry.Approval.APPROVED)
            .order_by("character_id", "pk")
            .annotate(
                data_text=NullIf(Cast("data", TextField()), Value("{}", output_field=TextField())),
                pre_close=Case(When(created__lte=closed_at, then=Value(True)), default=Value(False)),
            )
            .values_list("character_id", "id", "currency", "amount", "kind", "data_text", "session_id", "pre_close")
        )
        self._rows = rows.iterator(chunk_size=fetch)
        self._next: tuple[Any, ...] | None = None
        self._numbers = numbers

    def take(self, pks: list[int]) -> dict[int, CharacterLedger]:
        """The ledgers of ``pks`` (sorted, after every id already taken)."""
        out: dict[int, CharacterLedger] = {}
        if not pks:
            return out
        wanted, last, loads, number = set(pks), pks[-1], json.loads, self._numbers.get
        inf = float("inf")
        row = self._next
        current, entries, ranks = None, [], []
        while True:
            if row is None:
                row = next(self._rows, None)
                if row is None:
                    break
            cid, eid, currency, amount, kind, text, session_id, pre_close = row
            if cid > last:
                break  # the next chunk's
            row = None
            if cid not in wanted:
                continue  # a character created since the run started
            if cid != current:
                current, entries, ranks = cid, [], []
                out[cid] = CharacterLedger(entries, ranks)
            entries.append(
                {
                    "id": eid,
                    "currency": currency,
                    "amount": amount,
                    "kind": kind,
                    "data": {} if text in EMPTY_JSON else loads(text),
                    "session_id": session_id,
                    "pre_close": bool(pre_close),
                }
            )
            ranks.append(number(session_id, 0) if session_id is not None else -inf if pre_close else inf)
        self._next = row
        return out

    def close(self) -> None:
        """Close the cursor (also when the run stops half-way)."""
        self._rows.close()
