"""The rhythm of slow play: scene modes, waiting on you, deadlines, absences,
nudges, loop notifications and drafts."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from campaigns import services as campaign_services
from campaigns.models import Board, Notification, Post, Thread
from conftest import make_table
from rhythm import services
from rhythm.models import Absence, Draft, NotificationPreference, Nudge, SceneRhythm, TurnSkip
from rhythm.turns import compute

pytestmark = pytest.mark.django_db


def _thread(table: Any, title: str = "La taverne") -> Thread:
    board = Board.objects.filter(campaign=table.campaign).first()
    return campaign_services.create_thread(table.gm, board, title=title, body="La scène s'ouvre.")


def _post(user: Any, thread: Thread, body: str = "J'entre.") -> Post:
    return campaign_services.create_post(user, thread, body=body)


def _kinds(user: Any) -> list[str]:
    return list(Notification.objects.filter(user=user).values_list("kind", flat=True))


# ---------------------------------------------------------------------------
# The pure computation
# ---------------------------------------------------------------------------
def test_it_computes_free_rounds_and_order() -> None:
    assert compute("free", [1, 2], [1]).waiting_on == []
    rounds = compute("rounds", [1, 2, 3], [9, 2])
    assert rounds.waiting_on == [1, 3] and rounds.posted == [2] and not rounds.complete
    assert compute("rounds", [1, 2], [2, 1, 2]).complete
    order = compute("order", [1, 2, 3], [1])
    assert order.current == 2 and order.waiting_on == [2]
    assert compute("order", [1, 2, 3], [1], absent=[2]).current == 3
    assert compute("order", [1, 2, 3], [], skipped=[1]).current == 2
    assert compute("order", [1, 2], [1], absent=[2]).complete


# ---------------------------------------------------------------------------
# Scene modes as posts arrive
# ---------------------------------------------------------------------------
def test_it_runs_a_scene_by_rounds() -> None:
    table = make_table("ambre")
    thread = _thread(table)
    services.set_scene_rhythm(table.gm, thread, mode="rounds")
    state = services.turn_state(services.scene_for(thread))
    assert state.waiting_on == [table.player.pk, table.player2.pk]
    _post(table.player, thread)
    state = services.turn_state(SceneRhythm.objects.get(thread=thread))
    assert state.waiting_on == [table.player2.pk] and state.posted == [table.player.pk]
    _post(table.gm, thread, "Le MJ décrit.")  # the GM's posts do not count
    _post(table.player2, thread)
    scene = SceneRhythm.objects.get(thread=thread)
    assert scene.round == 2  # everyone posted: a new round
    assert services.turn_state(scene).waiting_on == [table.player.pk, table.player2.pk]


def test_it_runs_a_scene_in_strict_order_and_skips_the_absent() -> None:
    table = make_table("ambre")
    thread = _thread(table)
    services.set_scene_rhythm(table.gm, thread, mode="order", order=[table.player2.pk, table.player.pk])
    scene = SceneRhythm.objects.get(thread=thread)
    assert services.turn_state(scene).current == table.player2.pk
    today = timezone.localdate()
    services.declare_absence(table.player2, starts=today, ends=today + dt.timedelta(days=3), message="Vacances")
    assert services.turn_state(scene).current == table.player.pk
    view = services.scene_view(table.gm, thread)
    assert [u.pk for u in view.absent] == [table.player2.pk] and view.absences[table.player2.pk] == "Vacances"
    _post(table.player, thread)
    scene.refresh_from_db()
    assert scene.round == 2  # the absent member is passed over, the round closes
    # Next in order is told it is their turn.
    assert Notification.objects.filter(user=table.player, kind="turn", thread=thread).exists()


def test_it_lets_only_gms_set_the_scene() -> None:
    table = make_table("ambre")
    thread = _thread(table)
    with pytest.raises(PermissionDenied):
        services.set_scene_rhythm(table.player, thread, mode="rounds")
    with pytest.raises(ValidationError):
        services.set_scene_rhythm(table.gm, thread, mode="rounds", order=[table.spectator.pk])
    assert not SceneRhythm.objects.exists()


def test_it_shows_whose_turn_in_the_thread_header(client: Any) -> None:
    table = make_table("ambre")
    thread = _thread(table)
    services.set_scene_rhythm(table.gm, thread, mode="order", order=[table.player.pk, table.player2.pk])
    client.force_login(table.player)
    page = client.get(f"/campaigns/threads/{thread.pk}/").content.decode()
    assert "À vous de jouer" in page
    client.force_login(table.player2)
    page = client.get(f"/campaigns/threads/{thread.pk}/").content.decode()
    assert "À vous de jouer" not in page and "À qui le tour" in page
    assert client.get(f"/rhythm/threads/{thread.pk}/scene/").status_code == 404  # players: no settings page
    client.force_login(table.outsider)
    assert client.get(f"/rhythm/threads/{thread.pk}/scene/header/").status_code == 404


# ---------------------------------------------------------------------------
# Waiting on you
# ---------------------------------------------------------------------------
def test_it_lists_what_waits_on_a_player_and_a_gm_across_campaigns(client: Any) -> None:
    one = make_table("ambre")
    two = make_table("altaride", prefix="b")
    # The same player sits at both tables.
    from campaigns.models import Membership, Role

    Membership.objects.create(campaign=two.campaign, user=one.player, role=Role.PLAYER)
    scene_one = _thread(one, "Scène un")
    scene_two = _thread(two, "Scène deux")
    services.set_scene_rhythm(one.gm, scene_one, mode="order", order=[one.player.pk], deadline_hours=48)
    services.set_scene_rhythm(two.gm, scene_two, mode="rounds")
    campaign_services.invite_member(two.gm, two.campaign, username=one.player2.username)
    items = services.waiting_on_you(one.player)
    assert [i.kind for i in items] == ["turn", "turn"]
    assert items[0].deadline is not None
    assert {i.campaign.pk for i in items} == {one.campaign.pk, two.campaign.pk}
    assert [i.kind for i in services.waiting_on_you(one.player2)] == ["invitation"]
    assert services.waiting_on_you(one.spectator) == []
    client.force_login(one.player)
    home = client.get("/").content.decode()
    assert "Scène un" in home and "Scène deux" in home
    # The GM sees who each scene waits on, on the campaign page.
    client.force_login(one.gm)
    page = client.get(f"/campaigns/{one.campaign.slug}/").content.decode()
    assert "Scènes en attente" in page and "Scène un" in page
    client.force_login(one.player)
    assert "Scènes en attente" not in client.get(f"/campaigns/{one.campaign.slug}/").content.decode()


def test_it_lists_sheets_and_changes_for_the_gm() -> None:
    table = make_table("ambre")
    from characters.models import Character

    Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Brand", status=Character.Status.SUBMITTED
    )
    kinds = [i.kind for i in services.waiting_on_you(table.gm)]
    assert "sheet_submitted" in kinds
    assert "sheet_submitted" not in [i.kind for i in services.waiting_on_you(table.player2)]


# ---------------------------------------------------------------------------
# Deadlines on a fake clock
# ---------------------------------------------------------------------------
def _timed_scene(table: Any, on_deadline: str) -> Thread:
    thread = _thread(table)
    services.set_scene_rhythm(
        table.gm,
        thread,
        mode="order",
        order=[table.player.pk, table.player2.pk],
        deadline_hours=48,
        on_deadline=on_deadline,
    )
    return thread


@pytest.mark.parametrize("choice", ["wait", "skip", "default"])
def test_it_applies_the_gms_deadline_choice_once(choice: str) -> None:
    table = make_table("ambre")
    thread = _timed_scene(table, choice)
    scene = SceneRhythm.objects.get(thread=thread)
    later = scene.turn_started_at + dt.timedelta(hours=49)
    services.run_reminders(later)
    services.run_reminders(later)  # the beat task ran twice
    scene.refresh_from_db()
    skips = TurnSkip.objects.filter(scene=scene)
    if choice == "wait":
        assert not skips.exists()
        assert services.turn_state(scene).current == table.player.pk
    else:
        assert list(skips.values_list("user_id", "reason")) == [
            (table.player.pk, "deadline" if choice == "skip" else "default")
        ]
        assert services.turn_state(scene).current == table.player2.pk
        notes = Post.objects.filter(thread=thread, is_system=True)
        assert notes.count() == 1
        expected = "action par défaut" if choice == "default" else "passe son tour"
        assert expected in notes.get().body and "Délai dépassé" in notes.get().body


def test_it_nudges_in_app_then_by_email_once_per_round() -> None:
    table = make_table("ambre")
    thread = _timed_scene(table, "wait")
    scene = SceneRhythm.objects.get(thread=thread)
    start = scene.turn_started_at
    services.run_reminders(start + dt.timedelta(hours=10))
    assert not Nudge.objects.exists()
    services.run_reminders(start + dt.timedelta(hours=40))
    services.run_reminders(start + dt.timedelta(hours=41))
    assert list(Nudge.objects.values_list("user_id", "level")) == [(table.player.pk, "app")]
    assert _kinds(table.player).count("nudge") == 1
    assert "nudge" not in _kinds(table.player2)
    services.run_reminders(start + dt.timedelta(hours=50))
    services.run_reminders(start + dt.timedelta(hours=51))
    assert len([m for m in mail.outbox if table.player.email in m.to]) == 1


def test_it_respects_nudge_settings_and_quiet_hours() -> None:
    table = make_table("ambre")
    thread = _timed_scene(table, "wait")
    NotificationPreference.objects.create(user=table.player, kind="nudge", delivery="off")
    scene = SceneRhythm.objects.get(thread=thread)
    services.run_reminders(scene.turn_started_at + dt.timedelta(hours=50))
    assert "nudge" not in _kinds(table.player) and not mail.outbox
    # Quiet hours: the e-mail waits until they end.
    other = make_table("sms", prefix="q")
    thread2 = _timed_scene(other, "wait")
    scene2 = SceneRhythm.objects.get(thread=thread2)
    services.set_member_rhythm(other.player, timezone_name="UTC", quiet_start=0, quiet_end=23)
    night = (scene2.turn_started_at + dt.timedelta(hours=50)).replace(hour=3)
    if night < scene2.turn_started_at + dt.timedelta(hours=48):
        night += dt.timedelta(days=1)
    services.run_reminders(night)
    assert not [m for m in mail.outbox if other.player.email in m.to]
    services.run_reminders(night.replace(hour=23, minute=30))
    assert len([m for m in mail.outbox if other.player.email in m.to]) == 1


def test_it_lets_the_gm_nudge_by_hand_once(client: Any) -> None:
    table = make_table("ambre")
    thread = _timed_scene(table, "wait")
    assert services.nudge(table.gm, thread, table.player.pk)
    assert not services.nudge(table.gm, thread, table.player.pk)
    with pytest.raises(ValidationError):
        services.nudge(table.gm, thread, table.player2.pk)  # not their turn
    with pytest.raises(PermissionDenied):
        services.nudge(table.player2, thread, table.player.pk)
    client.force_login(table.player2)
    assert client.post(f"/rhythm/threads/{thread.pk}/scene/nudge/{table.player.pk}/").status_code == 404
    assert _kinds(table.player).count("nudge") == 1


# ---------------------------------------------------------------------------
# Absences
# ---------------------------------------------------------------------------
def test_it_refuses_bad_absences(client: Any) -> None:
    table = make_table("ambre")
    today = timezone.localdate()
    with pytest.raises(ValidationError):
        services.declare_absence(table.player, starts=today, ends=today - dt.timedelta(days=1))
    client.force_login(table.player)
    response = client.post(
        "/rhythm/absences/", {"starts": str(today), "ends": str(today - dt.timedelta(days=2)), "campaign": ""}
    )
    assert response.status_code == 200 and "se termine avant" in response.content.decode()
    assert not Absence.objects.exists()
    response = client.post(
        "/rhythm/absences/", {"starts": str(today), "ends": str(today), "campaign": str(table.campaign.pk)}
    )
    assert response.status_code == 302 and Absence.objects.get().campaign == table.campaign
    other = make_table("sms", prefix="o")
    response = client.post(
        "/rhythm/absences/", {"starts": str(today), "ends": str(today), "campaign": str(other.campaign.pk)}
    )
    assert response.status_code == 200 and Absence.objects.count() == 1


# ---------------------------------------------------------------------------
# A notification for every step of the loop, to the right people only
# ---------------------------------------------------------------------------
def test_it_tells_gms_of_a_gm_only_post_and_nobody_else() -> None:
    table = make_table("ambre")
    thread = _thread(table)
    campaign_services.create_post(table.player, thread, body="Psst, MJ.", visibility=Post.Visibility.GM_ONLY)
    assert "gm_only_post" in _kinds(table.gm) and "gm_only_post" in _kinds(table.cogm)
    for user in (table.player, table.player2, table.spectator, table.outsider):
        assert "gm_only_post" not in _kinds(user)


def test_it_notifies_each_sheet_step() -> None:
    from characters import services as character_services
    from characters.models import Character

    table = make_table("ambre")
    character = Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Fiona", status=Character.Status.SUBMITTED
    )
    character_services.return_character(table.gm, character, comment="Revois tes pouvoirs.")
    assert _kinds(table.player) == ["sheet_returned"]
    for user in (table.player2, table.spectator, table.cogm):
        assert "sheet_returned" not in _kinds(user)


def test_it_notifies_sessions_to_members_only() -> None:
    table = make_table("ambre")
    session = campaign_services.open_session(table.gm, table.campaign, title="Séance 1")
    campaign_services.close_session(table.gm, session)
    for user in (table.player, table.player2, table.spectator, table.cogm):
        assert {"session_opened", "session_closed"} <= set(_kinds(user))
    assert not _kinds(table.outsider)
    assert "session_opened" not in _kinds(table.gm)  # never told of one's own action


def test_it_honours_per_kind_delivery(django_capture_on_commit_callbacks: Any) -> None:
    table = make_table("ambre")
    NotificationPreference.objects.create(user=table.player, kind="session_opened", delivery="off")
    NotificationPreference.objects.create(user=table.player2, kind="session_opened", delivery="email")
    with django_capture_on_commit_callbacks(execute=True):
        campaign_services.open_session(table.gm, table.campaign, title="Séance 1")
    assert "session_opened" not in _kinds(table.player)
    assert "session_opened" in _kinds(table.player2)
    assert [m.to for m in mail.outbox] == [[table.player2.email]]
    assert "séance" in mail.outbox[0].subject.lower()


def test_it_saves_preferences_with_field_errors(client: Any) -> None:
    table = make_table("ambre")
    client.force_login(table.player)
    from rhythm import kinds

    data = {f"kind_{k}": "app" for k in kinds.LABELS}
    data.update({"timezone": "Mars/Olympus", "kind_turn": "email"})
    response = client.post("/rhythm/settings/", data)
    assert response.status_code == 200 and "Fuseau horaire inconnu" in response.content.decode()
    assert not NotificationPreference.objects.exists()
    data["timezone"] = "Europe/Paris"
    assert client.post("/rhythm/settings/", data).status_code == 302
    assert NotificationPreference.objects.get(user=table.player, kind="turn").delivery == "email"


# ---------------------------------------------------------------------------
# Drafts
# ---------------------------------------------------------------------------
def test_it_keeps_a_draft_across_reloads_and_failed_submits(client: Any) -> None:
    table = make_table("ambre")
    thread = _thread(table)
    client.force_login(table.player)
    url = f"/rhythm/threads/{thread.pk}/draft/"
    assert client.post(url, {"body": "Un long message en cours…"}).json() == {"saved": True}
    assert client.get(url).json()["body"] == "Un long message en cours…"  # another device, after a reload
    # A failed submit (an invalid dice expression) keeps the draft.
    response = client.post(
        f"/campaigns/threads/{thread.pk}/reply/", {"body": "Un long message", "visibility": "public", "rolls": "1d"}
    )
    assert response.status_code == 400
    assert Draft.objects.filter(user=table.player, thread=thread).exists()
    # Posting clears it.
    _post(table.player, thread, "Un long message enfin posté.")
    assert not Draft.objects.filter(user=table.player, thread=thread).exists()
    client.force_login(table.outsider)
    assert client.post(url, {"body": "x"}).status_code == 404


def test_it_sends_digest_kinds_in_the_digest_only() -> None:
    from campaigns.tasks import send_notification_digests

    table = make_table("ambre")
    NotificationPreference.objects.create(user=table.player, kind="session_opened", delivery="digest")
    NotificationPreference.objects.create(user=table.player, kind="session_closed", delivery="off")
    session = campaign_services.open_session(table.gm, table.campaign, title="Séance 1")
    campaign_services.close_session(table.gm, session)
    assert send_notification_digests() == 1
    assert [m.to for m in mail.outbox] == [[table.player.email]]
    body = mail.outbox[0].body
    assert "séance ouverte" in body and "séance close" not in body
    assert send_notification_digests() == 0  # nothing twice


def test_it_runs_the_tick_command(capsys: Any) -> None:
    from django.core.management import call_command

    call_command("rhythm_tick")
    assert "reminders" in capsys.readouterr().out
