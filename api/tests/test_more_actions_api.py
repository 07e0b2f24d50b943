"""Smaller actions: notifications, read marks, invitation links, board order,
portraits, system creation helpers, recalculation."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from api.tests.conftest import assert_error, token_client
from campaigns import services
from campaigns.models import Membership, Notification, ThreadRead
from characters import services as character_services

pytestmark = pytest.mark.django_db


def test_it_lists_and_marks_notifications(table: Any) -> None:
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="Scène", body="Bonjour @player")
    api = token_client(table.player)
    listed = api.get("/api/v1/me/notifications/?unread=true").json()
    assert [n["kind"] for n in listed["results"]] == ["mention"] and listed["results"][0]["thread"] == thread.pk
    assert token_client(table.player2).get("/api/v1/me/notifications/").json()["count"] == 0
    assert_error(api.post("/api/v1/me/notifications/read/", {"ids": ["x"]}, format="json"), 400, "invalid", "ids.0")
    assert api.post("/api/v1/me/notifications/read/", {}, format="json").json() == {"count": 1}
    assert Notification.objects.get(user=table.player).read_at is not None


def test_it_marks_a_thread_read(table: Any) -> None:
    thread = services.create_thread(table.gm, table.campaign.boards.first(), title="Scène", body="Un.")
    assert (
        token_client(table.player).post(f"/api/v1/threads/{thread.pk}/read/", {"number": 1}, format="json").status_code
        == 200
    )
    assert ThreadRead.objects.get(user=table.player, thread=thread).last_read_number == 1
    assert_error(
        token_client(table.outsider).post(f"/api/v1/threads/{thread.pk}/read/", {"number": 1}, format="json"),
        404,
        "not_found",
    )
    assert_error(
        token_client(table.player).post(f"/api/v1/threads/{thread.pk}/read/", {"number": 0}, format="json"),
        400,
        "invalid",
        "number",
    )


def test_it_joins_with_the_invitation_link_only(table: Any) -> None:
    reset = f"/api/v1/campaigns/{table.campaign.pk}/invite-link/reset/"
    assert_error(token_client(table.player).post(reset), 403, "permission_denied")
    token = token_client(table.gm).post(reset).json()["token"]
    join = f"/api/v1/campaigns/{table.campaign.pk}/join-by-link/"
    assert_error(token_client(table.outsider).post(join, {"token": "wrong"}, format="json"), 404, "not_found")
    assert not Membership.objects.filter(user=table.outsider).exists()
    joined = token_client(table.outsider).post(join, {"token": token}, format="json")
    assert joined.status_code == 200 and joined.json()["role"] == "player"


def test_it_moves_boards_for_gms(table: Any) -> None:
    first, second = list(table.campaign.boards.order_by("position"))
    assert_error(
        token_client(table.player).post(f"/api/v1/boards/{first.pk}/move/", {"offset": 1}, format="json"),
        403,
        "permission_denied",
    )
    moved = token_client(table.gm).post(f"/api/v1/boards/{first.pk}/move/", {"offset": 1}, format="json")
    assert [b["id"] for b in moved.json()] == [second.pk, first.pk]


def test_it_uploads_a_portrait_for_owner_and_gms(table: Any, settings: Any, tmp_path: Any) -> None:
    from PIL import Image

    settings.MEDIA_ROOT = tmp_path
    hero = character_services.create_character(table.player, table.campaign, name="Corwin")
    buffer = io.BytesIO()
    Image.new("RGB", (40, 40), "red").save(buffer, format="PNG")
    url = f"/api/v1/characters/{hero.pk}/portrait/"

    def upload(user: Any, content: bytes) -> Any:
        return token_client(user).put(url, {"portrait": SimpleUploadedFile("p.png", content)}, format="multipart")

    assert_error(upload(table.player2, buffer.getvalue()), 404, "not_found")
    assert_error(upload(table.player, b"not an image"), 400, "invalid", "portrait")
    response = upload(table.player, buffer.getvalue())
    assert response.status_code == 200 and response.json()["portrait"].endswith(".jpg")


def test_it_rolls_clefs_creation_dice_on_the_server(table: Any) -> None:
    from conftest import make_table

    clefs = make_table("clefs-de-l-aube", prefix="c")
    hero = character_services.create_character(clefs.player, clefs.campaign, name="Aube")
    url = f"/api/v1/characters/{hero.pk}/clefs-roll/"
    assert_error(
        token_client(clefs.player).post(url, {"aspect_method": "x", "means_method": "y"}, format="json"),
        428,
        "precondition_required",
    )
    body = assert_error(
        token_client(clefs.player).post(url, {"aspect_method": "x", "means_method": "y", "version": 1}, format="json"),
        400,
        "invalid",
    )
    assert body["errors"][0]["field"].startswith("creation.")
    assert_error(
        token_client(table.player).post(f"/api/v1/characters/{hero.pk}/clefs-roll/", {}, format="json"),
        404,
        "not_found",
    )


def test_it_relaunches_recalculation_for_gms_only(table: Any) -> None:
    session = services.open_session(table.gm, table.campaign, title="S1")
    url = f"/api/v1/sessions/{session.pk}/recalculate/"
    assert_error(token_client(table.player).post(url), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(url), 404, "not_found")
    response = token_client(table.gm).post(url)
    assert response.status_code == 202 and response.json()["id"]
