"""Writes and reads of the rhythm of play (*rythme de jeu*).

Every user-triggered write is one function here: it checks permission,
validates, writes in a transaction and publishes its live event on commit.
The periodic work (reminders, deadlines) is :func:`run_reminders`, run by
Celery beat (or ``manage.py rhythm_tick`` on embedded defaults); it is
idempotent: a nudge or a deadline action is recorded under a unique
constraint, so a second run in the same round does nothing.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import Campaign, Membership, Notification, Post, Role, Thread
from live.events import publish
from rhythm import kinds
from rhythm.models import (
    Absence,
    DeadlineAction,
    Delivery,
    Draft,
    MemberRhythm,
    NotificationPreference,
    Nudge,
    SceneMode,
    SceneRhythm,
    TurnSkip,
)
from rhythm.turns import TurnState, compute

MAX_DRAFT_LENGTH = 40000
#: Share of the deadline after which the in-app reminder goes out (e.g. 36 h of 48 h).
REMINDER_AT = 0.75


# ---------------------------------------------------------------------------
# Scenes
# ---------------------------------------------------------------------------
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
    from combat.models import Encounter

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
    from django.contrib.auth import get_user_model

    scene = scene_for(thread)
    state = turn_state(scene)
    ids = set(state.participants)
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids).select_related("profile")}
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


# ---------------------------------------------------------------------------
# Absences
# ---------------------------------------------------------------------------
def declare_absence(
    user: Any, *, starts: dt.date, ends: dt.date, campaign: Campaign | None = None, message: str = ""
) -> Absence:
    """A member says they are away, for one campaign or for the whole site."""
    if not user.is_authenticated:
        raise PermissionDenied
    if campaign is not None and not access.is_member(user, campaign):
        raise Http404
    errors: dict[str, list[str]] = {}
    if ends < starts:
        errors["ends"] = [_("The absence ends before it starts.")]
    elif (ends - starts).days > 366:
        errors["ends"] = [_("An absence lasts at most a year.")]
    if ends < timezone.localdate():
        errors.setdefault("ends", []).append(_("This absence is already over."))
    message = (message or "").strip()
    if len(message) > 300:
        errors["message"] = [_("At most 300 characters.")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        absence = Absence.objects.create(user=user, campaign=campaign, starts=starts, ends=ends, message=message)
        targets = (
            [campaign.pk]
            if campaign
            else list(Membership.objects.filter(user=user).values_list("campaign_id", flat=True))
        )
        transaction.on_commit(
            lambda: [publish(f"campaign:{pk}", "absence", {"user": user.pk}) for pk in targets]  # type: ignore[func-returns-value]
        )
    return absence


def cancel_absence(user: Any, absence: Absence) -> None:
    if absence.user_id != user.pk:
        raise Http404
    absence.delete()


def current_absences(user: Any) -> list[Absence]:
    return list(
        Absence.objects.filter(user=user, ends__gte=timezone.localdate()).select_related("campaign").order_by("starts")
    )


# ---------------------------------------------------------------------------
# Drafts
# ---------------------------------------------------------------------------
def save_draft(user: Any, thread: Thread, *, body: str) -> Draft | None:
    """Keep what the member is typing (debounced by the browser); an empty text deletes the draft."""
    if not access.can_read_forum(user, thread.campaign) or not access.can_post(user, thread.campaign):
        raise Http404
    body = body or ""
    if len(body) > MAX_DRAFT_LENGTH:
        raise ValidationError({"body": [_("This draft is too long to be kept.")]})
    if not body.strip():
        Draft.objects.filter(user=user, thread=thread).delete()
        return None
    draft, _created = Draft.objects.update_or_create(user=user, thread=thread, defaults={"body": body})
    return draft


def get_draft(user: Any, thread: Thread) -> str:
    if not user.is_authenticated:
        return ""
    return Draft.objects.filter(user=user, thread=thread).values_list("body", flat=True).first() or ""


# ---------------------------------------------------------------------------
# Notifications
# ---------------------------------------------------------------------------
def chosen_delivery(user_id: int, kind: str) -> str | None:
    """The member's explicit choice for this kind, or ``None`` (the default)."""
    return NotificationPreference.objects.filter(user_id=user_id, kind=kind).values_list("delivery", flat=True).first()


