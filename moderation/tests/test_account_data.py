"""'My data': export as JSON and account deletion keeping posts as "deleted user"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns import services as campaign_services
from campaigns.models import Campaign, Membership, Post, Role
from moderation.models import AuditLog
from moderation.tests.conftest import client_for

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_the_profile_links_to_my_data(table: Any) -> None:
    page = client_for(table.player).get(reverse("accounts:profile")).content.decode()
    assert reverse("moderation:my_data") in page


def test_it_exports_my_data_and_only_mine(table: Any, thread: Any) -> None:
    from characters.ledger import append_entry
    from characters.models import Character

    post = campaign_services.create_post(table.player, thread, body="Mon texte", roll_requests=[{"expression": "1d20"}])
    campaign_services.edit_post(table.player, post, body="Mon texte corrigé")
    campaign_services.create_post(table.player2, thread, body="Texte d'un autre")
    hero = Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Corwin", system="ambre", private_background="Secret"
    )
    append_entry(hero, "karma", 5, "gm_award", created_by=table.gm)
    response = client_for(table.player).get(reverse("moderation:export"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["account"]["username"] == "player"
    assert data["account"]["email"] == "player@example.test"
    assert [p["body"] for p in data["posts"]] == ["Mon texte corrigé"]
    assert data["posts"][0]["previous_versions"][0]["body"] == "Mon texte"
    assert len(data["rolls"]) == 1 and data["rolls"][0]["campaign__slug"] == table.campaign.slug
    assert data["characters"][0]["private_background"] == "Secret"
    assert data["characters"][0]["ledger"][0]["amount"] == 5
    assert data["memberships"][0]["role"] == "player"
    assert "Texte d'un autre" not in response.content.decode()
    assert "digest" not in json.dumps(data["api_tokens"])


def test_anonymous_cannot_export(db: Any) -> None:
    from django.test import Client

    assert Client().get(reverse("moderation:export")).status_code == 302


def test_it_deletes_my_account_and_keeps_my_posts(table: Any, thread: Any, player_post: Post) -> None:
    client = client_for(table.player)
    response = client.post(reverse("moderation:delete_account"), {"password": "pw-player-12345", "confirm": "on"})
    assert response.status_code == 302
    assert not User.objects.filter(username="player").exists()
    player_post.refresh_from_db()
    assert player_post.author is None and player_post.body == "Je tire mon épée."
    from accounts.models import display_name

    assert display_name(player_post.author) == "utilisateur supprimé"
    entry = AuditLog.objects.get()
    assert (entry.action, entry.target_label, entry.actor) == ("account_deleted", "player", None)
    assert client.get(reverse("accounts:profile")).status_code == 302


def test_it_refuses_a_wrong_password_or_missing_confirmation(table: Any) -> None:
    client = client_for(table.player)
    response = client.post(reverse("moderation:delete_account"), {"password": "wrong", "confirm": "on"})
    assert response.status_code == 400
    assert "Mot de passe incorrect." in response.content.decode()
    response = client.post(reverse("moderation:delete_account"), {"password": "pw-player-12345"})
    assert response.status_code == 400
    assert User.objects.filter(username="player").exists()
    assert not AuditLog.objects.exists()


def test_a_gm_must_hand_over_first_and_lone_campaigns_go(table: Any) -> None:
    client = client_for(table.gm)
    response = client.post(reverse("moderation:delete_account"), {"password": "pw-gm-12345", "confirm": "on"})
    assert response.status_code == 400
    assert table.campaign.title in response.content.decode()
    assert User.objects.filter(username="gm").exists()
    lonely = Campaign.objects.create(title="Solo", slug="solo", system="ambre", created_by=table.outsider)
    Membership.objects.create(campaign=lonely, user=table.outsider, role=Role.GM)
    from moderation import services

    assert services.delete_account(table.outsider, password="pw-outsider-12345") == {
        "campaigns_deleted": 1,
        "campaigns_locked": 0,
        "erased": 0,
    }
    assert not Campaign.objects.filter(slug="solo").exists()


def test_my_data_page_renders(table: Any) -> None:
    page = client_for(table.player).get(reverse("moderation:my_data")).content.decode()
    assert "Supprimer mon compte" in page and "Télécharger mes données (JSON)" in page


def test_an_account_that_rolled_is_emptied_and_the_chain_still_verifies(table: Any, thread: Any) -> None:
    from campaigns import dice
    from campaigns.models import Roll

    post = campaign_services.create_post(table.player, thread, body="Je lance", roll_requests=[{"expression": "1d6"}])
    roll = Roll.objects.get(post=post)
    client = client_for(table.player)
    response = client.post(reverse("moderation:delete_account"), {"password": "pw-player-12345", "confirm": "on"})
    assert response.status_code == 302
    post.refresh_from_db()
    assert post.author is None
    assert Roll.objects.get(pk=roll.pk).roller_id == table.player.pk
    assert dice.verify_chain(table.campaign) == (True, [])
    tombstone = User.objects.get(pk=table.player.pk)
    assert (tombstone.username, tombstone.email, tombstone.is_active) == (f"deleted-{tombstone.pk}", "", False)
    assert not Membership.objects.filter(user=tombstone).exists()
    from django.test import Client

    login = Client().post(reverse("account_login"), {"login": "player", "password": "pw-player-12345"})
    assert login.status_code == 200
    assert client.get(reverse("accounts:profile")).status_code == 302
