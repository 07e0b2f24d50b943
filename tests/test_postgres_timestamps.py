"""``timestamptz`` read by psycopg's C loader in a UTC session (config/postgresql/timestamps.py):
the same values, in the same zone object, as Django's own loader."""

from __future__ import annotations

import datetime
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader, register_tzloader
from psycopg import adapt

from config.postgresql import timestamps

pytestmark = pytest.mark.django_db

postgres_only = pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), reason="PostgreSQL's loaders"
)

#: Values of every shape the server prints: microseconds or none, before 1970, far ahead, offsets
#: that are not whole hours, a leap day, the last microsecond of a year.
SAMPLES = (
    "2026-12-05 17:02:24.038958+00",
    "2020-01-01 10:00:00+02",
    "1969-07-20 20:17:40-05:00",
    "1887-03-15 09:10:21.5+00:09:21",
    "9999-12-31 23:59:59.999999+00",
    "2024-02-29 12:00:00+05:45",
    "0001-01-01 00:00:00+00",
)


def _read(cursor: Any) -> list[Any]:
    cursor.execute("SELECT v::timestamptz FROM unnest(%s::text[]) AS v", [list(SAMPLES)])
    return [row[0] for row in cursor.fetchall()]


@postgres_only
def test_a_utc_session_reads_timestamps_in_c_as_django_would() -> None:
    with connection.cursor() as cursor:
        loader = cursor.connection.adapters.get_loader(1184, 0)  # timestamptz, text format
        assert loader is timestamps.UtcLoader
        fast = _read(cursor)
    with connection.cursor() as cursor:
        register_tzloader(datetime.UTC, cursor.cursor)  # Django's own loader, on this cursor only
        assert issubclass(cursor.cursor.adapters.get_loader(1184, 0), BaseTzLoader)
        django_s = _read(cursor)
    assert fast == django_s
    assert all(value.tzinfo is datetime.UTC for value in fast + django_s)
    assert fast[1] == datetime.datetime(2020, 1, 1, 8, 0, tzinfo=datetime.UTC)
    assert fast[3].second == 0 and fast[3].microsecond == 500000  # 09:10:21.5 at +00:09:21


@postgres_only
def test_model_dates_come_back_as_written() -> None:
    from django.contrib.auth import get_user_model

    when = datetime.datetime(1999, 12, 31, 23, 59, 58, 123456, tzinfo=datetime.UTC)
    member = get_user_model().objects.create_user("timekeeper", date_joined=when)
    again = get_user_model().objects.get(pk=member.pk)
    assert again.date_joined == when and again.date_joined.tzinfo is datetime.UTC


def test_other_settings_keep_django_s_loader() -> None:
    """Another zone for the database, or naive datetimes: Django's loader stays (it sets that zone)."""
    template = adapt.AdaptersMap(psycopg.adapters)
    assert timestamps.adapters_for(template, True, datetime.UTC) is not template or timestamps._C_LOADER is None
    assert timestamps.adapters_for(template, False, None) is template
    paris = datetime.timezone(datetime.timedelta(hours=1))
    assert timestamps.adapters_for(template, True, paris) is template
