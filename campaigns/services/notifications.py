"""Notifications: creating one for a member, marking them read, the e-mail digest choice."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from campaigns.models import Campaign, Notification, NotificationSettings
from campaigns.notifications import notify


def _notify(
    user: Any, kind: str, campaign: Campaign, *, actor: Any = None, thread: Any = None, post: Any = None, text: str = ""
) -> Notification | None:
    """One notification, delivered as the member chose for its kind (:func:`campaigns.notifications.notify`)."""
    created = notify(kind, [user.pk], campaign, actor=actor, thread=thread, post=post, text=text)
    return created[0] if created else None


def mark_notifications_read(user: Any, ids: Iterable[int] | None = None) -> int:
    qs = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        qs = qs.filter(pk__in=list(ids))
    return qs.update(read_at=timezone.now())


def set_email_digest(user: Any, *, enabled: bool) -> NotificationSettings:
    prefs, _created = NotificationSettings.objects.get_or_create(user=user)
    prefs.email_digest = bool(enabled)
    prefs.save(update_fields=["email_digest"])
    return prefs
