"""Scenes: the rhythm a GM sets on a thread, rounds, whose turn it is."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import Campaign, Membership, Notification, Post, Role, Thread
from combat.models import Encounter
from live.events import publish
from rhythm.models import (
    Absence,
    DeadlineAction,
    Draft,
    SceneMode,
    SceneRhythm,
)
from rhythm.services.notifications import notify
from rhythm.turns import TurnState, compute


def scene_for(thread: Thread) -> SceneRhythm:
    """The thread's rhythm; an unsaved free scene when the GM never set one."""
    try:
        return thread.rhythm
    except SceneRhythm.DoesNotExist:
        return SceneRhythm(thread=thread, mode=SceneMode.FREE)


def _require_gm(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if not access.is_gm(user, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))


def _publish_scene(thread: Thread) -> None:
    publish(f"thread:{thread.pk}", "scene-changed", {"thread": thread.pk})


def set_scene_rhythm(
    user: Any,
    thread: Thread,
    *,
    mode: str,
    order: list[int] | None = None,
    use_initiative: bool = False,
    deadline_hours: int | None = None,
    on_deadline: str = DeadlineAction.WAIT,
) -> SceneRhythm:
    """The GM picks how a scene is played; changing the mode starts a new round."""
    campaign = thread.campaign
    _require_gm(user, campaign)
    errors: dict[str, list[str]] = {}
    if mode not in SceneMode.values:
        errors["mode"] = [_("Choose how the scene is played.")]
    if on_deadline not in DeadlineAction.values:
        errors["on_deadline"] = [_("Choose what happens when the deadline passes.")]
    if deadline_hours is not None and not 1 <= int(deadline_hours) <= 24 * 60:
        errors["deadline_hours"] = [_("Give a deadline between 1 hour and 60 days.")]
    ids = [int(pk) for pk in (order or [])]
    if len(set(ids)) != len(ids):
        errors["order"] = [_("Each member can appear only once in the order.")]
    elif ids:
        found = set(
            Membership.objects.filter(campaign=campaign, user_id__in=ids, role=Role.PLAYER).values_list(
                "user_id", flat=True
            )
        )
        if found != set(ids):
            errors["order"] = [_("The order lists players of the campaign only.")]
    if errors:
        raise ValidationError(errors)
    now = timezone.now()
    with transaction.atomic():
        scene, _created = SceneRhythm.objects.select_for_update().get_or_create(thread=thread)
        new_round = scene.mode != mode or scene.order != ids
        scene.mode = mode
        scene.order = ids
        scene.use_initiative = bool(use_initiative)
        scene.deadline_hours = int(deadline_hours) if deadline_hours else None
        scene.on_deadline = on_deadline
        if new_round or scene.round_started_at is None:
            _start_round(scene, thread, now, bump=not _created and new_round)
        scene.save()
        transaction.on_commit(lambda: _publish_scene(thread))
    return scene


def _start_round(
    scene: SceneRhythm, thread: Thread, now: dt.datetime, *, bump: bool = True, after: int | None = None
) -> None:
    """A new round begins after post number ``after`` (default: the thread's last post)."""
    if bump:
        scene.round += 1
    if after is None:
        after = Post.objects.filter(thread_id=thread.pk).order_by("-number").values_list("number", flat=True).first()
    scene.round_start = after or 0
    scene.round_started_at = now
    scene.turn_started_at = now


def close_round(user: Any, thread: Thread) -> SceneRhythm:
    """The GM closes the round now (by rounds or strict order)."""
    _require_gm(user, thread.campaign)
    with transaction.atomic():
        scene = SceneRhythm.objects.select_for_update().filter(thread=thread).first()
        if scene is None or scene.mode == SceneMode.FREE:
            raise ValidationError({"mode": [_("This scene is played freely: it has no rounds.")]})
        _start_round(scene, thread, timezone.now())
        scene.save()
        transaction.on_commit(lambda: _publish_scene(thread))
    _notify_turn(scene)
    return scene


def participants(scene: SceneRhythm) -> list[int]:
    """User ids taking part, in order: the GM's list, the encounter's initiative, or the players."""
    if scene.use_initiative:
        ordered = _initiative_order(scene.thread)
        if ordered:
            return ordered
    if scene.order:
        return [int(pk) for pk in scene.order]
    return list(
        Membership.objects.filter(campaign_id=scene.thread.campaign_id, role=Role.PLAYER)
        .order_by("joined", "id")
        .values_list("user_id", flat=True)
    )


def _initiative_order(thread: Thread) -> list[int]:
    """Owners of the player characters of the thread's running encounter, in initiative order."""
    encounter = Encounter.objects.filter(thread=thread).exclude(status="ended").order_by("-id").first()
    if encounter is None:
        return []
    current = encounter.rounds.order_by("-number").first() if hasattr(encounter, "rounds") else None
    order_ids = [str(i) for i in ((current.order if current else None) or [])] if current else []
    by_id = {
        str(p.pk): p.character.owner_id
        for p in encounter.participants.select_related("character")
        if p.character_id and not p.character.is_npc and p.character.owner_id
    }
    owners = [by_id[i] for i in order_ids if i in by_id] or list(by_id.values())
    return list(dict.fromkeys(owners))


