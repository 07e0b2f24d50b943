"""Every page renders for those who may see it; others get 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from campaigns import services

pytestmark = pytest.mark.django_db


def _pages(table: Any, thread: Any) -> list[str]:
    slug = table.campaign.slug
    board = thread.board
    post = thread.posts.first()
    session = services.open_session(table.gm, table.campaign, title="Première")
    return [
        reverse("campaigns:detail", args=[slug]),
        reverse("campaigns:members", args=[slug]),
        reverse("campaigns:board", args=[slug, board.pk]),
        reverse("campaigns:thread", args=[thread.pk]),
        reverse("campaigns:thread_new_posts", args=[thread.pk]) + "?after=0",
        reverse("campaigns:search", args=[slug]) + "?q=rideau",
        reverse("campaigns:rolls_verify", args=[slug]),
        reverse("campaigns:rolls_export", args=[slug]),
        reverse("campaigns:sessions", args=[slug]),
        reverse("campaigns:session", args=[session.pk]),
        reverse("campaigns:post", args=[post.pk]),
    ]


def test_it_renders_every_page_for_the_gm(client: Any, table: Any, thread: Any) -> None:
    client.force_login(table.gm)
    services.create_post(table.player, thread, body="Un jet", roll_requests=[{"expression": "1d20", "label": "Épée"}])
    for url in [
        *_pages(table, thread),
        reverse("campaigns:settings", args=[table.campaign.slug]),
        reverse("campaigns:boards", args=[table.campaign.slug]),
        reverse("campaigns:thread_create", args=[table.campaign.slug, thread.board_id]),
        reverse("campaigns:directory"),
        reverse("campaigns:create"),
        reverse("campaigns:notifications"),
        reverse("campaigns:roll_fields", args=[table.campaign.slug]) + "?test_kind=comparison",
    ]:
        response = client.get(url)
        assert response.status_code in (200, 302), (url, response.status_code)


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_it_answers_404_for_a_private_campaign(client: Any, table: Any, thread: Any, who: str) -> None:
    if who != "anonymous":
        client.force_login(getattr(table, who))
    for url in _pages(table, thread):
        assert client.get(url).status_code == 404, url
