"""The audit log page: moderators browse and filter it; nobody else sees it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from moderation import services
from moderation.models import AuditLog
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged(table: Any, other_table: Any, player_post: Any) -> dict[str, AuditLog]:
    """Three real actions: a post hidden and a thread locked in ``table``, a user suspended."""
    services.hide_post(table.gm, player_post, reason="Hors sujet")
    services.lock_thread(table.moderator, player_post.thread, reason="Dispute")
    services.suspend_user(table.moderator, other_table.player, reason="Insultes", days=3)
    return {entry.action: entry for entry in AuditLog.objects.all()}


def _rows(client: Any, **params: str) -> str:
    response = client.get(reverse("moderation:log"), params)
    assert response.status_code == 200
    return response.content.decode()


def test_it_records_who_what_and_why_for_each_action(table: Any, logged: dict[str, AuditLog]) -> None:
    assert set(logged) == {"post_hidden", "thread_locked", "user_suspended"}
    assert logged["post_hidden"].actor == table.gm and logged["post_hidden"].reason == "Hors sujet"
    assert logged["thread_locked"].actor_name == table.moderator.username
    assert logged["user_suspended"].data["permanent"] is False
    page = _rows(client_for(table.moderator))
    for reason in ("Hors sujet", "Dispute", "Insultes"):
        assert reason in page


def test_it_filters_by_action_actor_campaign_and_target(table: Any, other_table: Any, logged: Any) -> None:
    client = client_for(table.moderator)
    page = _rows(client, action="thread_locked")
    assert "Dispute" in page and "Hors sujet" not in page and "Insultes" not in page
    page = _rows(client, actor=table.gm.username.upper())
    assert "Hors sujet" in page and "Dispute" not in page
    page = _rows(client, campaign=table.campaign.slug)
    assert "Hors sujet" in page and "Dispute" in page and "Insultes" not in page
    page = _rows(client, target=other_table.player.username)
    assert "Insultes" in page and "Hors sujet" not in page


def test_it_filters_by_dates(table: Any, logged: Any) -> None:
    client = client_for(table.moderator)
    today = timezone.localdate()
    assert "Dispute" in _rows(client, since=today.isoformat(), until=today.isoformat())
    page = _rows(client, until=(today - timedelta(days=1)).isoformat())
    assert "Dispute" not in page and "Rien ne correspond dans le journal." in page


def test_it_answers_a_bad_filter_with_a_field_message(table: Any, logged: Any) -> None:
    response = client_for(table.moderator).get(reverse("moderation:log"), {"since": "31/31/2026", "action": "x"})
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"since", "action"}
    assert "Saisissez une date valide" in response.content.decode()


def test_it_answers_htmx_with_the_rows_only(table: Any, logged: Any) -> None:
    response = client_for(table.moderator).get(
        reverse("moderation:log"), {"action": "post_hidden"}, HTTP_HX_REQUEST="true"
    )
    text = response.content.decode()
    assert "Hors sujet" in text and "<html" not in text


@pytest.mark.parametrize("role", ["gm", "cogm", "player", "spectator", "outsider"])
def test_it_hides_the_log_from_everyone_but_moderators(table: Any, logged: Any, role: str) -> None:
    assert client_for(getattr(table, role)).get(reverse("moderation:log")).status_code == 404


def test_it_sends_anonymous_visitors_to_log_in(client: Any, logged: Any) -> None:
    response = client.get(reverse("moderation:log"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
