"""Deleting a spam account with its content in one step."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse

from campaigns import dice
from campaigns import services as campaign_services
from campaigns.models import Campaign, Post, Roll, Thread
from moderation import services
from moderation.models import AuditLog, Report
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def spam(table: Any, thread: Any) -> dict[str, Any]:
    from characters.models import Character

    spammer = table.player2
    board = table.campaign.boards.first()
    spam_thread = campaign_services.create_thread(spammer, board, title="Achetez", body="Pas cher !")
    reply = campaign_services.create_post(spammer, thread, body="Visitez mon site")
    rolled = campaign_services.create_post(spammer, thread, body="Lancer", roll_requests=[{"expression": "1d6"}])
    campaign_services.create_post(table.player, thread, body="Réponse honnête")
    character = Character.objects.create(campaign=table.campaign, owner=spammer, name="Bot", system="ambre")
    lonely = Campaign.objects.create(title="Pub", slug="pub", system="ambre", created_by=spammer)
    from campaigns.models import Membership, Role

    Membership.objects.create(campaign=lonely, user=spammer, role=Role.GM)
    report = services.report_target(table.player, post=reply, reason="spam")
    return {
        "user": spammer,
        "thread": spam_thread,
        "reply": reply,
        "rolled": rolled,
        "character": character,
        "lonely": lonely,
        "report": report,
    }


def test_it_deletes_the_account_and_its_content(table: Any, thread: Thread, spam: dict[str, Any]) -> None:
    counts = services.delete_spam_account(table.moderator, spam["user"], reason="Spam publicitaire")
    assert counts == {
        "posts_deleted": 2,
        "posts_hidden": 1,
        "threads_deleted": 1,
        "characters_deleted": 1,
        "campaigns_deleted": 1,
    }
    tombstone = User.objects.get(pk=spam["user"].pk)  # kept: its roll's hash covers its id
    assert (tombstone.username, tombstone.email, tombstone.is_active) == (f"deleted-{tombstone.pk}", "", False)
    assert not tombstone.has_usable_password()
    assert not tombstone.memberships.exists()
    assert not Thread.objects.filter(pk=spam["thread"].pk).exists()
    assert not Post.objects.filter(pk=spam["reply"].pk).exists()
    assert not Campaign.objects.filter(slug="pub").exists()
    rolled = Post.objects.get(pk=spam["rolled"].pk)
    assert rolled.hidden and rolled.author is None and rolled.hidden_reason == "Spam publicitaire"
    assert Roll.objects.filter(post=rolled).count() == 1
    assert dice.verify_chain(table.campaign)[0]
    thread.refresh_from_db()
    assert thread.post_count == thread.posts.count() == 3
    report = Report.objects.get(pk=spam["report"].pk)
    assert report.post is None and report.target_label == "La cour de Rebma #2"
    entry = AuditLog.objects.get(action="spam_deleted")
    assert (entry.actor, entry.target_label, entry.reason) == (table.moderator, "player2", "Spam publicitaire")
    assert entry.data["email"] == "player2@example.test"
    assert entry.data["posts_deleted"] == 2


def test_it_deletes_through_the_user_page(table: Any, spam: dict[str, Any]) -> None:
    client = client_for(table.moderator)
    url = reverse("moderation:delete_spam", args=[spam["user"].pk])
    response = client.post(url, {"reason": ""})
    assert response.status_code == 302
    assert User.objects.filter(pk=spam["user"].pk).exists()
    response = client.post(url, {"reason": "Spam"})
    assert response.status_code == 302 and response["Location"] == reverse("moderation:log")
    assert not User.objects.filter(username="player2").exists()


@pytest.mark.parametrize("role", ["gm", "cogm", "player", "outsider"])
def test_non_moderators_cannot_delete_accounts(table: Any, spam: dict[str, Any], role: str) -> None:
    with pytest.raises(Http404):
        services.delete_spam_account(getattr(table, role), spam["user"], reason="x")
    response = client_for(getattr(table, role)).post(
        reverse("moderation:delete_spam", args=[spam["user"].pk]), {"reason": "x"}
    )
    assert response.status_code == 404
    assert User.objects.get(pk=spam["user"].pk).username == "player2"
    assert Post.objects.filter(pk=spam["reply"].pk).exists()


def test_moderators_and_oneself_are_protected(table: Any) -> None:
    with pytest.raises(PermissionDenied):
        services.delete_spam_account(table.moderator, table.moderator, reason="x")
    admin = User.objects.create_superuser("root", "root@example.test", "pw-root-12345")
    with pytest.raises(PermissionDenied):
        services.delete_spam_account(table.moderator, admin, reason="x")
    with pytest.raises(ValidationError):
        services.delete_spam_account(table.moderator, table.player, reason="")
    assert User.objects.filter(pk__in=[table.moderator.pk, admin.pk, table.player.pk]).count() == 3
    assert not AuditLog.objects.exists()


def test_an_account_without_rolls_is_deleted_outright(table: Any, thread: Thread) -> None:
    post = campaign_services.create_post(table.player2, thread, body="Promo")
    services.delete_spam_account(table.moderator, table.player2, reason="Spam")
    assert not User.objects.filter(pk=table.player2.pk).exists()
    assert not Post.objects.filter(pk=post.pk).exists()
    assert AuditLog.objects.get().target_user is None
