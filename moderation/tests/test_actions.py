"""Hide/restore posts, lock threads and campaigns: permission rows and the log."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse

from campaigns.models import Campaign, Post, Roll, Thread
from moderation import services
from moderation.models import AuditLog, Report
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def rolled_post(table: Any, thread: Any) -> Post:
    from campaigns import services as campaign_services

    return campaign_services.create_post(
        table.player, thread, body="Attaque !", roll_requests=[{"expression": "2d6+1", "label": "Épée"}]
    )


@pytest.mark.parametrize("role", ["gm", "cogm", "moderator"])
def test_it_hides_and_restores_a_post_keeping_its_rolls(table: Any, rolled_post: Post, role: str) -> None:
    actor = getattr(table, role)
    roll = Roll.objects.get(post=rolled_post)
    services.hide_post(actor, rolled_post, reason="Hors sujet")
    rolled_post.refresh_from_db()
    assert (rolled_post.hidden, rolled_post.hidden_by, rolled_post.hidden_reason) == (True, actor, "Hors sujet")
    assert Roll.objects.get(post=rolled_post).hash == roll.hash
    assert Post.objects.filter(thread=rolled_post.thread).count() == 2
    services.restore_post(actor, rolled_post, reason="Erreur")
    rolled_post.refresh_from_db()
    assert (rolled_post.hidden, rolled_post.hidden_by, rolled_post.hidden_reason) == (False, None, "")
    actions = list(AuditLog.objects.order_by("id").values_list("action", "actor", "post", "reason"))
    assert actions == [
        ("post_hidden", actor.pk, rolled_post.pk, "Hors sujet"),
        ("post_restored", actor.pk, rolled_post.pk, "Erreur"),
    ]


def test_it_closes_open_reports_when_hiding(table: Any, rolled_post: Post) -> None:
    report = services.report_target(table.player2, post=rolled_post, reason="spam")
    services.hide_post(table.moderator, rolled_post, reason="Pub", report=report)
    report.refresh_from_db()
    assert report.status == Report.Status.RESOLVED
    assert AuditLog.objects.get().report == report


def test_it_requires_a_reason_to_hide(table: Any, rolled_post: Post) -> None:
    with pytest.raises(ValidationError) as exc:
        services.hide_post(table.gm, rolled_post, reason="  ")
    assert "reason" in exc.value.message_dict
    rolled_post.refresh_from_db()
    assert not rolled_post.hidden
    assert not AuditLog.objects.exists()


@pytest.mark.parametrize("role", ["player", "player2", "spectator"])
def test_it_refuses_members_who_are_not_gms(table: Any, rolled_post: Post, role: str) -> None:
    with pytest.raises(PermissionDenied):
        services.hide_post(getattr(table, role), rolled_post, reason="x")
    response = client_for(getattr(table, role)).post(
        reverse("moderation:post_hide", args=[rolled_post.pk]), {"reason": "x"}
    )
    assert response.status_code == 404
    rolled_post.refresh_from_db()
    assert not rolled_post.hidden
    assert not AuditLog.objects.exists()


def test_it_refuses_outsiders_and_gms_of_other_campaigns(table: Any, other_table: Any, rolled_post: Post) -> None:
    with pytest.raises(Http404):
        services.hide_post(table.outsider, rolled_post, reason="x")
    with pytest.raises(Http404):
        services.hide_post(other_table.gm, rolled_post, reason="x")
    assert (
        client_for(other_table.gm)
        .post(reverse("moderation:post_hide", args=[rolled_post.pk]), {"reason": "x"})
        .status_code
        == 404
    )
    rolled_post.refresh_from_db()
    assert not rolled_post.hidden


def test_a_gm_cannot_moderate_a_public_campaign_of_someone_else(table: Any, other_table: Any) -> None:
    from campaigns import services as campaign_services

    board = other_table.campaign.boards.first()
    thread = campaign_services.create_thread(other_table.gm, board, title="Ouvert", body="Bienvenue")
    post = thread.posts.get()
    with pytest.raises(PermissionDenied):
        services.hide_post(table.gm, post, reason="x")
    with pytest.raises(PermissionDenied):
        services.lock_thread(table.gm, thread, reason="x")
    response = client_for(table.gm).post(reverse("moderation:thread_lock", args=[thread.pk]), {"reason": "x"})
    assert response.status_code == 404
    thread.refresh_from_db()
    post.refresh_from_db()
    assert not thread.locked and not post.hidden


def test_it_hides_through_the_html_form(table: Any, rolled_post: Post) -> None:
    client = client_for(table.gm)
    url = reverse("moderation:post_hide", args=[rolled_post.pk])
    assert "Masquer le message" in client.get(url).content.decode()
    assert client.post(url, {"reason": ""}).status_code == 400
    response = client.post(url, {"reason": "Spoiler", "next": "/"})
    assert response.status_code == 302
    rolled_post.refresh_from_db()
    assert rolled_post.hidden
    response = client.post(reverse("moderation:post_restore", args=[rolled_post.pk]), {"reason": ""})
    assert response.status_code == 302
    rolled_post.refresh_from_db()
    assert not rolled_post.hidden


@pytest.mark.parametrize("role", ["gm", "cogm", "moderator"])
def test_it_locks_and_unlocks_a_thread(table: Any, thread: Thread, role: str) -> None:
    actor = getattr(table, role)
    response = client_for(actor).post(
        reverse("moderation:thread_lock", args=[thread.pk]), {"locked": "1", "reason": "Flamewar"}
    )
    assert response.status_code == 302
    thread.refresh_from_db()
    assert thread.locked
    services.lock_thread(actor, thread, locked=False, reason="Calmé")
    thread.refresh_from_db()
    assert not thread.locked
    assert list(AuditLog.objects.order_by("id").values_list("action", "thread", "actor")) == [
        ("thread_locked", thread.pk, actor.pk),
        ("thread_unlocked", thread.pk, actor.pk),
    ]


@pytest.mark.parametrize("role", ["player", "spectator"])
def test_members_cannot_lock_a_thread(table: Any, thread: Thread, role: str) -> None:
    with pytest.raises(PermissionDenied):
        services.lock_thread(getattr(table, role), thread, reason="x")
    assert (
        client_for(getattr(table, role))
        .post(reverse("moderation:thread_lock", args=[thread.pk]), {"reason": "x"})
        .status_code
        == 404
    )
    with pytest.raises(Http404):
        services.lock_thread(table.outsider, thread, reason="x")
    thread.refresh_from_db()
    assert not thread.locked
    assert not AuditLog.objects.exists()


def test_a_moderator_must_say_why_a_thread_is_locked(table: Any, thread: Thread) -> None:
    with pytest.raises(ValidationError):
        services.lock_thread(table.moderator, thread, reason="")
    thread.refresh_from_db()
    assert not thread.locked


def test_only_moderators_lock_a_campaign(table: Any) -> None:
    campaign = table.campaign
    for role in ("gm", "cogm", "player"):
        with pytest.raises(PermissionDenied):
            services.lock_campaign(getattr(table, role), campaign, reason="x")
        assert (
            client_for(getattr(table, role))
            .post(reverse("moderation:campaign_lock", args=[campaign.pk]), {"reason": "x"})
            .status_code
            == 404
        )
    with pytest.raises(Http404):
        services.lock_campaign(table.outsider, campaign, reason="x")
    assert not Campaign.objects.get(pk=campaign.pk).locked
    response = client_for(table.moderator).post(
        reverse("moderation:campaign_lock", args=[campaign.pk]), {"locked": "1", "reason": "Contenu illégal"}
    )
    assert response.status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).locked
    from campaigns.access import can_post

    assert not can_post(table.player, Campaign.objects.get(pk=campaign.pk))
    services.lock_campaign(table.moderator, campaign, locked=False)
    assert not Campaign.objects.get(pk=campaign.pk).locked
    assert list(AuditLog.objects.order_by("id").values_list("action", flat=True)) == [
        "campaign_locked",
        "campaign_unlocked",
    ]


def test_the_report_page_offers_the_actions(table: Any, rolled_post: Post) -> None:
    report = services.report_target(table.player2, post=rolled_post, reason="spam")
    page = client_for(table.moderator).get(reverse("moderation:report", args=[report.pk])).content.decode()
    for label in ("Masquer le message", "Verrouiller le sujet", "Verrouiller la campagne", "Attaque !"):
        assert label in page
    assert f'href="{reverse("campaigns:post", args=[rolled_post.pk])}"' in page
    gm_page = client_for(table.gm).get(reverse("moderation:report", args=[report.pk])).content.decode()
    assert "Masquer le message" in gm_page
    assert "Verrouiller la campagne" not in gm_page
