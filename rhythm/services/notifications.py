"""Notifications as each member wants them delivered; a member's time zone and quiet hours."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Membership, Notification, Role
from live.events import publish
from rhythm import kinds
from rhythm.models import (
    Delivery,
    MemberRhythm,
    NotificationPreference,
)


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
