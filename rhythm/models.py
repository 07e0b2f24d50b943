"""Rhythm of slow play: scene posting order, deadlines, absences, nudges, drafts,
notification preferences.

A *scene* is a campaign thread (``campaigns.Thread``); its posting rules live in
:class:`SceneRhythm` beside it, so the forum itself stays unchanged.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from config.history import AppendOnlyModel


class SceneMode(models.TextChoices):
    FREE = "free", _("free")
    ROUNDS = "rounds", _("by rounds")
    ORDER = "order", _("strict order")


class DeadlineAction(models.TextChoices):
    WAIT = "wait", _("wait")
    SKIP = "skip", _("skip the player")
    DEFAULT = "default", _("apply the default action (combat)")


class SceneRhythm(models.Model):
    """How a scene is played (*mode de la scène*): free, by rounds or in strict order.

    ``round_start`` is the number of the last post before the current round
    began: a participant "has posted this round" when they wrote a post with a
    higher number. ``order`` is the GM's list of user ids (strict order, or the
    participants of a round); empty means every player of the campaign.
    """

    thread = models.OneToOneField("campaigns.Thread", on_delete=models.CASCADE, related_name="rhythm")
    mode = models.CharField(_("posting order"), max_length=8, choices=SceneMode.choices, default=SceneMode.FREE)
    order = models.JSONField(default=list, blank=True)
    use_initiative = models.BooleanField(_("follow the initiative of the scene's encounter"), default=False)
    deadline_hours = models.PositiveIntegerField(_("posting deadline (hours)"), null=True, blank=True)
    on_deadline = models.CharField(
        _("when the deadline passes"), max_length=8, choices=DeadlineAction.choices, default=DeadlineAction.WAIT
    )
    round = models.PositiveIntegerField(default=1)
    round_start = models.PositiveIntegerField(default=0)
    round_started_at = models.DateTimeField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("scene rhythm")
        verbose_name_plural = _("scene rhythms")

    def __str__(self) -> str:
        return f"{self.thread} ({self.mode})"


class TurnSkip(AppendOnlyModel):
    """A participant passed over in a round (absence, deadline, GM): recorded, never edited."""

    class Reason(models.TextChoices):
        DEADLINE = "deadline", _("deadline passed")
        GM = "gm", _("skipped by the GM")
        DEFAULT_ACTION = "default", _("default action applied")

    scene = models.ForeignKey(SceneRhythm, on_delete=models.CASCADE, related_name="skips")
    round = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=10, choices=Reason.choices)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scene", "round", "user"], name="turnskip_once_per_round")]

    def __str__(self) -> str:
        return f"skip {self.user_id} round {self.round}"


class Absence(models.Model):
    """A member's declared absence (*absence*), for one campaign or the whole site."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="absences")
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, null=True, blank=True, related_name="absences"
    )
    starts = models.DateField(_("from"))
    ends = models.DateField(_("to"))
    message = models.CharField(_("message"), max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts", "id"]
        verbose_name = _("absence")
        verbose_name_plural = _("absences")

    def __str__(self) -> str:
        return f"{self.user} away {self.starts}–{self.ends}"


class Nudge(AppendOnlyModel):
    """A reminder sent to a participant (*relance*): at most once per scene, round and level."""

    class Level(models.TextChoices):
        APP = "app", _("in-app reminder")
        EMAIL = "email", _("e-mail reminder")
        MANUAL = "manual", _("nudged by the GM")

    scene = models.ForeignKey(SceneRhythm, on_delete=models.CASCADE, related_name="nudges")
    round = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    level = models.CharField(max_length=8, choices=Level.choices)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scene", "round", "user", "level"], name="nudge_once_per_round_level")
        ]

    def __str__(self) -> str:
        return f"nudge {self.level} {self.user_id} round {self.round}"


class Draft(models.Model):
    """A post being written (*brouillon*), kept on the server per member and thread."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    thread = models.ForeignKey("campaigns.Thread", on_delete=models.CASCADE, related_name="+")
    body = models.TextField(blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "thread"], name="draft_one_per_thread")]

    def __str__(self) -> str:
        return f"draft {self.user_id} in {self.thread_id}"


class Delivery(models.TextChoices):
    APP = "app", _("in the site")
    EMAIL = "email", _("e-mail at once")
    DIGEST = "digest", _("in the e-mail digest")
    OFF = "off", _("off")


class NotificationPreference(models.Model):
    """How a member wants one kind of notification delivered."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)
    delivery = models.CharField(max_length=8, choices=Delivery.choices, default=Delivery.APP)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="notification_pref_once")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind}={self.delivery}"


class MemberRhythm(models.Model):
    """A member's time zone and quiet hours (reminder e-mails wait until they end)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rhythm")
    timezone = models.CharField(_("time zone"), max_length=64, blank=True)
    quiet_start = models.PositiveSmallIntegerField(_("quiet hours from (hour)"), null=True, blank=True)
    quiet_end = models.PositiveSmallIntegerField(_("quiet hours until (hour)"), null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id} {self.timezone}"
