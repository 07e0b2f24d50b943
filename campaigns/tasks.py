"""Celery tasks of the campaigns app: the e-mail digest of notifications."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from campaigns.models import Notification, NotificationSettings
from campaigns.notifications import delivery_policy


@shared_task(acks_late=True, autoretry_for=(ConnectionError, TimeoutError), retry_backoff=True, max_retries=5)
def send_notification_digests() -> int:
    """Send each opted-in member one e-mail listing their unread, not yet e-mailed notifications.

    Idempotent: notifications are claimed (``emailed_at`` set) in the same
    transaction that sends, under a row lock on the member's settings, so a
    rerun or a concurrent run sends nothing twice.
    Returns the number of e-mails sent.
    """
    sent = 0
    opted_in = set(
        NotificationSettings.objects.filter(email_digest=True, user__is_active=True).values_list("user_id", flat=True)
    )
    by_kind = set(delivery_policy().digest_user_ids())
    user_ids = sorted(opted_in | by_kind)
    for user_id in user_ids:
        if send_digest_to(user_id):
            sent += 1
    return sent


def send_digest_to(user_id: int) -> bool:
    now = timezone.now()
    with transaction.atomic():
        prefs, _created = (
            NotificationSettings.objects.select_for_update().select_related("user").get_or_create(user_id=user_id)
        )
        user = prefs.user
        pending_qs = Notification.objects.filter(user_id=user_id, read_at__isnull=True, emailed_at__isnull=True)
        if not prefs.email_digest:
            # Only the kinds the member sends to the digest (notification settings).
            pending_qs = pending_qs.filter(kind__in=delivery_policy().digest_kinds(user_id))
        pending = list(pending_qs.select_related("campaign", "thread", "actor").order_by("created")[:100])
        if not pending or not user.email:
            return False
        Notification.objects.filter(pk__in=[n.pk for n in pending]).update(emailed_at=now)
        prefs.last_digest_at = now
        prefs.save(update_fields=["last_digest_at"])
        language = getattr(getattr(user, "profile", None), "language", None) or settings.LANGUAGE_CODE
        with translation.override(language):
            context = {"user": user, "items": pending, "site_url": settings.SITE_URL}
            subject = render_to_string("campaigns/email/digest_subject.txt", context).strip()
            body = render_to_string("campaigns/email/digest_body.txt", context)
        # Sent inside the transaction: if sending fails, the claim rolls back and
        # the next run retries (at least once rather than at most once).
        send_mail(subject, body, None, [user.email])
    return True
