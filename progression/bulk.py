"""Set-based writes of the session job: many rows in one statement.

On PostgreSQL the rows of a statement travel as ONE JSON document that the
server unpacks with ``jsonb_to_recordset``: it is parsed once, with no
parameter per value and no array escaping (Django's ``bulk_create`` sends an
array per column, ``bulk_update`` a ``CASE WHEN`` per row and field: about four
times slower for the job's JSON columns). Elsewhere (SQLite, the embedded
default) Django's ``bulk_create`` and a ``WITH … AS (VALUES …) UPDATE … FROM``
do the same work. Both paths write the same rows (``progression/tests/test_bulk.py``).

Rows are dicts keyed by field names or attnames (``character_id``); every row of
a call has the same keys. Values are what the model field takes (a dict for a
JSON field, a datetime...). Like ``bulk_create``, nothing here calls ``save()``
or sends signals, and an insert sets ``auto_now`` and ``auto_now_add`` fields to
the time of the write; an update writes the values it is given.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.db.models import Model
from django.utils import timezone

#: Rows per statement.
BATCH = 1000


class _Encoder(DjangoJSONEncoder):
    """Datetimes to the microsecond (Django's encoder keeps milliseconds)."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime | datetime.date | datetime.time):
            return o.isoformat()
        return super().default(o)


def _jsonb() -> bool:
    return connection.vendor == "postgresql"


def _fields(model: type[Model], names: list[str]) -> list[Any]:
    return [model._meta.get_field(name) for name in names]


def _record(fields: list[Any]) -> str:
    """``"col" type, …``: the record type ``jsonb_to_recordset`` unpacks into (the columns' own types)."""
    quote = connection.ops.quote_name
    return ", ".join(f"{quote(f.column)} {f.db_type(connection)}" for f in fields)


def _document(rows: list[dict[str, Any]], names: list[str], fields: list[Any]) -> str:
    """The rows as one JSON array of objects keyed by column (JSON fields nested as they are). Rows
    whose keys are the columns already (attnames: ``character_id``) are encoded as they are, not
    copied; the job's values are plain JSON (no cycle to look for)."""
    columns = [f.column for f in fields]
    if columns != names or any(len(row) != len(names) for row in rows):
        rows = [{c: row[n] for c, n in zip(columns, names, strict=True)} for row in rows]
    return json.dumps(rows, cls=_Encoder, check_circular=False)


def insert_rows(
    model: type[Model],
    rows: list[dict[str, Any]],
    *,
    conflict: list[str] | None = None,
    update: list[str] | None = None,
) -> None:
    """``INSERT`` the rows; with ``conflict`` (the unique fields), ``ON CONFLICT (…) DO UPDATE SET``
    the ``update`` fields, or ``DO NOTHING`` when ``update`` is empty."""
    if not rows:
        return
    names = list(rows[0])
    if not _jsonb():
        options: dict[str, Any] = {}
        if conflict is not None:
            options = (
                {"update_conflicts": True, "unique_fields": conflict, "update_fields": update}
                if update
                else {"ignore_conflicts": True}
            )
        model._default_manager.bulk_create([model(**row) for row in rows], batch_size=BATCH, **options)
        return
    # As ``bulk_create`` does: the time of the write in ``auto_now``/``auto_now_add`` fields, here
    # one parameter of the statement (not a copy of every row with the time in it).
    stamped = [
        f for f in model._meta.concrete_fields if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)
    ]
    names = [n for n in names if n not in {f.attname for f in stamped} | {f.name for f in stamped}]
    quote = connection.ops.quote_name
    fields = _fields(model, names)
    columns = ", ".join(quote(f.column) for f in [*fields, *stamped])
    values = ", ".join([*(quote(f.column) for f in fields), *(f"%s::{f.db_type(connection)}" for f in stamped)])
    stamps = [connection.ops.adapt_datetimefield_value(timezone.now())] * len(stamped)
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) "
        f"SELECT {values} FROM jsonb_to_recordset(%s::jsonb) AS x({_record(fields)})"
    )
    if conflict is not None:
        target = ", ".join(quote(f.column) for f in _fields(model, conflict))
        if update:
            sets = ", ".join(f"{quote(f.column)} = EXCLUDED.{quote(f.column)}" for f in _fields(model, update))
            sql += f" ON CONFLICT ({target}) DO UPDATE SET {sets}"
        else:
            sql += f" ON CONFLICT ({target}) DO NOTHING"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            cursor.execute(sql, [*stamps, _document(rows[start : start + BATCH], names, fields)])


def update_rows(model: type[Model], key: str, rows: list[dict[str, Any]], *, only_changed: bool = False) -> None:
    """``UPDATE`` many rows to different values, one statement per :data:`BATCH` rows, matched on
    ``key`` (a unique field, in every row). Unlike Django's ``bulk_update`` (a ``CASE WHEN`` per
    field and row) its cost does not grow with rows × fields. ``only_changed``: on PostgreSQL,
    leave alone the rows that already hold these values (no write at all); elsewhere a no-op."""
    if not rows:
        return
    names = list(rows[0])
    if key not in names:
        raise ValueError(f"every row needs its {key!r}")
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    fields = _fields(model, names)
    key_column = quote(model._meta.get_field(key).column)
    sets = ", ".join(f"{quote(f.column)} = x.{quote(f.column)}" for f, n in zip(fields, names, strict=True) if n != key)
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            part = rows[start : start + BATCH]
            if _jsonb():
                sql = (
                    f"UPDATE {table} SET {sets} FROM jsonb_to_recordset(%s::jsonb) AS x({_record(fields)}) "
                    f"WHERE {table}.{key_column} = x.{key_column}"
                )
                if only_changed:
                    columns = [quote(f.column) for f, n in zip(fields, names, strict=True) if n != key]
                    mine = ", ".join(f"{table}.{c}" for c in columns)
                    theirs = ", ".join(f"x.{c}" for c in columns)
                    sql += f" AND ROW({mine}) IS DISTINCT FROM ROW({theirs})"
                cursor.execute(sql, [_document(part, names, fields)])
                continue
            # SQLite 3.33+: the rows as a VALUES list named by a CTE.
            values = ", ".join(["(" + ", ".join(["%s"] * len(fields)) + ")"] * len(part))
            params = [
                f.get_db_prep_save(row[n], connection) for row in part for f, n in zip(fields, names, strict=True)
            ]
            columns = ", ".join(quote(f.column) for f in fields)
            cursor.execute(
                f"WITH x ({columns}) AS (VALUES {values}) UPDATE {table} SET {sets} FROM x "
                f"WHERE {table}.{key_column} = x.{key_column}",
                params,
            )
