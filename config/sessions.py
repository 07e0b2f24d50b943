"""The database session store, reading a member's session with a query compiled once per process.

Every page of a logged-in member starts by reading their session row. Django's store builds and
compiles ``Session.objects.get(session_key=…, expire_date__gt=now)`` on each request: about a
tenth of a thread page's Python time (py-spy, 2026-12-05) for a query the database answers in a
tenth of a millisecond. This store runs the same query through :class:`config.prepared.PreparedQuery`
(only the key and the time change); everything else (saving, rotating the key, expiry, clearing)
is Django's ``db`` store unchanged, and so are the rows: sessions opened before keep working.

``SESSION_ENGINE = "config.sessions"``.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.core.exceptions import SuspiciousOperation
from django.db import router
from django.utils import timezone

from config.prepared import PreparedQuery


def _live_session(session_key: str, now: datetime.datetime) -> Any:
    return Session.objects.filter(session_key=session_key, expire_date__gt=now)


_PROBES = {
    # Two keys no session can have (a key is 32 characters of [a-z0-9]) and two times.
    "session_key": ("tablee-probe-session-key-one", "tablee-probe-session-key-two"),
    "now": (
        datetime.datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=datetime.UTC),
        datetime.datetime(2002, 3, 4, 5, 6, 7, 8, tzinfo=datetime.UTC),
    ),
}
_LOAD = PreparedQuery(_live_session, _PROBES)


class SessionStore(db.SessionStore):
    """Django's database store; the session row is read by a query compiled once per process."""

    def _get_session_from_db(self) -> Session | None:
        """The unexpired row of this key, or ``None`` (and the key is forgotten), as Django's store."""
        try:
            session = _LOAD.first(
                using=router.db_for_read(Session) or "default", session_key=self.session_key, now=timezone.now()
            )
        except SuspiciousOperation as error:
            logging.getLogger(f"django.security.{error.__class__.__name__}").warning(str(error))
            session = None
        if session is None:
            self._session_key = None
        return session
