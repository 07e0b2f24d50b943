"""Queries of a fixed shape, built and compiled once per process and database, run with new values.

Building a queryset and compiling it to SQL costs far more than running it for a query that
reads one row by key (about 3 ms of Python for the member every request loads, with its
``EXISTS``/``COUNT`` annotations, for 0.2 ms in the database). A :class:`PreparedQuery` builds
its queryset twice with two sets of probe values, compiles both, and keeps the SQL when it is
the same text and every parameter that differs is one of the named values (adapted as the
database adapter does: an integer as is, a date and time as the backend stores it); later runs
execute that SQL with the new values and build the rows as Django's ``ModelIterable`` does
(select_related objects, annotations, converters). When the two compilations do not line up
(another parameter changed, the text changed) the query is not prepared: every run builds the
queryset (the ORM's own path, same result), so a shape this cannot follow is never run wrong.

The compiled SQL is kept per database (alias, backend, database name), not per connection object:
under ASGI each request runs in a thread of its own (asgiref's per-request thread-sensitive
context) with a connection object of its own, so a shape kept per connection object was compiled
again on every request. The SQL depends on the backend only; each run binds the kept compiler to
the connection it runs on (its converters read that connection).
"""

from __future__ import annotations

import copy
import datetime
import threading
from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators


class _Shape:
    """The compiled SQL of one connection, where each value goes and how to build the rows."""

    def __init__(
        self, compiler: Any, sql: str, constants: list[Any], slots: list[tuple[int, str, Any]], *, rows: bool = False
    ) -> None:
        self.compiler = compiler
        self.sql = sql
        self.constants = constants
        self.slots = slots
        klass_info = None if rows else compiler.klass_info
        select = compiler.select
        # A ``values_list()`` query (``rows=True``): its rows are returned as tuples, no model built.
        self.model = klass_info["model"] if klass_info else None
        fields = klass_info["select_fields"] if klass_info else [0]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [f[0].target.attname for f in select[self.start : self.end]] if klass_info else []
        self.annotations = dict(compiler.annotation_col_map or {})
        # What turns a fetched row into values and objects, found on the first run (as
        # ``results_iter`` and ``ModelIterable`` find them on every run): the converters of the
        # selected columns (the backend's and the fields'; a converter is given the connection it
        # runs on) and the builders of the select_related objects, per database alias.
        self.fields = [s[0] for s in select[0 : compiler.col_count]]
        self.converters: dict[int, Any] | None = None
        self.composite = compiler.has_composite_fields(self.fields)
        self.populators: dict[str, list[Any]] = {}


