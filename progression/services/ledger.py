"""The campaign's approved ledger, read once and streamed chunk by chunk (the session job's input)."""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from django.db import DatabaseError, connections
from django.db.models import Case, Count, Max, Q, Sum, TextField, Value, When
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
    #: How many ledger lines the entries stand for (``None``: one each; totals: their lines' count).
    lines: int | None = None

    @property
    def count(self) -> int:
        """The number of ledger lines read."""
        return len(self.entries) if self.lines is None else self.lines


class LedgerStream:
    """The campaign's approved ledger, read once: one query in (character, entry) order, streamed
    (a server-side cursor on PostgreSQL, ``fetch`` rows per round trip) and handed out chunk by
    chunk (:meth:`take`, characters in increasing id order). Entries are dicts holding the ``keys``
    the rules read (``RuleSystem.progression_entry_keys``: among ``id``, ``currency``, ``amount``,
    ``kind``, ``session_id``, ``data``), nothing more: the columns they do not read are not fetched.
    ``numbers`` are the campaign's session numbers by id (the ranks of :class:`CharacterLedger`),
    ``closed_at`` the close of the run's session (an entry without session is before or after it).

    ``totals`` (the system's ``progression_reads_totals``: its progression reads only the sums of
    each currency's gains and spendings): the database adds the lines up, and a character's entries
    are one per currency, sign, session and side of the close, each the sum of its lines (``amount``)
    with the rank of its session: the same results from a few rows instead of every line."""

    def __init__(
        self,
        campaign_id: int,
        closed_at: Any,
        numbers: dict[int, int],
        keys: Iterable[str],
        fetch: int = 5000,
        *,
        totals: bool = False,
        number: int = 0,
    ) -> None:
        wanted = set(keys)
        self._totals = totals
        self._keys = ("currency", "amount") if totals else tuple(k for k in ENTRY_KEYS if k in wanted)
        self._data = "data" in wanted and not totals
        rows = LedgerEntry.objects.filter(character__campaign_id=campaign_id, approval=LedgerEntry.Approval.APPROVED)
        pre_close = Case(When(created__lte=closed_at, then=Value(True)), default=Value(False))
        if totals:
            # A few rows per character, read at once (a plain cursor: the database may also use its
            # parallel workers, which it never does for a server-side cursor) and sorted here.
            query = _totals_query(rows, closed_at, numbers, number)
            sql, params = query.query.get_compiler(using=query.db).as_sql()
            with connections[query.db].cursor() as cursor:
                cursor.execute(sql, params)
                self._rows = sorted(cursor.fetchall(), key=_character)
            self._cursor = None
            self._batch, self._pos, self._numbers, self._number = [], 0, numbers, number
            return
        columns = ["character_id", "id", "session_id", "pre_close"]
        columns += [k if k != "data" else "data_text" for k in self._keys]
        rows = rows.order_by("character_id", "pk")
        annotations: dict[str, Any] = {"pre_close": pre_close}
        if self._data:
            # ``data`` as text, null when empty (decoded only when not); no per-value converters on the rows.
            annotations["data_text"] = NullIf(Cast("data", TextField()), Value("{}", output_field=TextField()))
        # The compiled query on a chunked (server-side on PostgreSQL, held across the chunks' commits)
        # cursor, read ``fetch`` rows at a time: plain tuples, none of the ORM's per-row work.
        self._open(rows.annotate(**annotations).values_list(*columns), fetch, numbers)

    def _open(self, rows: Any, fetch: int, numbers: dict[int, int]) -> None:
        query = rows.query
        sql, params = query.get_compiler(using=rows.db).as_sql()
        self._cursor: Any = connections[rows.db].chunked_cursor()
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
        if self._totals:
            cut = bisect_right(self._rows, last, lo=self._pos, key=_character)
            rows, self._pos = self._rows[self._pos : cut], cut
            wanted = set(pks)
            return {
                cid: _totals_ledger(list(group), self._number)
                for cid, group in groupby(rows, _character)
                if cid in wanted
            }
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
            ranks = [number(r[2], 0) if r[2] is not None else -inf if r[3] else inf for r in own]
            if keys == ("currency", "amount"):  # the usual reading: literal dicts, the fastest
                entries = [{"currency": r[4], "amount": r[5]} for r in own]
            else:
                entries = [dict(zip(keys, r[4:], strict=True)) for r in own]
                if data:
                    for entry in entries:
                        text = entry["data"]
                        entry["data"] = {} if text in EMPTY_JSON else loads(text)
            out[cid] = CharacterLedger(entries, ranks, own[-1][1])
        return out

    def close(self) -> None:
        """Close the cursor (also when the run stops half-way)."""
        self._batch = []
        if self._cursor is None:
            return
        try:
            self._cursor.close()
        except DatabaseError:
            pass  # the database went away: the run's own error (if any) is what the caller sees


def _totals_query(rows: Any, closed_at: Any, numbers: dict[int, int], number: int) -> Any:
    """Per (character, currency): the sums of gains and of spendings of the lines ranked before the
    run's session (an earlier session, or no session and written before its close), at it, and
    after it; the number of lines and the last id. Plain columns as group keys, the classes as
    filtered sums: the database hashes the lines as the SQL limit of bench/bench_session_job.py
    does (a session or a CASE among the keys made it sort every line first, three times slower)."""
    known = list(numbers)
    # A line's rank is its session's number (0 for a session not of this campaign), else -inf/inf.
    sides = {
        "lt": [sid for sid, n in numbers.items() if n < number],
        "eq": [sid for sid, n in numbers.items() if n == number],
        "gt": [sid for sid, n in numbers.items() if n > number],
    }
    unknown = Q(session__isnull=False) & ~Q(session_id__in=known)
    classes = {
        "lt": Q(session_id__in=sides["lt"]) | Q(session__isnull=True, created__lte=closed_at),
        "eq": Q(session_id__in=sides["eq"]),
        "gt": Q(session_id__in=sides["gt"]) | Q(session__isnull=True, created__gt=closed_at),
    }
    side_of_unknown = "lt" if 0 < number else "eq" if number == 0 else "gt"
    classes[side_of_unknown] |= unknown
    sums = {}
    for side, where in classes.items():
        sums[f"gain_{side}"] = Sum("amount", filter=where & Q(amount__gt=0))
        sums[f"spent_{side}"] = Sum("amount", filter=where & Q(amount__lt=0))
    return (
        rows.values("character_id", "currency")
        .annotate(**sums, lines=Count("id"), last=Max("id"))
        .order_by()
        .values_list("character_id", "last", "currency", *sums, "lines")
    )


def _totals_ledger(rows: list[tuple[Any, ...]], number: int) -> CharacterLedger:
    """A character's ledger as sums (:class:`LedgerStream`, ``totals``): per currency, its gains and
    its spendings before the run's session (rank ``-inf``), at it (its number) and after (``inf``),
    each one entry: the ranks compare with the session's number as the lines' own would."""
    entries: list[dict[str, Any]] = []
    ranks: list[float] = []
    inf = float("inf")
    for row in rows:
        currency = row[2]
        for rank, gained, spent in ((-inf, row[3], row[4]), (number, row[5], row[6]), (inf, row[7], row[8])):
            for amount in (gained, spent):
                if amount:
                    entries.append({"currency": currency, "amount": int(amount)})
                    ranks.append(rank)
    return CharacterLedger(entries, ranks, max(r[1] for r in rows), sum(r[9] for r in rows))
