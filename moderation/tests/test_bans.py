"""A GM removes and bans a member from their table."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.urls import reverse

from campaigns import services as campaign_services
from campaigns.access import role_of
from campaigns.models import Invitation, Membership
from moderation import services
from moderation.models import AuditLog, TableBan
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_gm_removes_and_bans_a_player(table: Any, player_post: Any) -> None:
    response = client_for(table.gm).post(
        reverse("moderation:ban_member", args=[table.campaign.pk, table.player.pk]), {"reason": "Harcèlement"}
    )
    assert response.status_code == 302
    assert not Membership.objects.filter(campaign=table.campaign, user=table.player).exists()
    ban = TableBan.objects.get()
    assert (ban.user, ban.banned_by, ban.reason) == (table.player, table.gm, "Harcèlement")
    player_post.refresh_from_db()
    assert player_post.author == table.player
    entry = AuditLog.objects.get()
    assert (entry.action, entry.campaign, entry.target_user, entry.data["role"]) == (
        "member_banned",
        table.campaign,
        table.player,
        "player",
    )


def test_a_banned_user_cannot_come_back(table: Any) -> None:
    services.remove_and_ban(table.gm, table.campaign, table.player, reason="x")
    with pytest.raises(ValidationError) as exc:
        campaign_services.invite_member(table.gm, table.campaign, username=table.player.username)
    assert "exclue" in " ".join(exc.value.messages) or "banned" in " ".join(exc.value.messages)
    with pytest.raises(ValidationError):
        Membership.objects.create(campaign=table.campaign, user=table.player, role="player")
    assert role_of(table.player, table.campaign) is None
    assert not Invitation.objects.filter(user=table.player, status="pending").exists()


def test_a_cogm_bans_players_but_not_cogms(table: Any) -> None:
    services.remove_and_ban(table.cogm, table.campaign, table.spectator)
    assert TableBan.objects.filter(user=table.spectator).exists()
    from conftest import make_user

    second = make_user("cogm2")
    Membership.objects.create(campaign=table.campaign, user=second, role="cogm")
    with pytest.raises(PermissionDenied):
        services.remove_and_ban(table.cogm, table.campaign, second)
    with pytest.raises(PermissionDenied):
        services.remove_and_ban(table.cogm, table.campaign, table.gm)
    services.remove_and_ban(table.gm, table.campaign, second)
    assert TableBan.objects.count() == 2


@pytest.mark.parametrize("role", ["player", "spectator"])
def test_members_cannot_ban(table: Any, role: str) -> None:
    with pytest.raises(PermissionDenied):
        services.remove_and_ban(getattr(table, role), table.campaign, table.player2)
    response = client_for(getattr(table, role)).post(
        reverse("moderation:ban_member", args=[table.campaign.pk, table.player2.pk]), {"reason": ""}
    )
    assert response.status_code == 404
    assert role_of(table.player2, table.campaign) == "player"
    assert not TableBan.objects.exists()


def test_a_gm_cannot_ban_from_another_campaign(table: Any, other_table: Any) -> None:
    with pytest.raises(Http404):
        services.remove_and_ban(other_table.gm, table.campaign, table.player)
    with pytest.raises(PermissionDenied):
        services.remove_and_ban(table.gm, other_table.campaign, other_table.player)
    assert client_for(table.gm).get(reverse("moderation:bans", args=[other_table.campaign.pk])).status_code == 404
    assert (
        client_for(other_table.gm)
        .post(reverse("moderation:ban_member", args=[table.campaign.pk, table.player.pk]))
        .status_code
        == 404
    )
    assert not TableBan.objects.exists()
    assert role_of(table.player, table.campaign) == "player"


def test_it_bans_a_non_member_and_lifts_a_ban(table: Any) -> None:
    ban = services.remove_and_ban(table.gm, table.campaign, table.outsider, reason="Insiste")
    with pytest.raises(ValidationError):
        services.remove_and_ban(table.gm, table.campaign, table.outsider)
    with pytest.raises(ValidationError):
        services.remove_and_ban(table.gm, table.campaign, table.gm)
    client = client_for(table.gm)
    page = client.get(reverse("moderation:bans", args=[table.campaign.pk])).content.decode()
    assert "outsider" in page and "Lever l’exclusion" in page
    assert client_for(table.player).post(reverse("moderation:lift_ban", args=[ban.pk])).status_code == 404
    assert client.post(reverse("moderation:lift_ban", args=[ban.pk])).status_code == 302
    assert not TableBan.objects.exists()
    assert list(AuditLog.objects.order_by("id").values_list("action", flat=True)) == [
        "member_banned",
        "member_unbanned",
    ]
    campaign_services.invite_member(table.gm, table.campaign, username=table.outsider.username)
