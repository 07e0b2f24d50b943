"""The session store (config/sessions.py): Django's database sessions, read by a prepared query."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends import db as stock
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config import sessions

pytestmark = pytest.mark.django_db


def test_the_site_uses_the_prepared_store() -> None:
    assert settings.SESSION_ENGINE == "config.sessions"


def test_a_session_reads_as_with_django_s_store_in_one_prepared_query() -> None:
    """Written by Django's own store, read by ours (sessions opened before keep working), and back."""
    old = stock.SessionStore()
    old["colour"] = "vert"
    old["n"] = 3
    old.create()
    mine = sessions.SessionStore(old.session_key)
    with CaptureQueriesContext(connection) as queries:
        assert dict(mine.items()) == {"colour": "vert", "n": 3}
    assert len(queries.captured_queries) == 1
    assert list(sessions._LOAD._shapes.values()) != [None]  # prepared, not the ORM's path each time
    mine["n"] = 4
    mine.save()
    assert stock.SessionStore(old.session_key)["n"] == 4


def test_an_expired_or_unknown_key_reads_as_a_new_empty_session() -> None:
    store = sessions.SessionStore()
    store["x"] = 1
    store.create()
    Session.objects.filter(session_key=store.session_key).update(
        expire_date=timezone.now() - datetime.timedelta(seconds=1)
    )
    expired = sessions.SessionStore(store.session_key)
    assert dict(expired.items()) == {}
    assert expired.session_key is None  # forgotten: a save makes a new key, never reuses the old one
    expired["y"] = 2
    expired.save()
    assert expired.session_key and expired.session_key != store.session_key
    unknown = sessions.SessionStore("a" * 32)
    assert dict(unknown.items()) == {} and unknown.session_key is None
    assert not sessions.SessionStore("short").exists("short")  # a key too short to be one names no session


def test_a_tampered_row_reads_as_empty() -> None:
    """Session data whose signature does not match (another SECRET_KEY, an edited row): no session."""
    store = sessions.SessionStore()
    store["user"] = "someone"
    store.create()
    Session.objects.filter(session_key=store.session_key).update(session_data="forged:data:here")
    assert dict(sessions.SessionStore(store.session_key).items()) == {}


def test_a_member_s_pages_and_logout_go_through_the_store(client: Any) -> None:
    """Login writes the session, the next page reads it (the member is known), logout deletes it."""
    member = get_user_model().objects.create_user("sessionreader", password="pw-for-the-test-1")
    client.force_login(member)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert Session.objects.filter(session_key=key).exists()
    store = sessions.SessionStore(key)
    assert int(store["_auth_user_id"]) == member.pk
    response = client.get("/profile/")
    assert response.status_code == 200 and response.wsgi_request.user == member
    client.logout()
    assert not Session.objects.filter(session_key=key).exists()
    assert client.get("/profile/").status_code == 302  # anonymous again: sent to log in