def delivery_for(user_id: int, kind: str) -> str:
    return chosen_delivery(user_id, kind) or kinds.DEFAULT_DELIVERY


def notify(
    kind: str,
    user_ids: list[int] | set[int],
    campaign: Campaign,
    *,
    actor: Any = None,
    thread: Any = None,
    post: Any = None,
    text: str = "",
    url: str = "",
) -> list[Notification]:
    """Notify members of one step of the loop, as each chose for this kind (in-app, e-mail, digest, off).

    The actor is never told of their own action. Call it inside the writing
    transaction: the rows roll back with it, e-mails leave on commit.
    """
    created = []
    for pk in sorted(set(user_ids)):
        if actor is not None and pk == getattr(actor, "pk", None):
            continue
        delivery = chosen_delivery(pk, kind)
        if delivery == Delivery.OFF:
            continue
        item = Notification.objects.create(
            user_id=pk,
            kind=kind,
            campaign=campaign,
            actor=actor if getattr(actor, "pk", None) else None,
            thread=thread,
            post=post,
            text=(text or "")[:300],
            url=url[:300],
            # In the site; the e-mail digest also carries it when the member
            # turned the digest on (or chose "digest" for this kind).
        )
        created.append(item)
        publish(f"user:{pk}", "notification", {"kind": kind}, users=[pk], gms=False)
        if delivery == Delivery.EMAIL:
            from rhythm.tasks import send_notification_email

            transaction.on_commit(lambda item_id=item.pk: send_notification_email.delay(item_id))
    return created


def gm_ids(campaign: Campaign) -> list[int]:
    return list(
        Membership.objects.filter(campaign=campaign, role__in=[Role.GM, Role.COGM]).values_list("user_id", flat=True)
    )


def member_ids(campaign: Campaign, *, players_only: bool = False) -> list[int]:
    roles = [Role.PLAYER] if players_only else [Role.GM, Role.COGM, Role.PLAYER, Role.SPECTATOR]
    return list(Membership.objects.filter(campaign=campaign, role__in=roles).values_list("user_id", flat=True))


def sentence(item: Notification) -> str:
    """The notification in the reader's language (active language)."""
    from campaigns.templatetags.campaigns_tags import member_name

    template = kinds.SENTENCES.get(item.kind, kinds.SENTENCES["mention"])
    return str(template) % {"who": member_name(item.actor) if item.actor_id else "", "where": item.text}


def set_preferences(user: Any, choices: dict[str, str]) -> None:
    errors = {
        k: [_("Choose a delivery.")] for k, v in choices.items() if k not in kinds.LABELS or v not in Delivery.values
    }
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        for kind, delivery in choices.items():
            NotificationPreference.objects.update_or_create(user=user, kind=kind, defaults={"delivery": delivery})


