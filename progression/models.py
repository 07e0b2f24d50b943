"""Progression after play sessions (*progression*, *expérience*, *karma*).

* :class:`SessionReview`: the award sheet of one closed session (*séance*):
  pending, confirmed, or reopened for corrections; ``revision`` counts the
  confirmations.
* :class:`SessionAward`: one GM-confirmed award line for one character in one
  session. Append-only: a correction is a new line (kind ``correction``)
  holding the difference. Each line becomes exactly one ledger entry (key
  ``progression:award:<pk>``) when the session job runs.
* :class:`RecalculationRun`: one run of the session job (status, progress,
  error); the job itself is idempotent, a run is only its report.
* :class:`CharacterBalance`: the upserted snapshot of a character's balances,
  flags and state after the last run (recomputed from the ledger, never the
  truth).
* :class:`SessionResult`: balances before/after one session for one
  character (the recap), upserted by the job.
* :class:`PurchaseRequest`: a player's request to spend experience or karma,
  approved or rejected by a GM (minimal change request for purchases).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from config.history import AppendOnlyModel


class SessionReview(models.Model):
    """The award sheet of a closed play session (*bilan de séance*)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("awaiting the GM's awards")
        CONFIRMED = "confirmed", _("awards confirmed")
        REOPENED = "reopened", _("reopened for corrections")

    session = models.OneToOneField("campaigns.PlaySession", on_delete=models.CASCADE, related_name="review")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    revision = models.PositiveIntegerField(default=0)
    #: The facts the GM confirmed last, per character id (presence, system inputs).
    facts = models.JSONField(default=dict, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("session review")
        verbose_name_plural = _("session reviews")

    def __str__(self) -> str:
        return f"{self.session} ({self.status})"


class SessionAward(AppendOnlyModel):
    """One confirmed award line (*gain de séance*); append-only."""

    edit_refused = "An award line is never edited; append a correction."
    delete_refused = "An award line is never deleted; append a correction."
    #: A line's ledger entry is keyed ``progression:award:<line id>`` (:attr:`ledger_key`): it counts once.
    LEDGER_KEY_PREFIX = "progression:award:"

    session = models.ForeignKey("campaigns.PlaySession", on_delete=models.PROTECT, related_name="awards")
    character = models.ForeignKey("characters.Character", on_delete=models.PROTECT, related_name="session_awards")
    revision = models.PositiveIntegerField(default=1)
    #: Groups the lines of one suggestion across corrections (e.g. ``system_award:natural_ones``).
    code = models.CharField(max_length=80)
    currency = models.CharField(max_length=8)
    amount = models.IntegerField()
    kind = models.CharField(max_length=20)
    note = models.CharField(max_length=300, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["session", "character", "id"]
        indexes = [models.Index(fields=["session", "character"], name="award_session_character")]
        verbose_name = _("session award")
        verbose_name_plural = _("session awards")

    def __str__(self) -> str:
        return f"{self.character} {self.amount:+d} {self.currency} ({self.code}, r{self.revision})"

    @property
    def ledger_key(self) -> str:
        return f"{self.LEDGER_KEY_PREFIX}{self.pk}"


class RecalculationRun(models.Model):
    """One run of the session job (*recalcul*), with its progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="recalculations")
    session = models.ForeignKey(
        "campaigns.PlaySession", on_delete=models.CASCADE, null=True, blank=True, related_name="recalculations"
    )
    revision = models.PositiveIntegerField(default=0)
    reason = models.CharField(max_length=40, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: When the task message last reached the broker (None: not sent yet, e.g. the broker was down).
    enqueued_at = models.DateTimeField(null=True, blank=True)
    #: The lease: the worker holding the run refreshes ``heartbeat_at``; a run whose
    #: heartbeat is older than ``TABLEE_RUN_LEASE_SECONDS`` is dead and is re-sent.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    lease = models.CharField(max_length=32, blank=True)
    #: The last time the run was found dead (worker killed, database or broker down) and re-sent.
    interrupted_at = models.DateTimeField(null=True, blank=True)
    resends = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]
        constraints = [
            # Idempotent launch: one active run per session (double clicks reuse it).
            models.UniqueConstraint(
                fields=["session"], condition=models.Q(status__in=["queued", "running"]), name="run_one_active"
            )
        ]
        verbose_name = _("recalculation")
        verbose_name_plural = _("recalculations")

    def __str__(self) -> str:
        return f"run {self.pk} {self.status} {self.done}/{self.total}"

    @property
    def active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def interrupted(self) -> bool:
        """Found dead and re-sent, not finished yet (the GM sees "interrupted — relaunched")."""
        return self.active and self.interrupted_at is not None

    @property
    def waiting_for_broker(self) -> bool:
        """Queued but the task could not be sent yet (it is retried automatically)."""
        return self.status == self.Status.QUEUED and self.enqueued_at is None

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        return max(0, min(100, int(100 * self.done / self.total))) if self.total else 0


class CharacterBalance(models.Model):
    """Snapshot of a character's progression after the last run (upserted)."""

    character = models.OneToOneField("characters.Character", on_delete=models.CASCADE, related_name="balance")
    balances = models.JSONField(default=dict)
    flags = models.JSONField(default=list)
    notes = models.JSONField(default=list)
    state = models.JSONField(default=dict)
    entries_count = models.PositiveIntegerField(default=0)
    last_entry_id = models.BigIntegerField(default=0)
    run = models.ForeignKey(RecalculationRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("character balance")
        verbose_name_plural = _("character balances")

    def __str__(self) -> str:
        return f"{self.character}: {self.balances}"

    def has_flag(self, code: str) -> bool:
        return any(isinstance(f, dict) and f.get("code") == code for f in self.flags)


class SessionResult(models.Model):
    """What one session did to one character (recap line), upserted by the job."""

    session = models.ForeignKey("campaigns.PlaySession", on_delete=models.CASCADE, related_name="progression_results")
    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="session_results")
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    flags = models.JSONField(default=list)
    notes = models.JSONField(default=list)
    state = models.JSONField(default=dict)
    run = models.ForeignKey(RecalculationRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["session", "character__name"]
        constraints = [models.UniqueConstraint(fields=["session", "character"], name="session_result_unique")]
        verbose_name = _("session result")
        verbose_name_plural = _("session results")

    def __str__(self) -> str:
        return f"{self.session} {self.character}: {self.before} -> {self.after}"


class PurchaseRequest(models.Model):
    """A player's request to spend experience/karma (*demande d'achat*)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")
        WITHDRAWN = "withdrawn", _("withdrawn")

    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="purchase_requests")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    kind = models.CharField(max_length=40)
    request = models.JSONField(default=dict)
    #: What the rules said at request time: cost and ledger drafts (for display).
    preview = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    comment = models.CharField(_("comment"), max_length=500, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    session = models.ForeignKey(
        "campaigns.PlaySession", on_delete=models.SET_NULL, null=True, blank=True, related_name="purchase_requests"
    )
    #: The character change request the GM approves (the single place of decision).
    change_request = models.OneToOneField(
        "characters.ChangeRequest",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="purchase_request",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("purchase request")
        verbose_name_plural = _("purchase requests")

    def __str__(self) -> str:
        return f"{self.character} {self.kind} ({self.status})"