def absent_user_ids(campaign: Campaign, day: dt.date | None = None) -> set[int]:
    """Members away on ``day`` (an absence for this campaign or site-wide)."""
    day = day or timezone.localdate()
    qs = Absence.objects.filter(starts__lte=day, ends__gte=day)
    return set(qs.filter(campaign__isnull=True).values_list("user_id", flat=True)) | set(
        qs.filter(campaign=campaign).values_list("user_id", flat=True)
    )


def _round_authors(scene: SceneRhythm) -> list[int]:
    return list(
        Post.objects.filter(
            thread_id=scene.thread_id, number__gt=scene.round_start, is_system=False, author__isnull=False
        )
        .order_by("number")
        .values_list("author_id", flat=True)
    )


def turn_state(scene: SceneRhythm, *, now: dt.datetime | None = None) -> TurnState:
    if scene.mode == SceneMode.FREE or scene.pk is None:
        return TurnState(mode=SceneMode.FREE, participants=[], posted=[])
    return compute(
        scene.mode,
        participants(scene),
        _round_authors(scene),
        absent=absent_user_ids(scene.thread.campaign, (now or timezone.now()).date()),
        skipped=scene.skips.filter(round=scene.round).values_list("user_id", flat=True),
    )


def deadline_at(scene: SceneRhythm) -> dt.datetime | None:
    if not scene.deadline_hours or scene.mode == SceneMode.FREE:
        return None
    start = scene.turn_started_at if scene.mode == SceneMode.ORDER else scene.round_started_at
    return start + dt.timedelta(hours=scene.deadline_hours) if start else None


@dataclass
class SceneView:
    """What a reader sees of a scene's rhythm (thread header, home page, API)."""

    mode: str
    mode_label: str
    round: int
    waiting_on: list[Any] = field(default_factory=list)
    posted: list[Any] = field(default_factory=list)
    absent: list[Any] = field(default_factory=list)
    current: Any = None
    my_turn: bool = False
    deadline_at: dt.datetime | None = None
    since: dt.datetime | None = None
    absences: dict[int, str] = field(default_factory=dict)


def scene_view(user: Any, thread: Thread) -> SceneView:
    """The rhythm read model of a thread for ``user`` (who already may read it)."""
    scene = scene_for(thread)
    state = turn_state(scene)
    ids = set(state.participants)
    users = (
        {u.pk: u for u in get_user_model().objects.filter(pk__in=ids).select_related("profile")} if ids else {}
    )  # a free scene (most threads) has no participants: no queryset to build
    pick = lambda pks: [users[pk] for pk in pks if pk in users]  # noqa: E731
    messages = {}
    if state.absent:
        day = timezone.localdate()
        for absence in Absence.objects.filter(user_id__in=state.absent, starts__lte=day, ends__gte=day):
            messages[absence.user_id] = absence.message
    return SceneView(
        mode=scene.mode,
        mode_label=str(SceneMode(scene.mode).label),
        round=scene.round,
        waiting_on=pick(state.waiting_on),
        posted=pick(state.posted),
        absent=pick(state.absent),
        current=users.get(state.current) if state.current else None,
        my_turn=bool(user.is_authenticated and user.pk in state.waiting_on),
        deadline_at=deadline_at(scene),
        since=scene.turn_started_at if scene.mode == SceneMode.ORDER else scene.round_started_at,
        absences=messages,
    )


def on_post_created(post: Post) -> None:
    """After a post: clear the author's draft; close the round when everyone has posted; tell the next one."""
    if post.author_id:
        Draft.objects.filter(user_id=post.author_id, thread_id=post.thread_id).delete()
    scene = SceneRhythm.objects.filter(thread_id=post.thread_id).exclude(mode=SceneMode.FREE).first()
    if scene is None or post.is_system:
        return
    now = timezone.now()
    with transaction.atomic():
        scene = SceneRhythm.objects.select_for_update().get(pk=scene.pk)
        state = turn_state(scene, now=now)
        if state.complete:
            _start_round(scene, post.thread, now, after=post.number)
            scene.save()
        elif scene.mode == SceneMode.ORDER and post.author_id in state.posted:
            scene.turn_started_at = now
            scene.save(update_fields=["turn_started_at", "updated"])
        else:
            return
        transaction.on_commit(lambda: _publish_scene(post.thread))
    _notify_turn(scene)


def _notify_turn(scene: SceneRhythm) -> None:
    """Tell the member(s) the scene now waits on that it is their turn (once per round)."""
    state = turn_state(scene)
    for pk in state.waiting_on if scene.mode == SceneMode.ORDER else []:
        if Notification.objects.filter(
            user_id=pk, kind=Notification.Kind.TURN, thread_id=scene.thread_id, created__gte=scene.turn_started_at
        ).exists():
            continue
        notify(
            Notification.Kind.TURN,
            [pk],
            scene.thread.campaign,
            thread=scene.thread,
            text=scene.thread.title,
            url=reverse("campaigns:thread", args=[scene.thread_id]),
        )