def set_member_rhythm(user: Any, *, timezone_name: str, quiet_start: int | None, quiet_end: int | None) -> MemberRhythm:
    errors: dict[str, list[str]] = {}
    if timezone_name:
        try:
            zoneinfo.ZoneInfo(timezone_name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            errors["timezone"] = [_("Unknown time zone.")]
    for name, value in (("quiet_start", quiet_start), ("quiet_end", quiet_end)):
        if value is not None and not 0 <= value <= 23:
            errors[name] = [_("Give an hour between 0 and 23.")]
    if (quiet_start is None) != (quiet_end is None):
        errors["quiet_end"] = [_("Give both ends of the quiet hours, or neither.")]
    if errors:
        raise ValidationError(errors)
    prefs, _created = MemberRhythm.objects.update_or_create(
        user=user, defaults={"timezone": timezone_name, "quiet_start": quiet_start, "quiet_end": quiet_end}
    )
    return prefs


def detect_timezone(user: Any, timezone_name: str) -> str:
    """First visit: the browser tells its time zone; kept unless the member already chose one.

    Returns the member's time zone now in force ("" if none).
    """
    try:
        zoneinfo.ZoneInfo(timezone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return ""
    prefs, created = MemberRhythm.objects.get_or_create(user=user, defaults={"timezone": timezone_name})
    if not created and not prefs.timezone:
        prefs.timezone = timezone_name
        prefs.save(update_fields=["timezone"])
    return prefs.timezone


def in_quiet_hours(user_id: int, now: dt.datetime) -> bool:
    prefs = MemberRhythm.objects.filter(user_id=user_id).first()
    if prefs is None or prefs.quiet_start is None or prefs.quiet_end is None:
        return False
    tz = zoneinfo.ZoneInfo(prefs.timezone) if prefs.timezone else dt.UTC
    hour = now.astimezone(tz).hour
    if prefs.quiet_start <= prefs.quiet_end:
        return prefs.quiet_start <= hour < prefs.quiet_end
    return hour >= prefs.quiet_start or hour < prefs.quiet_end


# ---------------------------------------------------------------------------
# Nudges and deadlines
# ---------------------------------------------------------------------------
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
    from django.contrib.auth import get_user_model

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
    from campaigns import services as campaign_services
    from campaigns.templatetags.campaigns_tags import member_name

    language = scene.thread.campaign.language or settings.LANGUAGE_CODE
    with translation.override(language):
        name = member_name(member)
        if reason == TurnSkip.Reason.DEFAULT_ACTION:
            body = _("The deadline passed: %(name)s takes the default action (passes) this round.") % {"name": name}
        else:
            body = _("The deadline passed: %(name)s is skipped this round.") % {"name": name}
    campaign_services.create_post(gm, scene.thread, body=body, system_message=True)


# ---------------------------------------------------------------------------
# "Waiting on you"
# ---------------------------------------------------------------------------
@dataclass
class WaitingItem:
    kind: str
    label: str
    campaign: Campaign
    url: str
    since: dt.datetime | None
    deadline: dt.datetime | None = None


def waiting_on_you(user: Any) -> list[WaitingItem]:
    """Everything across the member's campaigns that waits on them, oldest first."""
    if not user.is_authenticated:
        return []
    from campaigns.models import Invitation
    from characters.models import ChangeRequest, Character

    items: list[WaitingItem] = []
    memberships = list(Membership.objects.filter(user=user).select_related("campaign"))
    gm_campaigns = [m.campaign for m in memberships if m.role in (Role.GM, Role.COGM)]
    campaign_ids = [m.campaign_id for m in memberships]
    for scene in (
        SceneRhythm.objects.filter(thread__campaign_id__in=campaign_ids)
        .exclude(mode=SceneMode.FREE)
        .select_related("thread__campaign")
    ):
        state = turn_state(scene)
        if user.pk in state.waiting_on:
            items.append(
                WaitingItem(
                    "turn",
                    _("Your turn in “%(where)s”") % {"where": scene.thread.title},
                    scene.thread.campaign,
                    reverse("campaigns:thread", args=[scene.thread_id]),
                    scene.turn_started_at if scene.mode == SceneMode.ORDER else scene.round_started_at,
                    deadline_at(scene),
                )
            )
    for invitation in Invitation.objects.filter(user=user, status=Invitation.Status.PENDING).select_related("campaign"):
        items.append(
            WaitingItem(
                "invitation",
                _("You are invited to “%(where)s”") % {"where": invitation.campaign.title},
                invitation.campaign,
                reverse("campaigns:notifications"),
                invitation.created,
            )
        )
    for character in Character.objects.filter(
        owner=user, campaign_id__in=campaign_ids, status=Character.Status.DRAFT, is_npc=False
    ).select_related("campaign"):
        if character.gm_comment:
            items.append(
                WaitingItem(
                    "sheet_returned",
                    _("The sheet of %(name)s came back from your GM") % {"name": character.name},
                    character.campaign,
                    reverse("characters:detail", args=[character.pk]),
                    character.updated,
                )
            )
    if gm_campaigns:
        for character in Character.objects.filter(
            campaign__in=gm_campaigns, status=Character.Status.SUBMITTED
        ).select_related("campaign"):
            items.append(
                WaitingItem(
                    "sheet_submitted",
                    _("Review the sheet of %(name)s") % {"name": character.name},
                    character.campaign,
                    reverse("characters:detail", args=[character.pk]),
                    character.updated,
                )
            )
        for change in ChangeRequest.objects.filter(
            character__campaign__in=gm_campaigns, status=ChangeRequest.Status.PENDING, purchase_request__isnull=True
        ).select_related("character__campaign"):
            items.append(
                WaitingItem(
                    "change",
                    _("Decide the change request for %(name)s") % {"name": change.character.name},
                    change.character.campaign,
                    reverse("characters:change", args=[change.pk]),
                    change.created,
                )
            )
    items.extend(_progression_items(user, campaign_ids, gm_campaigns))
    items.extend(_combat_items(user, campaign_ids))
    epoch = timezone.make_aware(dt.datetime(1970, 1, 1))
    items.sort(key=lambda item: item.since or epoch)
    return items


def _progression_items(user: Any, campaign_ids: list[int], gm_campaigns: list[Campaign]) -> list[WaitingItem]:
    """Award sheets the GM still has to confirm, and purchases to decide."""
    from progression.models import PurchaseRequest, SessionReview

    items = []
    if not gm_campaigns:
        return items
    for review in SessionReview.objects.filter(
        session__campaign__in=gm_campaigns, status__in=[SessionReview.Status.PENDING, SessionReview.Status.REOPENED]
    ).select_related("session__campaign"):
        session = review.session
        items.append(
            WaitingItem(
                "awards",
                _("Confirm the awards of “%(title)s”") % {"title": session.title or session.campaign.title},
                session.campaign,
                reverse("progression:session_awards", args=[session.pk]),
                session.closed_at or review.created,
            )
        )
    for purchase in PurchaseRequest.objects.filter(
        character__campaign__in=gm_campaigns, status=PurchaseRequest.Status.PENDING
    ).select_related("character__campaign"):
        url = (
            reverse("characters:change", args=[purchase.change_request_id])
            if purchase.change_request_id
            else reverse("progression:character", args=[purchase.character_id])
        )
        items.append(
            WaitingItem(
                "purchase",
                _("Decide the purchase for %(name)s") % {"name": purchase.character.name},
                purchase.character.campaign,
                url,
                purchase.created,
            )
        )
    return items


def _combat_items(user: Any, campaign_ids: list[int]) -> list[WaitingItem]:
    """Defences the member's characters must choose in a running fight (*réaction attendue*)."""
    from combat.models import Declaration

    items = []
    pending = Declaration.objects.filter(
        defence_status="pending", target__controller=user, round__encounter__campaign_id__in=campaign_ids
    ).select_related("target", "participant", "round__encounter__campaign", "round__encounter__thread")
    for declaration in pending:
        encounter = declaration.round.encounter
        items.append(
            WaitingItem(
                "reaction",
                _("%(target)s must choose how to defend against %(actor)s")
                % {"target": declaration.target.name, "actor": declaration.participant.name},
                encounter.campaign,
                reverse("combat:detail", args=[encounter.pk]),
                declaration.defence_asked,
            )
        )
    return items


def waiting_in_campaign(campaign: Campaign) -> list[dict[str, Any]]:
    """For the GM's campaign page: each timed or ordered scene, who it waits on and since when."""
    rows = []
    for scene in (
        SceneRhythm.objects.filter(thread__campaign=campaign).exclude(mode=SceneMode.FREE).select_related("thread")
    ):
        view = scene_view(campaign.created_by, scene.thread) if campaign.created_by else None
        if view is None or not view.waiting_on:
            continue
        rows.append({"thread": scene.thread, "view": view})
    return rows