class PreparedQuery:
    """``build(**values)`` -> a queryset of model rows whose shape does not depend on the values
    (``rows=True``: a ``values_list()`` queryset, whose rows :meth:`all` returns as tuples).

    ``probes`` gives two distinct values for each name (an ``int``, a ``str`` or an aware ``datetime``), valid
    for the fields they are compared with (a positive id: Django answers nothing, without SQL, for
    a negative one on a positive field) and unlike any constant of the query.
    """

    def __init__(
        self, build: Callable[..., QuerySet[Any]], probes: dict[str, tuple[Any, Any]], *, rows: bool = False
    ) -> None:
        self.build = build
        self.probes = probes
        self.rows = rows
        self._shapes: dict[tuple[str, str, str], _Shape | None] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget the compiled shapes (what ``build`` returns changed)."""
        with self._lock:
            self._shapes = {}

    # -- preparing ---------------------------------------------------------------
    @staticmethod
    def _adapt(connection: Any, value: Any) -> Any:
        if isinstance(value, datetime.datetime):
            return connection.ops.adapt_datetimefield_value(value)
        return value

    def _prepare(self, connection: Any) -> _Shape | None:
        first = self.build(**{name: pair[0] for name, pair in self.probes.items()})
        second = self.build(**{name: pair[1] for name, pair in self.probes.items()})
        if first.db != connection.alias or second.db != connection.alias:
            return None
        compiler = first.query.get_compiler(using=first.db)
        try:
            sql, params = compiler.as_sql()
            sql_b, params_b = second.query.get_compiler(using=second.db).as_sql()
        except EmptyResultSet:  # a probe out of a field's range: nothing to prepare
            return None
        if sql != sql_b or len(params) != len(params_b):
            return None
        wanted = ValuesListIterable if self.rows else ModelIterable
        if first._iterable_class is not wanted or (not self.rows and compiler.klass_info is None):
            return None
        adapted = {
            name: (self._adapt(connection, pair[0]), self._adapt(connection, pair[1]))
            for name, pair in self.probes.items()
        }
        constants: list[Any] = []
        slots: list[tuple[int, str, Any]] = []
        for index, (a, b) in enumerate(zip(params, params_b, strict=True)):
            # The backend may wrap a value in a subclass of its type (psycopg's ``Int4`` for an
            # integer column on PostgreSQL): the run wraps the new value the same way.
            names = [
                n
                for n, (pa, pb) in adapted.items()
                if isinstance(a, type(pa)) and type(a) is type(b) and a == pa and b == pb
            ]
            if len(names) == 1:
                wrap = None if type(a) is type(adapted[names[0]][0]) else type(a)
                slots.append((index, names[0], wrap))
                constants.append(None)
            elif a == b and type(a) is type(b) and not names:
                constants.append(a)
            else:
                return None  # a parameter this cannot place: use the ORM each time
        return _Shape(compiler, sql, constants, slots, rows=self.rows)

    @staticmethod
    def _database(connection: Any) -> tuple[str, str, str]:
        """What the SQL depends on: the database (alias, backend and name), not the connection object."""
        return connection.alias, connection.vendor, str(connection.settings_dict.get("NAME"))

    def _shape(self, connection: Any) -> _Shape | None:
        database = self._database(connection)
        try:
            return self._shapes[database]
        except KeyError:
            pass
        with self._lock:
            if database not in self._shapes:
                self._shapes[database] = self._prepare(connection)
            return self._shapes[database]

    # -- running -----------------------------------------------------------------
    def all(self, using: str = "default", **values: Any) -> list[Any]:
        """The rows for ``values`` (the ORM's path when the shape could not be prepared)."""
        connection = connections[using]
        shape = self._shape(connection)
        if shape is None:
            return list(self.build(**values).using(using))
        params = list(shape.constants)
        for index, name, wrap in shape.slots:
            value = self._adapt(connection, values[name])
            params[index] = wrap(value) if wrap is not None else value
        with connection.cursor() as cursor:
            cursor.execute(shape.sql, params)
            rows = cursor.fetchall()
        if not rows:
            return []
        compiler = shape.compiler
        if compiler.connection is not connection:
            compiler = copy.copy(compiler)  # the kept compiler, reading this connection's converters
            compiler.connection = connection
        if shape.converters is None:
            shape.converters = compiler.get_converters(shape.fields)
        values: Any = rows
        if shape.converters:
            values = compiler.apply_converters(values, shape.converters)
        if shape.composite:
            values = compiler.composite_fields_to_tuples(values, shape.fields)
        if shape.model is None:
            return [tuple(row) for row in values]
        populators = shape.populators.get(using)
        if populators is None:
            populators = shape.populators[using] = get_related_populators(compiler.klass_info, compiler.select, using)
        objects = []
        for row in values:
            obj = shape.model.from_db(using, shape.init_list, row[shape.start : shape.end])
            for populator in populators:
                populator.populate(row, obj)
            for attr, position in shape.annotations.items():
                setattr(obj, attr, row[position])
            objects.append(obj)
        return objects

    def first(self, using: str = "default", **values: Any) -> Any:
        rows = self.all(using, **values)
        return rows[0] if rows else None
