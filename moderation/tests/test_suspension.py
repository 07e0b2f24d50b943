"""Suspensions: who may suspend, and the middleware that keeps a suspended
member read-only (HTML and API)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from moderation import services
from moderation.models import AuditLog, Suspension, active_suspension
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_a_moderator_suspends_for_a_period(table: Any) -> None:
    suspension = services.suspend_user(table.moderator, table.player, reason="Insultes", days=7)
    assert active_suspension(table.player) == suspension
    assert timedelta(days=6, hours=23) < suspension.until - timezone.now() <= timedelta(days=7)
    entry = AuditLog.objects.get()
    assert (entry.action, entry.actor, entry.target_user, entry.reason) == (
        "user_suspended",
        table.moderator,
        table.player,
        "Insultes",
    )
    assert entry.data["permanent"] is False


def test_a_moderator_suspends_permanently_then_lifts_it(table: Any) -> None:
    services.suspend_user(table.moderator, table.player, reason="Spam")
    assert active_suspension(table.player).until is None
    assert services.unsuspend_user(table.moderator, table.player, reason="Appel accepté") == 1
    assert active_suspension(table.player) is None
    assert list(AuditLog.objects.order_by("id").values_list("action", flat=True)) == [
        "user_suspended",
        "user_unsuspended",
    ]
    with pytest.raises(ValidationError):
        services.unsuspend_user(table.moderator, table.player)


def test_a_new_suspension_replaces_the_running_one(table: Any) -> None:
    services.suspend_user(table.moderator, table.player, reason="1", days=30)
    second = services.suspend_user(table.moderator, table.player, reason="2", days=1)
    assert active_suspension(table.player) == second
    assert Suspension.objects.filter(lifted_at__isnull=True).count() == 1


def test_an_expired_suspension_no_longer_applies(table: Any) -> None:
    Suspension.objects.create(user=table.player, until=timezone.now() - timedelta(minutes=1), reason="old")
    assert active_suspension(table.player) is None
    assert client_for(table.player).get(reverse("moderation:suspended")).status_code == 302


@pytest.mark.parametrize("role", ["gm", "cogm", "player", "outsider"])
def test_non_moderators_cannot_suspend(table: Any, role: str) -> None:
    actor = getattr(table, role)
    with pytest.raises(Http404):
        services.suspend_user(actor, table.player2, reason="x", days=1)
    client = client_for(actor)
    assert (
        client.post(
            reverse("moderation:suspend", args=[table.player2.pk]), {"duration": "1", "reason": "x"}
        ).status_code
        == 404
    )
    assert client.get(reverse("moderation:user", args=[table.player2.pk])).status_code == 404
    assert active_suspension(table.player2) is None


def test_it_refuses_bad_suspensions(table: Any) -> None:
    with pytest.raises(PermissionDenied):
        services.suspend_user(table.moderator, table.moderator, reason="x")
    other_moderator = table.gm
    other_moderator.is_staff = True
    other_moderator.save()
    with pytest.raises(PermissionDenied):
        services.suspend_user(table.moderator, other_moderator, reason="x")
    for days in (0, -3, 99999, "abc"):
        with pytest.raises(ValidationError) as exc:
            services.suspend_user(table.moderator, table.player, reason="x", days=days)
        assert "days" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.suspend_user(table.moderator, table.player, reason="", days=1)
    assert "reason" in exc.value.message_dict
    with pytest.raises(ValidationError):
        services.suspend_user(table.moderator, table.player, reason="x", until=timezone.now() - timedelta(days=1))
    assert not Suspension.objects.exists()
    assert not AuditLog.objects.exists()


def test_it_suspends_through_the_user_page(table: Any) -> None:
    client = client_for(table.moderator)
    page = client.get(reverse("moderation:user", args=[table.player.pk])).content.decode()
    assert "Suspendre" in page
    response = client.post(
        reverse("moderation:suspend", args=[table.player.pk]), {"duration": "permanent", "reason": "Spam"}
    )
    assert response.status_code == 302
    assert active_suspension(table.player).until is None
    bad = client.post(reverse("moderation:suspend", args=[table.player2.pk]), {"duration": "9", "reason": ""})
    assert bad.status_code == 302
    assert active_suspension(table.player2) is None


# --- the middleware ---------------------------------------------------------------
@pytest.fixture
def suspended(table: Any) -> Any:
    services.suspend_user(table.moderator, table.player, reason="Propos haineux", days=3)
    return table.player


def test_a_suspended_member_logs_in_to_read_the_notice(suspended: Any) -> None:
    from django.test import Client

    from moderation.tests.conftest import verify_email

    verify_email(suspended)
    client = Client()
    response = client.post(
        reverse("account_login"), {"login": suspended.username, "password": "pw-player-12345"}, follow=True
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("moderation:suspended")
    page = response.content.decode()
    assert "Compte suspendu" in page
    assert "Propos haineux" in page
    assert client.get("/").status_code == 302
    assert client.get(reverse("moderation:export")).status_code == 200


def test_a_suspended_member_cannot_write_through_html(table: Any, suspended: Any, thread: Any) -> None:
    client = client_for(suspended)
    profile = suspended.profile
    response = client.post(reverse("accounts:profile"), {"display_name": "Pirate", "language": "fr", "bio": ""})
    assert response.status_code == 403
    assert "Votre compte est suspendu" in response.content.decode()
    profile.refresh_from_db()
    assert profile.display_name != "Pirate"
    post = thread.posts.first()
    response = client.post(reverse("moderation:report_create", args=["post", post.pk]), {"reason": "spam"})
    assert response.status_code == 403
    reply = reverse("campaigns:thread_reply", args=[thread.pk])
    form = {"body": "Spam", "visibility": "public"}
    response = client.post(reply, form)
    assert response.status_code == 403
    assert "Votre compte est suspendu" in response.content.decode()
    assert thread.posts.count() == 1
    services.unsuspend_user(table.moderator, suspended)
    assert client.post(reply, form).status_code == 302  # the same form works once the suspension is lifted
    assert thread.posts.count() == 2


def test_a_suspended_member_cannot_write_through_the_api(suspended: Any) -> None:
    from api import services as api_services
    from api.models import ApiToken

    client = client_for(suspended)
    response = client.post("/api/v1/tokens/", {"name": "x"}, content_type="application/json")
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "suspended"
    assert "suspendu" in body["detail"]
    for method in ("put", "patch", "delete"):
        assert getattr(client, method)("/api/v1/me/").status_code == 403
    _token, key = api_services.create_token(suspended, name="old")
    from django.test import Client

    anonymous = Client()
    response = anonymous.post(
        "/api/v1/tokens/", {"name": "y"}, content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}"
    )
    assert response.status_code == 403
    assert response.json()["code"] == "suspended"
    assert ApiToken.objects.filter(user=suspended).count() == 1


def test_the_notice_is_read_and_logout_works(suspended: Any) -> None:
    client = client_for(suspended)
    assert client.get("/campaigns/").status_code == 302
    assert client.get(reverse("moderation:suspended")).status_code == 200
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_others_are_not_affected_and_lifting_restores_writes(table: Any, suspended: Any) -> None:
    other = client_for(table.player2)
    assert other.get(reverse("moderation:suspended")).status_code == 302
    assert other.post("/api/v1/tokens/", {"name": "x"}, content_type="application/json").status_code != 403
    services.unsuspend_user(table.moderator, suspended)
    client = client_for(suspended)
    response = client.post(reverse("accounts:profile"), {"display_name": "Revenu", "language": "fr", "bio": ""})
    assert response.status_code == 302
    suspended.profile.refresh_from_db()
    assert suspended.profile.display_name == "Revenu"
