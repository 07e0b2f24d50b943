"""Campaigns through the API: directory, detail, create/update, members,
invitations, join requests, sessions (DESIGN.md permission rows)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from api.tests.conftest import assert_error, token_client
from campaigns.models import Campaign, JoinRequest, Membership, PlaySession

pytestmark = pytest.mark.django_db


def test_it_lists_public_campaigns_and_your_own(table: Any, public_table: Any) -> None:
    anonymous = [c["slug"] for c in APIClient().get("/api/v1/campaigns/").json()["results"]]
    assert anonymous == [public_table.campaign.slug]
    outsider = [c["slug"] for c in token_client(table.outsider).get("/api/v1/campaigns/").json()["results"]]
    assert outsider == [public_table.campaign.slug]
    spectator = token_client(table.spectator).get("/api/v1/campaigns/?mine=true").json()
    assert [c["slug"] for c in spectator["results"]] == [table.campaign.slug]
    assert spectator["results"][0]["my_role"] == "spectator"
    moderator = token_client(table.moderator).get("/api/v1/campaigns/").json()
    assert moderator["count"] == 2
    filtered = APIClient().get("/api/v1/campaigns/?system=ambre").json()
    assert filtered["count"] == 0


def test_it_answers_404_for_a_private_campaign_you_may_not_see(table: Any) -> None:
    url = f"/api/v1/campaigns/{table.campaign.slug}/"
    assert_error(APIClient().get(url), 404, "not_found")
    assert_error(token_client(table.outsider).get(url), 404, "not_found")
    assert_error(token_client(table.outsider).get(f"/api/v1/campaigns/{table.campaign.pk}/members/"), 404, "not_found")
    body = token_client(table.spectator).get(url).json()
    assert body["title"] == table.campaign.title and body["gm"]["username"] == "gm"
    assert token_client(table.moderator).get(url).status_code == 200


def test_it_creates_a_campaign_through_the_service() -> None:
    from conftest import make_user

    user = make_user("alice")
    api = token_client(user)
    response = api.post("/api/v1/campaigns/", {"title": "Les Ombres", "system": "sms"}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["my_role"] == "gm" and body["system"] == "sms"
    campaign = Campaign.objects.get(pk=body["id"])
    assert Membership.objects.get(campaign=campaign).user == user
    assert campaign.boards.count() == 3  # the service's default boards


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"title": "", "system": "sms"}, "title"),
        ({"title": "T", "system": "gurps"}, "system"),
        ({"title": "T"}, "system"),
        ({"title": "x" * 121, "system": "sms"}, "title"),
        ({"title": "T", "system": "sms", "language": "de"}, "language"),
    ],
)
def test_it_refuses_bad_campaigns_with_field_errors(table: Any, payload: dict[str, Any], field: str) -> None:
    before = Campaign.objects.count()
    assert_error(token_client(table.outsider).post("/api/v1/campaigns/", payload, format="json"), 400, "invalid", field)
    assert Campaign.objects.count() == before


def test_it_refuses_anonymous_campaign_creation() -> None:
    assert_error(
        APIClient().post("/api/v1/campaigns/", {"title": "T", "system": "sms"}, format="json"), 401, "not_authenticated"
    )


@pytest.mark.parametrize(
    ("role", "status"), [("gm", 200), ("cogm", 403), ("player", 403), ("spectator", 403), ("outsider", 404)]
)
def test_it_lets_only_the_gm_change_the_public_listing(table: Any, role: str, status: int) -> None:
    user = table.users()[role]
    response = token_client(user).patch(f"/api/v1/campaigns/{table.campaign.pk}/", {"recruiting": True}, format="json")
    assert response.status_code == status
    table.campaign.refresh_from_db()
    assert table.campaign.recruiting is (status == 200)
    assert table.campaign.title == "Table ambre"


def test_it_changes_roles_only_for_the_gm(table: Any) -> None:
    url = f"/api/v1/campaigns/{table.campaign.pk}/members/{table.player.pk}/"
    assert_error(token_client(table.cogm).patch(url, {"role": "spectator"}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).patch(url, {"role": "spectator"}, format="json"), 404, "not_found")
    assert_error(token_client(table.gm).patch(url, {"role": "gm"}, format="json"), 400, "invalid", "role")
    assert Membership.objects.get(campaign=table.campaign, user=table.player).role == "player"
    response = token_client(table.gm).patch(url, {"role": "cogm"}, format="json")
    assert response.status_code == 200 and response.json()["role"] == "cogm"


def test_it_lets_a_member_leave_and_a_gm_remove(table: Any) -> None:
    base = f"/api/v1/campaigns/{table.campaign.pk}/members/"
    assert_error(token_client(table.player).delete(f"{base}{table.player2.pk}/"), 403, "permission_denied")
    assert token_client(table.player).delete(f"{base}{table.player.pk}/").status_code == 204
    assert token_client(table.cogm).delete(f"{base}{table.spectator.pk}/").status_code == 204
    assert set(Membership.objects.filter(campaign=table.campaign).values_list("user__username", flat=True)) == {
        "gm",
        "cogm",
        "player2",
    }


def test_it_runs_an_invitation_from_gm_to_invitee(table: Any) -> None:
    url = f"/api/v1/campaigns/{table.campaign.pk}/invitations/"
    assert_error(
        token_client(table.player).post(url, {"username": "outsider"}, format="json"), 403, "permission_denied"
    )
    assert_error(token_client(table.gm).post(url, {"username": "nobody"}, format="json"), 400, "invalid", "username")
    created = token_client(table.gm).post(url, {"username": "outsider", "role": "spectator"}, format="json")
    assert created.status_code == 201
    invitation_id = created.json()["id"]
    assert token_client(table.player).get(url).status_code == 404  # pending invitations: GMs only
    mine = token_client(table.outsider).get("/api/v1/me/invitations/").json()
    assert [i["id"] for i in mine["results"]] == [invitation_id]
    # Someone else cannot answer it.
    assert_error(token_client(table.player2).post(f"/api/v1/invitations/{invitation_id}/accept/"), 404, "not_found")
    accepted = token_client(table.outsider).post(f"/api/v1/invitations/{invitation_id}/accept/")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).role == "spectator"


def test_it_runs_a_join_request(public_table: Any, table: Any) -> None:
    campaign = public_table.campaign
    url = f"/api/v1/campaigns/{campaign.pk}/join-requests/"
    body = assert_error(token_client(table.outsider).post(url, {"message": "Bonjour"}, format="json"), 400, "invalid")
    assert body["errors"][0]["field"] == "message"  # not recruiting
    Campaign.objects.filter(pk=campaign.pk).update(recruiting=True)
    created = token_client(table.outsider).post(url, {"message": "Bonjour"}, format="json")
    assert created.status_code == 201
    join_id = created.json()["id"]
    assert [j["id"] for j in token_client(public_table.gm).get(url).json()["results"]] == [join_id]
    assert token_client(public_table.player).get(url).json()["results"] == []
    assert_error(
        token_client(table.outsider).post(f"/api/v1/join-requests/{join_id}/accept/"), 403, "permission_denied"
    )
    assert_error(token_client(table.gm).post(f"/api/v1/join-requests/{join_id}/accept/"), 404, "not_found")
    decided = token_client(public_table.cogm).post(
        f"/api/v1/join-requests/{join_id}/accept/", {"role": "player"}, format="json"
    )
    assert decided.status_code == 200 and decided.json()["status"] == "accepted"
    assert JoinRequest.objects.get(pk=join_id).status == "accepted"
    assert Membership.objects.get(campaign=campaign, user=table.outsider).role == "player"


def test_it_opens_and_closes_sessions_for_gms_only(table: Any) -> None:
    url = f"/api/v1/campaigns/{table.campaign.pk}/sessions/"
    assert_error(token_client(table.player).post(url, {"title": "S1"}, format="json"), 403, "permission_denied")
    assert_error(token_client(table.outsider).post(url, {"title": "S1"}, format="json"), 404, "not_found")
    assert_error(token_client(table.gm).post(url, {"title": "x" * 121}, format="json"), 400, "invalid", "title")
    opened = token_client(table.gm).post(url, {"title": "Séance 1"}, format="json")
    assert opened.status_code == 201 and opened.json()["number"] == 1
    body = assert_error(token_client(table.gm).post(url, {}, format="json"), 400, "invalid")
    assert body["errors"][0]["field"] == ""  # one open session at a time
    session_id = opened.json()["id"]
    assert token_client(table.spectator).get(url).json()["count"] == 1
    assert_error(token_client(table.player).post(f"/api/v1/sessions/{session_id}/close/"), 403, "permission_denied")
    closed = token_client(table.cogm).post(f"/api/v1/sessions/{session_id}/close/")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert PlaySession.objects.get(pk=session_id).status == "closed"
    assert_error(token_client(table.outsider).get(f"/api/v1/sessions/{session_id}/"), 404, "not_found")


def test_it_lists_the_directory_in_a_bounded_number_of_queries(table: Any, django_assert_max_num_queries: Any) -> None:
    from conftest import make_table

    for index in range(5):
        make_table("sms", is_public=True, prefix=f"d{index}")
    api = token_client(table.spectator)
    api.get("/api/v1/me/")  # warm the token lookup
    with django_assert_max_num_queries(12):
        body = api.get("/api/v1/campaigns/").json()
    assert body["count"] == 6
    assert {c["gm"]["username"] for c in body["results"]} >= {"d0gm", "gm"}
    assert {c["my_role"] for c in body["results"]} == {None, "spectator"}
