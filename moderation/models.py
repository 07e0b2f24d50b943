"""Moderation records: reports (*signalements*), the audit log (*journal de
modération*), suspensions and table bans (*exclusions*).

Writes go through :mod:`moderation.services`; the audit log is append-only.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from config.history import AppendOnlyModel


class Report(models.Model):
    """A member reports a post, a character or a campaign (*signalement*).

    The target is held by explicit nullable foreign keys (``kind`` says which
    one is the target); ``campaign`` is always the campaign the target lives in
    so that its GMs see the report. ``target_label`` keeps a short description
    in case the target is deleted later.
    """

    class Kind(models.TextChoices):
        POST = "post", _("post")
        CHARACTER = "character", _("character")
        CAMPAIGN = "campaign", _("campaign")

    class Reason(models.TextChoices):
        SPAM = "spam", _("spam or advertising")
        HARASSMENT = "harassment", _("harassment or hate")
        INAPPROPRIATE = "inappropriate", _("inappropriate content")
        CHEATING = "cheating", _("cheating or rule abuse")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("report status", "open")
        RESOLVED = "resolved", pgettext_lazy("report status", "resolved")
        DISMISSED = "dismissed", pgettext_lazy("report status", "dismissed")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    post = models.ForeignKey("campaigns.Post", on_delete=models.SET_NULL, null=True, blank=True, related_name="reports")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.SET_NULL, null=True, blank=True, related_name="reports"
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="reports"
    )
    target_label = models.CharField(max_length=200, blank=True)
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="reports_filed"
    )
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    details = models.TextField(_("details"), blank=True, max_length=2000)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.OPEN)
    created = models.DateTimeField(auto_now_add=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    resolution_note = models.CharField(_("note"), max_length=500, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["status", "-created"], name="report_status_created")]
        verbose_name = _("report")
        verbose_name_plural = _("reports")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.target_label} ({self.get_status_display()})"

    @property
    def target(self) -> Any:
        return {"post": self.post, "character": self.character, "campaign": self.campaign}.get(self.kind)


class AuditLog(AppendOnlyModel):
    """One moderation action (*action de modération*): who, what, when, why, on what.

    Append-only: never edited or deleted. Targets are nullable links plus
    text snapshots (``actor_name``, ``target_label``) so that the record stays
    readable after the account or content is deleted.
    """

    edit_refused = "A moderation log entry is never edited."
    delete_refused = "A moderation log entry is never deleted."

    class Action(models.TextChoices):
        REPORT_RESOLVED = "report_resolved", _("report resolved")
        REPORT_DISMISSED = "report_dismissed", _("report dismissed")
        POST_HIDDEN = "post_hidden", _("post hidden")
        POST_RESTORED = "post_restored", _("post restored")
        THREAD_LOCKED = "thread_locked", _("thread locked")
        THREAD_UNLOCKED = "thread_unlocked", _("thread unlocked")
        CAMPAIGN_LOCKED = "campaign_locked", _("campaign locked")
        CAMPAIGN_UNLOCKED = "campaign_unlocked", _("campaign unlocked")
        USER_SUSPENDED = "user_suspended", _("user suspended")
        USER_UNSUSPENDED = "user_unsuspended", _("suspension lifted")
        SPAM_DELETED = "spam_deleted", _("spam account deleted")
        MEMBER_BANNED = "member_banned", _("member removed and banned")
        MEMBER_UNBANNED = "member_unbanned", _("ban lifted")
        ACCOUNT_DELETED = "account_deleted", _("account deleted by its owner")

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    actor_name = models.CharField(max_length=150, blank=True)
    action = models.CharField(_("action"), max_length=24, choices=Action.choices)
    reason = models.TextField(_("reason"), blank=True, max_length=2000)
    created = models.DateTimeField(default=timezone.now, db_index=True)
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    thread = models.ForeignKey("campaigns.Thread", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    post = models.ForeignKey("campaigns.Post", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    target_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    report = models.ForeignKey(Report, on_delete=models.SET_NULL, null=True, blank=True, related_name="actions")
    target_label = models.CharField(max_length=200, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")

    def __str__(self) -> str:
        return f"{self.created:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.target_label}"


class Suspension(models.Model):
    """A site suspension (*suspension*): until a date, or permanent (``until`` empty).

    A suspended member can log in only to read the notice; every write is
    refused (see :class:`moderation.middleware.SuspensionMiddleware`).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="suspensions")
    until = models.DateTimeField(_("until"), null=True, blank=True)
    reason = models.TextField(_("reason"), max_length=2000)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("suspension")
        verbose_name_plural = _("suspensions")

    def __str__(self) -> str:
        return f"{self.user} until {self.until or 'forever'}"

    @property
    def permanent(self) -> bool:
        return self.until is None

    def is_active(self, now: Any = None) -> bool:
        now = now or timezone.now()
        return self.lifted_at is None and (self.until is None or self.until > now)


def active_suspension(user: Any) -> Suspension | None:
    """The user's current suspension (the one that ends last), or ``None``."""
    if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
        return None
    now = timezone.now()
    return (
        Suspension.objects.filter(user_id=user.pk, lifted_at__isnull=True)
        .filter(models.Q(until__isnull=True) | models.Q(until__gt=now))
        .order_by(models.F("until").desc(nulls_first=True))
        .first()
    )


def is_suspended(now: datetime.datetime | None = None) -> models.Exists:
    """Whether the member of the outer query (``OuterRef("pk")``) is suspended at ``now``: annotated by
    :func:`config.auth.load_user` as ``tablee_suspended`` (registered in ``ModerationConfig.ready()``)."""
    now = now or timezone.now()
    return models.Exists(
        Suspension.objects.filter(user_id=models.OuterRef("pk"), lifted_at__isnull=True).filter(
            models.Q(until__isnull=True) | models.Q(until__gt=now)
        )
    )


class TableBan(models.Model):
    """A member removed and banned from one campaign by its GM (*exclusion*).

    While it exists the user cannot be invited, ask to join or join by link.
    """

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="bans")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_bans")
    reason = models.CharField(_("reason"), max_length=500, blank=True)
    banned_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="tableban_unique")]
        verbose_name = _("table ban")
        verbose_name_plural = _("table bans")

    def __str__(self) -> str:
        return f"{self.user} banned from {self.campaign}"
