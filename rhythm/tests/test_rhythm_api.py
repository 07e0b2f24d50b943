"""The rhythm through the API: same services and read model as the pages."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from api.tests.conftest import token_client
from campaigns import services as campaign_services
from campaigns.models import Board
from conftest import make_table
from rhythm.models import Absence, Draft, SceneRhythm

pytestmark = pytest.mark.django_db


def _thread(table: Any) -> Any:
    board = Board.objects.filter(campaign=table.campaign).first()
    return campaign_services.create_thread(table.gm, board, title="Le gué", body="La rivière gronde.")


def test_it_sets_and_reads_a_scene_through_the_api() -> None:
    table = make_table("ambre")
    thread = _thread(table)
    url = f"/api/v1/threads/{thread.pk}/scene/"
    body = {"mode": "order", "order": [table.player2.pk, table.player.pk], "deadline_hours": 24}
    assert token_client(table.player).put(url, body, format="json").status_code == 403
    assert not SceneRhythm.objects.exists()
    assert token_client(table.outsider).get(url).status_code == 404
    response = token_client(table.gm).put(url, body, format="json")
    assert response.status_code == 200, response.content
    data = token_client(table.player2).get(url).json()
    assert data["mode"] == "order" and data["my_turn"] is True
    assert [m["id"] for m in data["waiting_on"]] == [table.player2.pk]
    assert token_client(table.player).get(url).json()["my_turn"] is False
    bad = token_client(table.gm).put(url, {"mode": "order", "order": [table.spectator.pk]}, format="json")
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "order"
    waiting = token_client(table.player2).get("/api/v1/me/waiting/").json()
    assert [w["kind"] for w in waiting] == ["turn"] and waiting[0]["deadline"]


def test_it_keeps_drafts_and_absences_through_the_api() -> None:
    table = make_table("ambre")
    thread = _thread(table)
    client = token_client(table.player)
    url = f"/api/v1/threads/{thread.pk}/draft/"
    assert client.put(url, {"body": "En cours…"}, format="json").json() == {"body": "En cours…"}
    assert Draft.objects.get().body == "En cours…"
    assert token_client(table.outsider).put(url, {"body": "x"}, format="json").status_code == 404
    today = timezone.localdate()
    bad = client.post(
        "/api/v1/me/absences/", {"starts": str(today), "ends": str(today - dt.timedelta(days=1))}, format="json"
    )
    assert bad.status_code == 400 and not Absence.objects.exists()
    made = client.post(
        "/api/v1/me/absences/",
        {"starts": str(today), "ends": str(today), "campaign": table.campaign.slug, "message": "Partiel"},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert [a["message"] for a in client.get("/api/v1/me/absences/").json()] == ["Partiel"]
    other = token_client(table.player2)
    assert other.delete(f"/api/v1/me/absences/{made.json()['id']}/").status_code == 404
    assert client.delete(f"/api/v1/me/absences/{made.json()['id']}/").status_code == 204
