"""Moderated posts keep their place and rolls, with a notice; only GMs and
moderators read their text; hiding from the thread page is logged."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from campaigns import services
from campaigns.models import Post, Thread
from moderation.models import AuditLog


@pytest.fixture
def scene(table: Any) -> tuple[Thread, Post]:
    board = table.campaign.boards.first()
    thread = services.create_thread(table.player, board, title="Scène", body="Premier message")
    post = services.create_post(
        table.player,
        thread,
        body="Texte inacceptable",
        roll_requests=[{"expression": "2d6", "label": "Jet test"}],
    )
    return thread, post


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_it_hides_a_post_from_the_thread_page_with_a_logged_reason(table: Any, scene: Any) -> None:
    _, post = scene
    response = client_for(table.gm).post(
        f"/moderation/posts/{post.pk}/visibility/", {"hidden": "1", "reason": "Hors charte"}
    )
    assert response.status_code == 302
    post.refresh_from_db()
    assert post.hidden and post.hidden_reason == "Hors charte"
    entry = AuditLog.objects.get(post=post)
    assert entry.actor == table.gm
    assert entry.reason == "Hors charte"


@pytest.mark.django_db
def test_it_refuses_to_hide_without_a_reason(table: Any, scene: Any) -> None:
    _, post = scene
    client_for(table.gm).post(f"/moderation/posts/{post.pk}/visibility/", {"hidden": "1", "reason": ""})
    post.refresh_from_db()
    assert not post.hidden
    assert not AuditLog.objects.exists()


@pytest.mark.django_db
def test_players_see_the_place_and_rolls_but_not_the_text(table: Any, scene: Any) -> None:
    thread, post = scene
    client_for(table.gm).post(f"/moderation/posts/{post.pk}/visibility/", {"hidden": "1", "reason": "Spam"})
    page = client_for(table.player2).get(f"/campaigns/threads/{thread.pk}/").content.decode()
    assert f'id="post-{post.number}"' in page
    assert "Texte inacceptable" not in page
    assert "Jet test" in page
    assert "Spam" not in page  # the reason is for the GMs
    gm_page = client_for(table.gm).get(f"/campaigns/threads/{thread.pk}/").content.decode()
    assert "Texte inacceptable" in gm_page


@pytest.mark.django_db
def test_players_cannot_hide_posts(table: Any, scene: Any) -> None:
    _, post = scene
    response = client_for(table.player2).post(
        f"/moderation/posts/{post.pk}/visibility/", {"hidden": "1", "reason": "x"}
    )
    assert response.status_code in (403, 404)
    post.refresh_from_db()
    assert not post.hidden


@pytest.mark.django_db
def test_a_non_ascii_invitation_token_is_a_404_not_a_crash(table: Any) -> None:
    from django.http import Http404

    table.campaign.invite_token = "abc"
    table.campaign.save()
    with pytest.raises(Http404):
        services.join_by_link(table.outsider, table.campaign, "é-token")
    assert not table.campaign.memberships.filter(user=table.outsider).exists()
