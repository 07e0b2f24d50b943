"""Boards, threads, posts with rolls, rolls and the chain through the API."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from api.tests.conftest import assert_error, token_client
from campaigns import services
from campaigns.models import Post, Roll, Thread

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(table: Any) -> dict[str, Any]:
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="Scène", body="Ouverture.")
    return {"board": board, "thread": thread}


def posts_of(user: Any, thread: Thread) -> list[dict[str, Any]]:
    client = token_client(user) if user is not None else APIClient()
    response = client.get(f"/api/v1/threads/{thread.pk}/posts/")
    assert response.status_code == 200, response.json()
    return response.json()["results"]


@pytest.mark.parametrize("role", ["gm", "cogm", "player", "spectator", "moderator"])
def test_it_shows_a_private_thread_to_members_and_moderators(table: Any, scene: dict[str, Any], role: str) -> None:
    assert [p["body"] for p in posts_of(table.users()[role], scene["thread"])] == ["Ouverture."]


def test_it_hides_a_private_thread_from_outsiders(table: Any, scene: dict[str, Any]) -> None:
    thread, board = scene["thread"], scene["board"]
    for client in (APIClient(), token_client(table.outsider)):
        assert_error(client.get(f"/api/v1/threads/{thread.pk}/posts/"), 404, "not_found")
        assert_error(client.get(f"/api/v1/threads/{thread.pk}/"), 404, "not_found")
        assert_error(client.get(f"/api/v1/boards/{board.pk}/threads/"), 404, "not_found")
        assert_error(client.get(f"/api/v1/campaigns/{table.campaign.pk}/boards/"), 404, "not_found")


def test_it_lets_players_post_with_rolls_and_records_the_chain(table: Any, scene: dict[str, Any]) -> None:
    thread = scene["thread"]
    payload = {
        "body": "J'attaque !",
        "roll_requests": [{"expression": "2d6+3", "label": "dégâts"}, {"expression": "1d20", "secret": True}],
    }
    response = token_client(table.player).post(f"/api/v1/threads/{thread.pk}/posts/", payload, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["number"] == 2 and body["author"]["username"] == "player"
    assert [r["label"] for r in body["rolls"]] == ["dégâts", ""]
    rolls = list(Roll.objects.filter(post_id=body["id"]).order_by("sequence"))
    assert len(rolls) == 2 and rolls[1].prev_hash == rolls[0].hash
    draws = rolls[0].resolution["draws"]
    assert len(draws) == 2 and rolls[0].resolution["outcome"]["total"] == sum(draws) + 3
    assert body["rolls"][0]["resolution"] == rolls[0].resolution
    # The secret roll: the roller and the GMs only.
    assert len(posts_of(table.player2, thread)[1]["rolls"]) == 1
    assert len(posts_of(table.cogm, thread)[1]["rolls"]) == 2
    assert_error(token_client(table.player2).get(f"/api/v1/rolls/{rolls[1].pk}/"), 404, "not_found")
    assert token_client(table.player).get(f"/api/v1/rolls/{rolls[1].pk}/").status_code == 200
    verify = token_client(table.spectator).get(f"/api/v1/campaigns/{table.campaign.pk}/rolls/verify/").json()
    assert verify == {"ok": True, "count": 2, "problems": []}
    chain = token_client(table.player2).get(f"/api/v1/campaigns/{table.campaign.pk}/rolls/chain/").json()
    assert "content" in chain[0] and "body_digest" in chain[1] and "content" not in chain[1]
    from campaigns.dice import verify_export

    assert verify_export(chain) == (True, [])


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"body": ""}, "body"),
        ({"body": "   "}, "body"),
        ({"body": "x", "visibility": "everyone"}, "visibility"),
        ({"body": "x", "roll_requests": [{"expression": "2d6+"}]}, "rolls"),
        ({"body": "x", "roll_requests": [{}]}, "roll_requests.0"),
        ({"body": "x", "roll_requests": [{"expression": "1d6"}] * 11}, "roll_requests"),
        ({"body": "x", "visibility": "whisper"}, "recipients"),
        ({"body": "x", "visibility": "whisper", "recipients": [999999]}, "recipients"),
        ({"body": "x", "reply_to": 999999}, "reply_to"),
        ({"body": "x", "character": 999999}, "character"),
    ],
)
def test_it_refuses_bad_posts_and_saves_nothing(
    table: Any, scene: dict[str, Any], payload: dict[str, Any], field: str
) -> None:
    thread = scene["thread"]
    response = token_client(table.player).post(f"/api/v1/threads/{thread.pk}/posts/", payload, format="json")
    assert_error(response, 400, "invalid", field)
    assert Post.objects.filter(thread=thread).count() == 1 and Roll.objects.count() == 0


def test_it_refuses_posts_from_spectators_and_outsiders(table: Any, scene: dict[str, Any]) -> None:
    url = f"/api/v1/threads/{scene['thread'].pk}/posts/"
    assert_error(token_client(table.spectator).post(url, {"body": "x"}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(url, {"body": "x"}, format="json"), 404, "not_found")
    assert_error(APIClient().post(url, {"body": "x"}, format="json"), 401, "not_authenticated")
    assert Post.objects.filter(thread=scene["thread"]).count() == 1


def test_it_hides_gm_only_posts_and_whispers(table: Any, scene: dict[str, Any]) -> None:
    thread = scene["thread"]
    services.create_post(table.player, thread, body="Pour le MJ", visibility="gm")
    services.create_post(table.player, thread, body="Psst", visibility="whisper", recipients=[table.player2.pk])
    assert [p["body"] for p in posts_of(table.spectator, thread)] == ["Ouverture."]
    assert [p["body"] for p in posts_of(table.player2, thread)] == ["Ouverture.", "Psst"]
    assert [p["body"] for p in posts_of(table.cogm, thread)] == ["Ouverture.", "Pour le MJ", "Psst"]
    hidden = Post.objects.get(body="Pour le MJ")
    assert_error(token_client(table.player2).get(f"/api/v1/posts/{hidden.pk}/"), 404, "not_found")


def test_it_pages_posts_with_a_cursor(table: Any, scene: dict[str, Any]) -> None:
    thread = scene["thread"]
    for index in range(4):
        Post.objects.create(thread=thread, campaign=table.campaign, number=index + 2, author=table.gm, body=f"p{index}")
    api = token_client(table.player)
    first = api.get(f"/api/v1/threads/{thread.pk}/posts/?page_size=2").json()
    assert [p["number"] for p in first["results"]] == [1, 2] and first["next"]
    second = api.get(first["next"]).json()
    assert [p["number"] for p in second["results"]] == [3, 4]
    # New posts arriving meanwhile are not skipped nor repeated.
    Post.objects.create(thread=thread, campaign=table.campaign, number=6, author=table.gm, body="late")
    third = api.get(second["next"]).json()
    assert [p["number"] for p in third["results"]] == [5, 6] and third["next"] is None
    assert_error(api.get(f"/api/v1/threads/{thread.pk}/posts/?cursor=garbage"), 404, "not_found")


def test_it_lets_the_author_edit_and_gms_hide(table: Any, scene: dict[str, Any]) -> None:
    post = services.create_post(table.player, scene["thread"], body="Premier jet")
    url = f"/api/v1/posts/{post.pk}/"
    assert_error(token_client(table.player2).patch(url, {"body": "piraté"}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.player).patch(url, {"body": ""}, format="json"), 400, "invalid", "body")
    edited = token_client(table.player).patch(url, {"body": "Corrigé"}, format="json")
    assert edited.status_code == 200 and edited.json()["body"] == "Corrigé" and edited.json()["edited"]
    assert post.versions.count() == 1
    hide = f"/api/v1/posts/{post.pk}/hide/"
    assert_error(token_client(table.player2).post(hide, {"reason": "spam"}, format="json"), 403, "permission_denied")
    assert token_client(table.moderator).post(hide, {"reason": "spam"}, format="json").status_code == 200
    # As on the thread page: the moderated post keeps its place and rolls, its text is withheld.
    seen = posts_of(table.player2, scene["thread"])
    assert [(p["body"], p["content_withheld"]) for p in seen] == [("Ouverture.", False), ("", True)]
    assert "Corrigé" not in str(seen)


def test_it_creates_threads_and_lets_gms_pin_them(table: Any, scene: dict[str, Any]) -> None:
    url = f"/api/v1/boards/{scene['board'].pk}/threads/"
    created = token_client(table.player).post(url, {"title": "Ma scène", "body": "Je commence."}, format="json")
    assert created.status_code == 201 and created.json()["post_count"] == 1
    thread_id = created.json()["id"]
    assert_error(
        token_client(table.player).post(url, {"title": "", "body": "x"}, format="json"), 400, "invalid", "title"
    )
    assert_error(
        token_client(table.player).post(url, {"title": "T", "body": "x", "sticky": True}, format="json"),
        403,
        "permission_denied",
    )
    assert_error(
        token_client(table.player).patch(f"/api/v1/threads/{thread_id}/", {"sticky": True}, format="json"),
        403,
        "permission_denied",
    )
    assert (
        token_client(table.gm).patch(f"/api/v1/threads/{thread_id}/", {"sticky": True}, format="json").json()["sticky"]
    )
    listed = token_client(table.spectator).get(url).json()["results"]
    assert listed[0]["id"] == thread_id


def test_it_reads_a_public_campaign_anonymously(public_table: Any) -> None:
    board = public_table.campaign.boards.first()
    thread = services.create_thread(public_table.gm, board, title="Ouvert", body="Bienvenue.")
    assert [p["body"] for p in posts_of(None, thread)] == ["Bienvenue."]


def test_it_throttles_posting_harder_than_reading(table: Any, scene: dict[str, Any], settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "posting": "1/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    api = token_client(table.player)
    url = f"/api/v1/threads/{scene['thread'].pk}/posts/"
    assert api.post(url, {"body": "Un"}, format="json").status_code == 201
    assert_error(api.post(url, {"body": "Deux"}, format="json"), 429, "throttled")
    assert api.get(url).status_code == 200  # reading is not counted
    assert Post.objects.filter(thread=scene["thread"]).count() == 2
