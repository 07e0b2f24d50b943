"""Nudges, reminders and deadlines (the periodic tick)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from campaigns import services as campaign_services
from campaigns.models import Membership, Notification, Role, Thread
from campaigns.templatetags.campaigns_tags import member_name
from rhythm.models import (
    DeadlineAction,
    Delivery,
    Nudge,
    SceneMode,
    SceneRhythm,
    TurnSkip,
)
from rhythm.services.notifications import delivery_for, in_quiet_hours, notify
from rhythm.services.scenes import _notify_turn, _publish_scene, _require_gm, _start_round, deadline_at, turn_state

#: Share of the deadline after which the in-app reminder goes out (e.g. 36 h of 48 h).
REMINDER_AT = 0.75


def _record_nudge(scene: SceneRhythm, user_id: int, level: str, sent_by: Any = None) -> bool:
    try:
        with transaction.atomic():
            Nudge.objects.create(scene=scene, round=scene.round, user_id=user_id, level=level, sent_by=sent_by)
    except IntegrityError:
        return False
    return True


def nudge(user: Any, thread: Thread, target_id: int) -> bool:
    """The GM nudges a member by hand (one click); at most once per round."""
    _require_gm(user, thread.campaign)
    scene = SceneRhythm.objects.filter(thread=thread).first()
    if scene is None or scene.mode == SceneMode.FREE:
        raise ValidationError({"mode": [_("This scene is played freely: nobody is waited on.")]})
    if target_id not in turn_state(scene).waiting_on:
        raise ValidationError({"user": [_("The scene is not waiting on this member.")]})
    with transaction.atomic():
        if not _record_nudge(scene, target_id, Nudge.Level.MANUAL, sent_by=user):
            return False
        notify(
            Notification.Kind.NUDGE,
            [target_id],
            thread.campaign,
            actor=user,
            thread=thread,
            text=thread.title,
            url=reverse("campaigns:thread", args=[thread.pk]),
        )
    return True


def run_reminders(now: dt.datetime | None = None) -> dict[str, int]:
    """Reminders and deadlines of every timed scene; safe to run twice (idempotent)."""
    now = now or timezone.now()
    counts = {"app": 0, "email": 0, "deadline": 0}
    scenes = SceneRhythm.objects.exclude(mode=SceneMode.FREE).filter(deadline_hours__isnull=False)
    for scene in scenes.select_related("thread__campaign"):
        due = deadline_at(scene)
        if due is None:
            continue
        state = turn_state(scene, now=now)
        start = due - dt.timedelta(hours=scene.deadline_hours or 0)
        reminder = start + (due - start) * REMINDER_AT
        for pk in state.waiting_on:
            if now >= reminder and _record_nudge(scene, pk, Nudge.Level.APP):
                with transaction.atomic():
                    notify(
                        Notification.Kind.NUDGE,
                        [pk],
                        scene.thread.campaign,
                        thread=scene.thread,
                        text=scene.thread.title,
                        url=reverse("campaigns:thread", args=[scene.thread_id]),
                    )
                counts["app"] += 1
            if now >= due and delivery_for(pk, "nudge") != Delivery.OFF and not in_quiet_hours(pk, now):
                if _record_nudge(scene, pk, Nudge.Level.EMAIL):
                    from rhythm.tasks import send_nudge_email

                    send_nudge_email.delay(scene.pk, pk)
                    counts["email"] += 1
        if now >= due and scene.on_deadline != DeadlineAction.WAIT:
            counts["deadline"] += apply_deadline(scene, now=now)
    return counts


def apply_deadline(scene: SceneRhythm, *, now: dt.datetime | None = None) -> int:
    """Apply the GM's choice to everyone the scene still waits on; recorded once per round.

    ``skip``: the member is passed over for this round. ``default`` (combat):
    the member's character takes the system's default action — recorded as a
    pass in the thread when the system declares none.
    """
    now = now or timezone.now()
    state = turn_state(scene, now=now)
    reason = TurnSkip.Reason.DEFAULT_ACTION if scene.on_deadline == DeadlineAction.DEFAULT else TurnSkip.Reason.DEADLINE
    applied = 0
    gm = Membership.objects.filter(campaign_id=scene.thread.campaign_id, role=Role.GM).select_related("user").first()
    for pk in list(state.waiting_on):
        try:
            with transaction.atomic():
                TurnSkip.objects.create(scene=scene, round=scene.round, user_id=pk, reason=reason)
                member = get_user_model().objects.select_related("profile").get(pk=pk)
                if gm is not None:
                    _deadline_post(gm.user, scene, member, reason)
        except IntegrityError:
            continue
        applied += 1
    if applied:
        scene.refresh_from_db()
        with transaction.atomic():
            locked = SceneRhythm.objects.select_for_update().get(pk=scene.pk)
            if turn_state(locked, now=now).complete:
                _start_round(locked, locked.thread, now)
                locked.save()
            elif locked.mode == SceneMode.ORDER:
                locked.turn_started_at = now
                locked.save(update_fields=["turn_started_at", "updated"])
            transaction.on_commit(lambda: _publish_scene(locked.thread))
        _notify_turn(locked)
    return applied


def _deadline_post(gm: Any, scene: SceneRhythm, member: Any, reason: str) -> None:
    """What happened is written in the thread, in the campaign's language."""
    language = scene.thread.campaign.language or settings.LANGUAGE_CODE
    with translation.override(language):
        name = member_name(member)
        if reason == TurnSkip.Reason.DEFAULT_ACTION:
            body = _("The deadline passed: %(name)s takes the default action (passes) this round.") % {"name": name}
        else:
            body = _("The deadline passed: %(name)s is skipped this round.") % {"name": name}
    campaign_services.create_post(gm, scene.thread, body=body, system_message=True)
