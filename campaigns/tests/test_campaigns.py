"""Campaigns, memberships, boards and sessions."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import Http404
from django.urls import reverse
from django.utils import translation

from campaigns import services
from campaigns.models import Campaign, Invitation, JoinRequest, Membership, Notification, PlaySession, Post, Roll
from campaigns.signals import session_closed
from campaigns.tasks import send_notification_digests

pytestmark = pytest.mark.django_db


# --- creation and settings -------------------------------------------------------------
def test_it_creates_a_campaign_with_its_gm_and_default_boards(client: Any, make_user_fixture: Any) -> None:
    user = make_user_fixture("fondatrice")
    client.force_login(user)
    response = client.post(
        reverse("campaigns:create"),
        {"title": "La Tour d'Argent", "pitch": "Intrigues", "system": "sms", "language": "fr", "is_public": "on"},
    )
    campaign = Campaign.objects.get(title="La Tour d'Argent")
    assert response.status_code == 302 and response.url == reverse("campaigns:detail", args=[campaign.slug])
    assert Membership.objects.get(campaign=campaign).user == user
    assert Membership.objects.get(campaign=campaign).role == "gm"
    assert list(campaign.boards.values_list("name", "kind")) == [
        ("En jeu", "ic"),
        ("Hors jeu", "ooc"),
        ("Règles et organisation", "meta"),
    ]
    assert campaign.invite_token


def test_it_refuses_bad_campaign_input_with_field_errors(client: Any, make_user_fixture: Any) -> None:
    client.force_login(make_user_fixture("x"))
    response = client.post(reverse("campaigns:create"), {"title": "  ", "system": "monopoly", "language": "fr"})
    assert response.status_code == 200
    form = response.context["form"]
    assert "title" in form.errors and "system" in form.errors
    assert not Campaign.objects.exists()
    with pytest.raises(ValidationError) as exc:
        services.create_campaign(make_user_fixture("y"), title="T", system="monopoly")
    assert "system" in exc.value.message_dict


def test_it_avoids_slugs_that_clash_with_pages(make_user_fixture: Any) -> None:
    campaign = services.create_campaign(make_user_fixture("z"), title="New", system="ambre")
    assert campaign.slug == "table-new"


def test_it_renders_and_validates_the_system_settings_generically(client: Any, table: Any) -> None:
    client.force_login(table.gm)
    url = reverse("campaigns:settings", args=[table.campaign.slug])
    html = client.get(url).content.decode()
    system = table.campaign.rule_system
    fields = system.campaign_settings_fields()
    assert fields, "Ambre declares campaign options"
    assert 'name="system__' + fields[0].path.replace(".", "__") + '"' in html
    int_field = next(f for f in fields if f.kind == "int" and f.minimum is not None)
    data = {"title": "Nouveau", "language": "fr", "is_public": "on"}
    data["system__" + int_field.path.replace(".", "__")] = str(int_field.minimum - 1)
    response = client.post(url, data)
    assert response.status_code == 400  # refused: nothing saved
    assert response.context["form"].errors
    table.campaign.refresh_from_db()
    assert table.campaign.title != "Nouveau"
    data["system__" + int_field.path.replace(".", "__")] = str(int_field.minimum)
    response = client.post(url, data)
    assert response.status_code == 302
    table.campaign.refresh_from_db()
    assert table.campaign.title == "Nouveau"
    assert table.campaign.system_settings[int_field.path.split(".")[0]] is not None


def test_it_filters_the_directory_by_system_and_language(client: Any, make_user_fixture: Any) -> None:
    user = make_user_fixture("mj")
    services.create_campaign(user, title="Ambre FR", system="ambre", recruiting=True)
    services.create_campaign(user, title="SMS EN", system="sms", language="en", recruiting=True)
    services.create_campaign(user, title="Privée", system="sms", is_public=False, recruiting=True)
    html = client.get(reverse("campaigns:directory") + "?system=sms").content.decode()
    assert "SMS EN" in html and "Ambre FR" not in html and "Privée" not in html
    html = client.get(reverse("campaigns:directory") + "?language=fr").content.decode()
    assert "Ambre FR" in html and "SMS EN" not in html


# --- memberships ---------------------------------------------------------------------------
def test_it_appoints_co_gms_and_hands_over(table: Any) -> None:
    with pytest.raises(PermissionDenied):
        services.set_member_role(table.cogm, table.campaign, table.player, role="cogm")
    services.set_member_role(table.gm, table.campaign, table.player, role="cogm")
    assert Membership.objects.get(campaign=table.campaign, user=table.player).role == "cogm"
    with pytest.raises(PermissionDenied):
        services.hand_over(table.cogm, table.campaign, table.cogm)
    services.hand_over(table.gm, table.campaign, table.player2)
    roles = dict(Membership.objects.filter(campaign=table.campaign).values_list("user__username", "role"))
    assert roles["player2"] == "gm" and roles["gm"] == "cogm"


def test_it_invites_by_username_and_the_invitee_accepts(client: Any, table: Any) -> None:
    with pytest.raises(PermissionDenied):
        services.invite_member(table.player, table.campaign, username="outsider")
    with pytest.raises(ValidationError):
        services.invite_member(table.gm, table.campaign, username="personne")
    with pytest.raises(ValidationError):
        services.invite_member(table.gm, table.campaign, username="player")
    invitation = services.invite_member(table.cogm, table.campaign, username="outsider", role="spectator")
    assert Notification.objects.filter(user=table.outsider, kind="invitation").exists()
    client.force_login(table.player2)
    assert client.post(reverse("campaigns:invitation_answer", args=[invitation.pk]), {"accept": "1"}).status_code == 404
    client.force_login(table.outsider)
    client.post(reverse("campaigns:invitation_answer", args=[invitation.pk]), {"accept": "1"})
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).role == "spectator"
    assert Invitation.objects.get(pk=invitation.pk).status == "accepted"


def test_it_joins_by_link_and_a_reset_link_stops_working(client: Any, table: Any) -> None:
    Campaign.objects.filter(pk=table.campaign.pk).update(invite_token="ancien-jeton")
    client.force_login(table.outsider)
    url = reverse("campaigns:join_link", args=[table.campaign.slug, "mauvais"])
    assert client.get(url).status_code == 404
    table.campaign.refresh_from_db()
    services.reset_invite_link(table.gm, table.campaign)
    old = reverse("campaigns:join_link", args=[table.campaign.slug, "ancien-jeton"])
    assert client.post(old).status_code == 404
    new = reverse("campaigns:join_link", args=[table.campaign.slug, table.campaign.invite_token])
    assert client.get(new).status_code == 200
    assert client.post(new).status_code == 302
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).role == "player"


def test_it_handles_join_requests(public_table: Any) -> None:
    campaign = public_table.campaign
    with pytest.raises(ValidationError):
        services.request_to_join(public_table.outsider, campaign, message="Je peux venir ?")  # not recruiting
    Campaign.objects.filter(pk=campaign.pk).update(recruiting=True)
    campaign.refresh_from_db()
    join = services.request_to_join(public_table.outsider, campaign, message="Je peux venir ?")
    assert Notification.objects.filter(user=public_table.gm, kind="join").exists()
    with pytest.raises(PermissionDenied):
        services.decide_join_request(public_table.player, join, accept=True)
    services.decide_join_request(public_table.cogm, join, accept=True, role="spectator")
    assert Membership.objects.get(campaign=campaign, user=public_table.outsider).role == "spectator"
    assert JoinRequest.objects.get(pk=join.pk).status == "accepted"
    with pytest.raises(ValidationError):
        services.decide_join_request(public_table.gm, join, accept=False)


def test_it_refuses_join_requests_for_private_campaigns(table: Any) -> None:
    with pytest.raises(Http404):
        services.request_to_join(table.outsider, table.campaign)


def test_it_lets_members_leave_and_keeps_their_posts(table: Any, thread: Any) -> None:
    post = services.create_post(table.player, thread, body="Adieu")
    services.leave_campaign(table.player, table.campaign)
    assert not Membership.objects.filter(campaign=table.campaign, user=table.player).exists()
    assert Post.objects.get(pk=post.pk).author == table.player
    with pytest.raises(ValidationError):
        services.leave_campaign(table.gm, table.campaign)


def test_it_removes_members_but_not_the_gm(table: Any, thread: Any) -> None:
    post = services.create_post(table.player2, thread, body="Je reste dans l'histoire")
    with pytest.raises(PermissionDenied):
        services.remove_member(table.player, table.campaign, table.player2)
    with pytest.raises(PermissionDenied):
        services.remove_member(table.cogm, table.campaign, table.gm)
    services.remove_member(table.cogm, table.campaign, table.player2)
    assert not Membership.objects.filter(campaign=table.campaign, user=table.player2).exists()
    assert Post.objects.filter(pk=post.pk).exists()


# --- boards ----------------------------------------------------------------------------------
def test_it_adds_renames_and_reorders_boards(client: Any, table: Any) -> None:
    board = services.add_board(table.gm, table.campaign, name="Archives", kind="other")
    services.rename_board(table.cogm, board, name="Chroniques")
    services.move_board(table.gm, board, offset=-1)
    names = list(table.campaign.boards.order_by("position").values_list("name", flat=True))
    assert names == ["En jeu", "Chroniques", "Hors jeu"]
    with translation.override("fr"), pytest.raises(ValidationError) as exc:
        services.rename_board(table.gm, board, name="")
    assert exc.value.message_dict["name"] == ["Ce champ est obligatoire."]
    client.force_login(table.gm)
    response = client.post(
        reverse("campaigns:board_move", args=[table.campaign.slug, board.pk]),
        {"direction": "up"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and "Chroniques" in response.content.decode()
    assert table.campaign.boards.order_by("position").first().name == "Chroniques"


# --- sessions ----------------------------------------------------------------------------------
def test_it_opens_and_closes_sessions_and_links_posts_and_rolls(
    table: Any, thread: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with pytest.raises(PermissionDenied):
        services.open_session(table.player, table.campaign)
    session = services.open_session(table.gm, table.campaign, title="Le bal")
    assert session.number == 1 and session.status == "open"
    with pytest.raises(ValidationError):
        services.open_session(table.cogm, table.campaign)
    post = services.create_post(table.player, thread, body="En séance", roll_requests=[{"expression": "1d6"}])
    assert post.session == session
    assert Roll.objects.get(post=post).session == session
    received: list[Any] = []

    def receiver(sender: Any, session: PlaySession, **kwargs: Any) -> None:
        received.append(session.pk)

    session_closed.connect(receiver)
    try:
        with pytest.raises(PermissionDenied):
            services.close_session(table.player, session)
        with pytest.raises(PermissionDenied):
            services.close_session(table.spectator, session)
        with django_capture_on_commit_callbacks(execute=True):
            services.close_session(table.cogm, session)
    finally:
        session_closed.disconnect(receiver)
    assert received == [session.pk]
    assert PlaySession.objects.get(pk=session.pk).status == "closed"
    later = services.create_post(table.player, thread, body="Après")
    assert later.session is None
    assert services.open_session(table.gm, table.campaign).number == 2


def test_the_session_signal_is_not_sent_when_the_transaction_rolls_back(table: Any) -> None:
    from django.db import transaction

    session = services.open_session(table.gm, table.campaign)
    received: list[int] = []
    session_closed.connect(lambda sender, session, **kw: received.append(session.pk), weak=False, dispatch_uid="t")
    try:
        with pytest.raises(RuntimeError), transaction.atomic():
            services.close_session(table.gm, session)
            raise RuntimeError
    finally:
        session_closed.disconnect(dispatch_uid="t")
    assert received == []
    assert PlaySession.objects.get(pk=session.pk).status == "open"


# --- digest and command --------------------------------------------------------------------------
def test_the_digest_mails_unread_notifications_once(table: Any, thread: Any) -> None:
    services.set_email_digest(table.player, enabled=True)
    services.create_post(table.gm, thread, body="@player à toi de jouer")
    services.create_post(table.gm, thread, body="@player2 aussi")  # player2 did not opt in
    assert send_notification_digests() == 1
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["player@example.test"]
    assert "La cour de Rebma" in mail.outbox[0].body
    assert send_notification_digests() == 0
    assert len(mail.outbox) == 1


def test_verify_rolls_command_reports_a_broken_chain(table: Any, thread: Any) -> None:
    services.create_post(table.player, thread, body="x", roll_requests=[{"expression": "1d6"}, {"expression": "1d8"}])
    out = StringIO()
    call_command("verify_rolls", table.campaign.slug, stdout=out)
    assert f"OK     {table.campaign.slug}" in out.getvalue()
    Roll._base_manager.filter(campaign=table.campaign, sequence=1).update(resolution={"draws": [6]})
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_rolls", stdout=out)
    assert "BROKEN" in out.getvalue() and "#1" in out.getvalue()


@pytest.fixture
def make_user_fixture(db: Any) -> Any:
    from conftest import make_user

    return make_user
