"""Notifications as each member wants them delivered; a member's time zone and quiet hours.

Notifications are created by :func:`campaigns.notifications.notify` (re-exported here with
``gm_ids`` and ``member_ids``), which asks :class:`DeliveryPreferences` (registered in
``RhythmConfig.ready()``) how each member wants each kind.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.models import Notification
from campaigns.notifications import gm_ids as gm_ids
from campaigns.notifications import member_ids as member_ids
from campaigns.notifications import notify as notify
from campaigns.templatetags.campaigns_tags import member_name
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


def sentence(item: Notification) -> str:
    """The notification in the reader's language (active language)."""
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


class DeliveryPreferences:
    """The members' delivery choices (``NotificationPreference``), the policy of
    :func:`campaigns.notifications.notify` (registered in ``RhythmConfig.ready()``)."""

    def delivery(self, user_id: int, kind: str) -> str | None:
        return chosen_delivery(user_id, kind)

    def send_email(self, notification_id: int) -> None:
        from rhythm.tasks import send_notification_email

        send_notification_email.delay(notification_id)

    def digest_user_ids(self) -> Any:
        return NotificationPreference.objects.filter(delivery=Delivery.DIGEST).values_list("user_id", flat=True)

    def digest_kinds(self, user_id: int) -> Any:
        return NotificationPreference.objects.filter(user_id=user_id, delivery=Delivery.DIGEST).values("kind")
