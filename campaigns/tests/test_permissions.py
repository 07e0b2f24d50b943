"""The permission contract of DESIGN.md, row by row (every refused role)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse

from campaigns import access, services
from campaigns.models import Campaign, Post, PostVersion, Roll

pytestmark = pytest.mark.django_db

ALL = ["gm", "cogm", "player", "player2", "spectator", "outsider", "moderator"]


def _visible_numbers(user: Any, thread: Any) -> set[int]:
    return set(access.visible_posts(user, thread).values_list("number", flat=True))


# --- public campaign listing -------------------------------------------------
def test_it_lists_public_campaigns_to_everyone_but_not_private_ones(client: Any, table: Any, public_table: Any) -> None:
    Campaign.objects.filter(pk=public_table.campaign.pk).update(recruiting=True)
    response = client.get(reverse("campaigns:directory"))
    assert response.status_code == 200
    assert public_table.campaign.title in response.content.decode()
    assert table.campaign.title not in response.content.decode()


@pytest.mark.parametrize("who", ["player", "spectator", "outsider"])
def test_it_refuses_campaign_settings_to_non_gms(client: Any, public_table: Any, who: str) -> None:
    user = getattr(public_table, who)
    client.force_login(user)
    url = reverse("campaigns:settings", args=[public_table.campaign.slug])
    assert client.get(url).status_code == 404
    response = client.post(url, {"title": "Piraté", "language": "fr"})
    assert response.status_code == 404
    public_table.campaign.refresh_from_db()
    assert public_table.campaign.title != "Piraté"


def test_it_refuses_campaign_changes_in_the_service(public_table: Any) -> None:
    with pytest.raises(PermissionDenied):
        services.update_campaign(public_table.player, public_table.campaign, title="X")
    # The public listing is the GM's alone (DESIGN.md); a co-GM is refused and nothing changes.
    with pytest.raises(PermissionDenied):
        services.update_campaign(public_table.cogm, public_table.campaign, title="Nouveau titre", is_public=True)
    public_table.campaign.refresh_from_db()
    assert public_table.campaign.title != "Nouveau titre"
    services.update_campaign(public_table.gm, public_table.campaign, title="Nouveau titre", is_public=True)
    public_table.campaign.refresh_from_db()
    assert public_table.campaign.title == "Nouveau titre"


def test_a_cogm_may_change_the_system_options_but_not_the_listing(client: Any, public_table: Any) -> None:
    campaign = public_table.campaign
    client.force_login(public_table.cogm)
    url = reverse("campaigns:settings", args=[campaign.slug])
    page = client.get(url)
    assert page.status_code == 200
    assert 'name="title"' in page.content.decode() and "disabled" in page.content.decode()
    client.post(url, {"title": "Piraté", "pitch": "x", "language": "en", "is_public": "", "recruiting": "on"})
    campaign.refresh_from_db()
    assert campaign.title != "Piraté" and campaign.is_public and campaign.language == "fr"


# --- private campaign and its threads ------------------------------------------
@pytest.mark.parametrize("who", ["gm", "cogm", "player", "player2", "spectator", "moderator"])
def test_it_shows_a_private_campaign_to_members_and_moderators(client: Any, table: Any, thread: Any, who: str) -> None:
    client.force_login(getattr(table, who))
    assert client.get(reverse("campaigns:detail", args=[table.campaign.slug])).status_code == 200
    assert client.get(reverse("campaigns:thread", args=[thread.pk])).status_code == 200


@pytest.mark.parametrize("who", ["outsider", None])
def test_it_hides_a_private_campaign_with_404(client: Any, table: Any, thread: Any, who: str | None) -> None:
    if who:
        client.force_login(getattr(table, who))
    for url in (
        reverse("campaigns:detail", args=[table.campaign.slug]),
        reverse("campaigns:thread", args=[thread.pk]),
        reverse("campaigns:board", args=[table.campaign.slug, thread.board_id]),
        reverse("live:stream", args=["thread", thread.pk]),
    ):
        assert client.get(url).status_code == 404, url
    assert client.get(reverse("campaigns:thread", args=[999999])).status_code == 404


def test_it_refuses_posting_to_outsiders_spectators_and_non_member_moderators(table: Any, thread: Any) -> None:
    with pytest.raises(Http404):
        services.create_post(table.outsider, thread, body="intrus")
    with pytest.raises(PermissionDenied):
        services.create_post(table.spectator, thread, body="je regarde")
    with pytest.raises(PermissionDenied):
        services.create_post(table.moderator, thread, body="modération")
    assert thread.posts.count() == 1


def test_it_refuses_a_reply_through_the_view_to_a_spectator(client: Any, table: Any, thread: Any) -> None:
    client.force_login(table.spectator)
    response = client.post(reverse("campaigns:thread_reply", args=[thread.pk]), {"body": "x", "visibility": "public"})
    assert response.status_code == 403
    assert thread.posts.count() == 1


# --- ordinary posts --------------------------------------------------------------
def test_it_shows_ordinary_posts_of_a_public_campaign_to_everyone(client: Any, public_table: Any) -> None:
    board = public_table.campaign.boards.first()
    thread = services.create_thread(public_table.gm, board, title="Place publique", body="Texte public visible")
    response = client.get(reverse("campaigns:thread", args=[thread.pk]))
    assert response.status_code == 200
    assert "Texte public visible" in response.content.decode()


def test_it_lets_only_the_author_edit_and_keeps_history(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Version 1")
    for who in ("gm", "cogm", "player2", "spectator"):
        with pytest.raises(PermissionDenied):
            services.edit_post(getattr(table, who), post, body="Piraté")
    with pytest.raises(Http404):
        services.edit_post(table.outsider, post, body="Piraté")
    services.edit_post(table.player, post, body="Version 2")
    post.refresh_from_db()
    assert post.body == "Version 2" and post.edited is not None
    assert list(PostVersion.objects.filter(post=post).values_list("body", flat=True)) == ["Version 1"]


def test_it_shows_history_to_author_and_gms_only(client: Any, table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Version 1")
    services.edit_post(table.player, post, body="Version 2")
    url = reverse("campaigns:post_history", args=[post.pk])
    for who, status in (("player", 200), ("gm", 200), ("cogm", 200), ("player2", 404), ("spectator", 404)):
        client.force_login(getattr(table, who))
        response = client.get(url)
        assert response.status_code == status, who
        if status == 200:
            assert "Version 1" in response.content.decode()


def test_it_lets_gms_and_moderators_hide_posts_but_not_players(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Hors sujet")
    with pytest.raises(PermissionDenied):
        services.hide_post(table.player2, post)
    with pytest.raises(PermissionDenied):
        services.hide_post(table.player, post)
    services.hide_post(table.cogm, post, reason="hors sujet")
    assert post.number not in _visible_numbers(table.player2, thread)
    assert post.number not in _visible_numbers(table.player, thread)
    assert post.number in _visible_numbers(table.gm, thread)
    assert post.number in _visible_numbers(table.moderator, thread)
    services.hide_post(table.moderator, post, hidden=False)
    assert post.number in _visible_numbers(table.player2, thread)


# --- GM-only posts and whispers ----------------------------------------------------
def test_it_shows_gm_only_posts_to_gms_and_author(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Pour le MJ", visibility="gm")
    seen = {who for who in ALL if post.number in _visible_numbers(getattr(table, who), thread)}
    assert seen == {"gm", "cogm", "player"}


def test_it_lets_the_gm_edit_a_gm_only_post(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Pour le MJ", visibility="gm")
    services.edit_post(table.gm, post, body="Corrigé par le MJ")
    with pytest.raises(Http404):
        services.edit_post(table.player2, post, body="x")
    assert Post.objects.get(pk=post.pk).body == "Corrigé par le MJ"


def test_it_refuses_a_co_gm_the_edit_of_someone_else_s_gm_only_post(client: Any, table: Any, thread: Any) -> None:
    """DESIGN.md: a GM-only post can be changed by its author and the GM (co-GMs only read it)."""
    post = services.create_post(table.player, thread, body="Pour le MJ", visibility="gm")
    with pytest.raises(PermissionDenied):
        services.edit_post(table.cogm, post, body="Corrigé par le co-MJ")
    assert Post.objects.get(pk=post.pk).body == "Pour le MJ"
    assert not post.versions.exists()
    client.force_login(table.cogm)
    assert client.post(reverse("campaigns:post_edit", args=[post.pk]), {"body": "x"}).status_code == 403
    page = client.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()
    assert "Pour le MJ" in page
    assert reverse("campaigns:post_edit", args=[post.pk]) not in page
    # The co-GM still edits their own GM-only post.
    own = services.create_post(table.cogm, thread, body="Note du co-MJ", visibility="gm")
    services.edit_post(table.cogm, own, body="Note du co-MJ, corrigée")
    assert Post.objects.get(pk=own.pk).body == "Note du co-MJ, corrigée"


def test_it_shows_whispers_to_addressees_author_and_gms(table: Any, thread: Any) -> None:
    post = services.create_post(
        table.player, thread, body="Chuchotement secret", visibility="whisper", recipients=[table.player2]
    )
    seen = {who for who in ALL if post.number in _visible_numbers(getattr(table, who), thread)}
    assert seen == {"gm", "cogm", "player", "player2"}
    with pytest.raises(PermissionDenied):
        services.edit_post(table.gm, post, body="x")
    with pytest.raises(Http404):
        services.edit_post(table.spectator, post, body="x")


def test_it_does_not_render_a_whisper_for_others(client: Any, table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="Chuchotement secret", visibility="whisper", recipients=[table.gm])
    client.force_login(table.player2)
    assert "Chuchotement secret" not in client.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()
    client.force_login(table.gm)
    assert "Chuchotement secret" in client.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()


# --- dice rolls -----------------------------------------------------------------------
def test_it_shows_secret_rolls_to_roller_and_gms_only(client: Any, table: Any, thread: Any) -> None:
    post = services.create_post(
        table.player,
        thread,
        body="Je tente",
        roll_requests=[{"expression": "1d20", "label": "Jet-caché", "secret": True}],
    )
    roll = Roll.objects.get(post=post)
    seen = {who for who in ALL if access.can_see_roll(getattr(table, who), roll)}
    assert seen == {"gm", "cogm", "player"}
    url = reverse("campaigns:thread", args=[thread.pk])
    for who, shown in (("player", True), ("gm", True), ("player2", False), ("spectator", False)):
        client.force_login(getattr(table, who))
        html = client.get(url).content.decode()
        assert ("Jet-caché" in html) is shown, who
        assert "Je tente" in html


def test_it_shows_rolls_like_their_post(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="MJ", visibility="gm", roll_requests=[{"expression": "1d6"}])
    roll = Roll.objects.get(post=post)
    seen = {who for who in ALL if access.can_see_roll(getattr(table, who), roll)}
    assert seen == {"gm", "cogm", "player"}


def test_it_hides_secret_rolls_from_the_export(client: Any, table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="x", roll_requests=[{"expression": "1d20", "secret": True}])
    client.force_login(table.player2)
    rows = client.get(reverse("campaigns:rolls_export", args=[table.campaign.slug])).json()["rolls"]
    assert "content" not in rows[0] and "body_digest" in rows[0] and "fair" not in rows[0]
    client.force_login(table.player)
    rows = client.get(reverse("campaigns:rolls_export", args=[table.campaign.slug])).json()["rolls"]
    assert rows[0]["content"]["request"] == {"expression": "1d20"}


# --- threads --------------------------------------------------------------------------
def test_it_locks_threads_for_players_but_not_gms(table: Any, thread: Any) -> None:
    with pytest.raises(PermissionDenied):
        services.update_thread(table.player, thread, locked=True)
    services.update_thread(table.cogm, thread, locked=True, sticky=True)
    thread.refresh_from_db()
    assert thread.locked and thread.sticky
    with pytest.raises(PermissionDenied):
        services.create_post(table.player, thread, body="Encore un mot")
    services.create_post(table.gm, thread, body="Le MJ conclut.")
    assert thread.posts.count() == 2


def test_it_refuses_sticky_threads_to_players(table: Any) -> None:
    board = table.campaign.boards.first()
    with pytest.raises(PermissionDenied):
        services.create_thread(table.player, board, title="Épinglé", body="x", sticky=True)
    assert not board.threads.exists()


def test_it_refuses_board_changes_to_players(client: Any, table: Any) -> None:
    board = table.campaign.boards.first()
    with pytest.raises(PermissionDenied):
        services.rename_board(table.player, board, name="X")
    client.force_login(table.player)
    assert client.post(reverse("campaigns:boards", args=[table.campaign.slug]), {"name": "X"}).status_code == 404
    assert table.campaign.boards.count() == 2
