"""Combat through the API: encounter visibility, GM-only steps, declarations
by controllers, NPC secrets, the cursor-paginated log."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from api.tests.conftest import assert_error, token_client
from campaigns import services as campaign_services
from characters import services as character_services
from combat import services
from combat.models import Declaration, Encounter, LogEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def fight(table: Any) -> dict[str, Any]:
    board = table.campaign.boards.first()
    thread = campaign_services.create_thread(table.gm, board, title="Le pont", body="Des ombres approchent.")
    hero = character_services.create_character(table.player, table.campaign, name="Corwin")
    encounter = services.create_encounter(table.gm, thread, title="Embuscade")
    pc = services.add_participant(table.gm, encounter, character=hero)[0]
    npc = services.add_participant(table.gm, encounter, name="Garde", side="opponents")[0]
    return {"thread": thread, "encounter": encounter, "pc": pc, "npc": npc}


def test_it_shows_the_encounter_to_members_with_npc_secrets_hidden(table: Any, fight: dict[str, Any]) -> None:
    encounter = fight["encounter"]
    url = f"/api/v1/encounters/{encounter.pk}/"
    gm_view = token_client(table.cogm).get(url).json()
    by_name = {p["name"]: p for p in gm_view["participants"]}
    assert by_name["Garde"]["state"] is not None and gm_view["gm_notes"] == ""
    player_view = token_client(table.spectator).get(url).json()
    by_name = {p["name"]: p for p in player_view["participants"]}
    assert by_name["Garde"]["state"] is None and by_name["Corwin"]["state"] is not None
    assert player_view["gm_notes"] is None
    assert by_name["Corwin"]["controlled_by_you"] is False
    assert token_client(table.player).get(url).json()["participants"][0]["controlled_by_you"] is True
    for client in (APIClient(), token_client(table.outsider)):
        assert_error(client.get(url), 404, "not_found")
        assert_error(client.get(f"/api/v1/encounters/{encounter.pk}/log/"), 404, "not_found")
        assert_error(client.get(f"/api/v1/threads/{fight['thread'].pk}/encounters/"), 404, "not_found")


@pytest.mark.parametrize(("role", "status"), [("player", 403), ("spectator", 403), ("outsider", 404)])
def test_it_lets_only_gms_run_the_fight(table: Any, fight: dict[str, Any], role: str, status: int) -> None:
    encounter = fight["encounter"]
    api = token_client(table.users()[role])
    for action in ("start", "reveal", "resolve-next", "end"):
        assert api.post(f"/api/v1/encounters/{encounter.pk}/{action}/", {}, format="json").status_code == status
    created = api.post(f"/api/v1/threads/{fight['thread'].pk}/encounters/", {"title": "X"}, format="json")
    assert created.status_code == status
    added = api.post(f"/api/v1/encounters/{encounter.pk}/participants/", {"name": "Loup"}, format="json")
    assert added.status_code == status
    encounter.refresh_from_db()
    assert encounter.status == "preparing" and encounter.participants.count() == 2
    assert Encounter.objects.count() == 1


def test_it_runs_declarations_by_their_controller(table: Any, fight: dict[str, Any]) -> None:
    encounter, pc, npc = fight["encounter"], fight["pc"], fight["npc"]
    started = token_client(table.gm).post(f"/api/v1/encounters/{encounter.pk}/start/")
    assert started.status_code == 200 and started.json()["round"]["phase"] == "declaration"
    url = f"/api/v1/participants/{pc.pk}/declaration/"
    assert_error(token_client(table.player2).post(url, {"data": {}}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(url, {"data": {}}, format="json"), 404, "not_found")
    assert_error(
        token_client(table.player).post(url, {"data": {}, "target": npc.pk}, format="json"), 400, "invalid", "action"
    )
    bad_mode = {"data": {"action": "laser"}, "target": npc.pk}
    assert_error(token_client(table.player).post(url, bad_mode, format="json"), 400, "invalid", "action")
    bad_target = {"data": {"action": "melee"}, "target": 999999}
    assert_error(token_client(table.player).post(url, bad_target, format="json"), 400, "invalid", "target")
    declared = token_client(table.player).post(url, {"data": {"action": "melee"}, "target": npc.pk}, format="json")
    assert declared.status_code == 200, declared.json()
    assert declared.json()["data"] == {"action": "melee"}
    assert Declaration.objects.get(participant=pc).target_id == npc.pk
    # Before the reveal another player does not see it.
    others = {
        p["name"]: p
        for p in token_client(table.player2).get(f"/api/v1/encounters/{encounter.pk}/").json()["participants"]
    }
    assert others["Corwin"]["declared"] is True and others["Corwin"]["declaration"] is None
    revealed = token_client(table.gm).post(f"/api/v1/encounters/{encounter.pk}/reveal/")
    assert revealed.status_code == 200, revealed.json()
    assert revealed.json()["round"]["phase"] == "resolution"
    assert revealed.json()["round"]["next_participant"] == pc.pk
    view = token_client(table.player2).get(f"/api/v1/encounters/{encounter.pk}/").json()
    assert {p["name"]: p for p in view["participants"]}["Corwin"]["declaration"] == {"action": "melee"}
    resolve = f"/api/v1/encounters/{encounter.pk}/resolve-next/"
    assert_error(token_client(table.gm).post(resolve, {"expected_step": 5}, format="json"), 400, "invalid")
    step = token_client(table.gm).post(resolve, {"expected_step": 0}, format="json")
    assert step.status_code == 200, step.json()
    assert LogEntry.objects.filter(encounter=encounter, kind="step").count() == 1


def test_it_pages_the_combat_log_with_a_cursor_and_hides_gm_only_entries(table: Any, fight: dict[str, Any]) -> None:
    encounter, npc = fight["encounter"], fight["npc"]
    services.set_stats_visible(table.gm, npc, visible=False)  # a GM-only log entry
    api = token_client(table.player)
    first = api.get(f"/api/v1/encounters/{encounter.pk}/log/?page_size=2").json()
    assert [e["sequence"] for e in first["results"]] == [1, 2]
    rest = api.get(first["next"]).json()
    player_sequences = [e["sequence"] for e in first["results"] + rest["results"]]
    gm_sequences = [
        e["sequence"] for e in token_client(table.gm).get(f"/api/v1/encounters/{encounter.pk}/log/").json()["results"]
    ]
    gm_only = list(LogEntry.objects.filter(encounter=encounter, gm_only=True).values_list("sequence", flat=True))
    assert gm_only and set(gm_only).isdisjoint(player_sequences)
    assert gm_sequences == sorted(player_sequences + gm_only)
    assert first["results"][0]["text"]["fr"]


def test_it_validates_participants_and_adjustments(table: Any, fight: dict[str, Any]) -> None:
    encounter, pc = fight["encounter"], fight["pc"]
    api = token_client(table.gm)
    url = f"/api/v1/encounters/{encounter.pk}/participants/"
    assert_error(api.post(url, {"name": ""}, format="json"), 400, "invalid", "name")
    assert_error(api.post(url, {"name": "Loup", "count": 50}, format="json"), 400, "invalid", "count")
    assert_error(api.post(url, {"character": 999999}, format="json"), 400, "invalid", "character")
    added = api.post(url, {"name": "Loup", "count": 2, "side": "opponents"}, format="json")
    assert added.status_code == 201 and [p["name"] for p in added.json()] == ["Loup 1", "Loup 2"]
    adjust = f"/api/v1/participants/{pc.pk}/adjust/"
    assert_error(
        api.post(adjust, {"path": "nope", "value": 1, "reason": "test"}, format="json"), 400, "invalid", "path"
    )
    assert_error(api.post(adjust, {"path": "nope", "value": 1}, format="json"), 400, "invalid", "reason")
    assert_error(
        token_client(table.player).post(adjust, {"path": "x", "value": 1, "reason": "r"}, format="json"),
        403,
        "permission_denied",
    )
