"""The campaign's approved ledger, read once and streamed chunk by chunk (the session job's input)."""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from django.db import DatabaseError, connections
from django.db.models import Case, TextField, Value, When
from django.db.models.functions import Cast, NullIf

from characters.models import LedgerEntry

#: A ledger entry's empty ``data`` as the database gives it back as text.
EMPTY_JSON = frozenset({"{}", "", None})

_character = itemgetter(0)

#: The keys of an entry the rules may read (``RuleSystem.progression_entry_keys``), in column order.
ENTRY_KEYS = ("id", "currency", "amount", "kind", "session_id", "data")


class CharacterLedger(NamedTuple):
    """A character's approved entries in order, as the rules read them, each entry's rank (the
    number of its session, ``-inf`` for an entry without session recorded before the run's
    session closed, ``inf`` after: "up to session n" is ``rank <= n``) and the last entry's id."""

    entries: list[dict[str, Any]]
    ranks: list[float]
    last_id: int = 0


class LedgerStream:
    """The campaign's approved ledger, read once: one query in (character, entry) order, streamed
    (a server-side cursor on PostgreSQL, ``fetch`` rows per round trip) and handed out chunk by
    chunk (:meth:`take`, characters in increasing id order). Entries are dicts holding the ``keys``
    the rules read (``RuleSystem.progression_entry_keys``: among ``id``, ``currency``, ``amount``,
    ``kind``, ``session_id``, ``data``), nothing more: the columns they do not read are not fetched.
    ``numbers`` are the campaign's session numbers by id (the ranks of :class:`CharacterLedger`),
    ``closed_at`` the close of the run's session (an entry without session is before or after it)."""

    def __init__(
        self, campaign_id: int, closed_at: Any, numbers: dict[int, int], keys: Iterable[str], fetch: int = 5000
    ) -> None:
        wanted = set(keys)
        self._keys = tuple(k for k in ENTRY_KEYS if k in wanted)
        self._data = "data" in wanted
        columns = ["character_id", "id", "session_id", "pre_close"]
        columns += [k if k != "data" else "data_text" for k in self._keys]
        rows = LedgerEntry.objects.filter(
            character__campaign_id=campaign_id, approval=LedgerEntry.Approval.APPROVED
        ).order_by("character_id", "pk")
        annotations: dict[str, Any] = {
            "pre_close": Case(When(created__lte=closed_at, then=Value(True)), default=Value(False))
        }
        if self._data:
            # ``data`` as text, null when empty (decoded only when not); no per-value converters on the rows.
            annotations["data_text"] = NullIf(Cast("data", TextField()), Value("{}", output_field=TextField()))
        # The compiled query on a chunked (server-side on PostgreSQL, held across the chunks' commits)
        # cursor, read ``fetch`` rows at a time: plain tuples, none of the ORM's per-row work.
        query = rows.annotate(**annotations).values_list(*columns).query
        sql, params = query.get_compiler(using=rows.db).as_sql()
        self._cursor = connections[rows.db].chunked_cursor()
        self._cursor.execute(sql, params)
        self._fetch = fetch
        self._batch: list[tuple[Any, ...]] = []
        self._pos = 0
        self._numbers = numbers

    def take(self, pks: list[int]) -> dict[int, CharacterLedger]:
        """The ledgers of ``pks`` (sorted, after every id already taken)."""
        out: dict[int, CharacterLedger] = {}
        if not pks:
            return out
        last = pks[-1]
        rows: list[tuple[Any, ...]] = []
        while True:  # the rows up to the chunk's last character: batches cut by bisection
            if self._pos >= len(self._batch):
                self._batch, self._pos = self._cursor.fetchmany(self._fetch), 0
                if not self._batch:
                    break
            cut = bisect_right(self._batch, last, lo=self._pos, key=_character)
            rows.extend(self._batch[self._pos : cut])
            self._pos = cut
            if cut < len(self._batch):
                break  # the next chunk's rows start here
        wanted, loads, number = set(pks), json.loads, self._numbers.get
        keys, data, inf = self._keys, self._data, float("inf")
        for cid, group in groupby(rows, _character):
            if cid not in wanted:
                continue  # a character created since the run started
            own = list(group)
            if keys == ("currency", "amount"):  # the usual reading: literal dicts, the fastest
                entries = [{"currency": r[4], "amount": r[5]} for r in own]
            else:
                entries = [dict(zip(keys, r[4:], strict=True)) for r in own]
                if data:
                    for entry in entries:
                        text = entry["data"]
                        entry["data"] = {} if text in EMPTY_JSON else loads(text)
            ranks = [number(r[2], 0) if r[2] is not None else -inf if r[3] else inf for r in own]
            out[cid] = CharacterLedger(entries, ranks, own[-1][1])
        return out

    def close(self) -> None:
        """Close the cursor (also when the run stops half-way)."""
        self._batch = []
        try:
            self._cursor.close()
        except DatabaseError:
            pass  # the database went away: the run's own error (if any) is what the caller sees
