"""Celery tasks of the rhythm: reminders and deadlines (beat), immediate e-mails."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from campaigns.models import Notification
from rhythm.models import SceneRhythm
from rhythm.services import run_reminders, sentence


def _language(user: Any) -> str:
    return getattr(getattr(user, "profile", None), "language", None) or settings.LANGUAGE_CODE


@shared_task(acks_late=True, autoretry_for=(ConnectionError, TimeoutError), retry_backoff=True, max_retries=5)
def tick() -> dict[str, int]:
    """Beat: reminders before deadlines, e-mails after, the GM's deadline choice (idempotent)."""
    return run_reminders()


@shared_task(acks_late=True, autoretry_for=(ConnectionError, TimeoutError), retry_backoff=True, max_retries=5)
def send_notification_email(notification_id: int) -> bool:
    """An "e-mail at once" notification; claimed under a row lock so a retry never sends twice."""
    with transaction.atomic():
        item = (
            Notification.objects.select_for_update(of=("self",))
            .select_related("user__profile", "actor__profile", "campaign")
            .filter(pk=notification_id, emailed_at__isnull=True)
            .first()
        )
        if item is None or not item.user.email:
            return False
        item.emailed_at = timezone.now()
        item.save(update_fields=["emailed_at"])
        with translation.override(_language(item.user)):
            link = settings.SITE_URL.rstrip("/") + (item.url or f"/campaigns/notifications/{item.pk}/")
            context = {"sentence": sentence(item), "link": link, "campaign": item.campaign}
            subject = render_to_string("rhythm/email/notification_subject.txt", context).strip()
            body = render_to_string("rhythm/email/notification_body.txt", context)
        send_mail(subject, body, None, [item.user.email])
    return True


@shared_task(acks_late=True, autoretry_for=(ConnectionError, TimeoutError), retry_backoff=True, max_retries=5)
def send_nudge_email(scene_id: int, user_id: int) -> bool:
    scene = SceneRhythm.objects.select_related("thread__campaign").filter(pk=scene_id).first()
    user = get_user_model().objects.select_related("profile").filter(pk=user_id).first()
    if scene is None or user is None or not user.email:
        return False
    with translation.override(_language(user)):
        link = settings.SITE_URL.rstrip("/") + f"/campaigns/threads/{scene.thread_id}/"
        context = {"thread": scene.thread, "campaign": scene.thread.campaign, "link": link}
        subject = render_to_string("rhythm/email/nudge_subject.txt", context).strip()
        body = render_to_string("rhythm/email/nudge_body.txt", context)
    send_mail(subject, body, None, [user.email])
    return True
