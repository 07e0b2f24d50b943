"""Characters, their sheet history and the experience/karma ledger.

The sheet (``Character.sheet``) is the rule system's stored data, validated
and derived by :mod:`rules`; derived values are never stored as truth.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

import rules
from campaigns.models import ImmutableRecordError


class Character(models.Model):
    """A player character (owned by a player) or an NPC (owned by the GMs)."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SUBMITTED = "submitted", _("submitted")
        APPROVED = "approved", _("approved")
        RETIRED = "retired", _("retired")
        DEAD = "dead", _("dead")

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="characters")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="characters"
    )
    is_npc = models.BooleanField(_("NPC"), default=False)
    name = models.CharField(_("name"), max_length=100)
    portrait = models.ImageField(_("portrait"), upload_to="portraits/%Y/%m/", blank=True)
    public_description = models.TextField(_("public description"), blank=True, max_length=10000)
    private_background = models.TextField(_("private background"), blank=True, max_length=20000)
    system = models.CharField(max_length=40)
    sheet = models.JSONField(default=dict, blank=True)
    schema_version = models.PositiveIntegerField(default=1)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)
    version = models.PositiveIntegerField(default=1)  # optimistic concurrency
    gm_comment = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["campaign", "name"]
        verbose_name = _("character")
        verbose_name_plural = _("characters")

    def __str__(self) -> str:
        return self.name

    @property
    def rule_system(self) -> rules.base.RuleSystem:
        return rules.get_system(self.system)

    def current_sheet(self) -> dict[str, Any]:
        """The sheet migrated to the system's current schema version."""
        system = self.rule_system
        if self.schema_version == system.schema_version:
            return self.sheet
        return system.migrate_sheet(dict(self.sheet), self.schema_version)


class SheetVersion(models.Model):
    """Every saved version of a character (append-only history)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    sheet = models.JSONField(default=dict)
    schema_version = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=12)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    reason = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character", "version"]
        constraints = [models.UniqueConstraint(fields=["character", "version"], name="sheetversion_unique")]

    def __str__(self) -> str:
        return f"{self.character} v{self.version}"


class LedgerEntry(models.Model):
    """One change of experience or karma (*expérience*, *karma*).

    Append-only: never edited or deleted; a correction is a new entry.
    Balances are the sum of the approved entries.
    """

    class Currency(models.TextChoices):
        XP = "xp", _("experience")
        KARMA = "karma", _("karma")

    class Kind(models.TextChoices):
        CREATION_BUDGET = "creation_budget", _("creation budget")
        RANK_REFUND = "rank_refund", _("rank refund")
        AUCTION_BID = "auction_bid", _("auction bid")
        PURCHASE = "purchase", _("purchase")
        GM_AWARD = "gm_award", _("GM award")
        GM_PENALTY = "gm_penalty", _("GM penalty")
        SYSTEM_AWARD = "system_award", _("system award")
        CORRECTION = "correction", _("correction")

    class Approval(models.TextChoices):
        APPROVED = "approved", _("approved")
        PENDING = "pending", _("pending")
        REJECTED = "rejected", _("rejected")

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="ledger")
    currency = models.CharField(max_length=8, choices=Currency.choices)
    amount = models.IntegerField()
    kind = models.CharField(max_length=20, choices=Kind.choices)
    session = models.ForeignKey(
        "campaigns.PlaySession", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    note = models.CharField(max_length=300, blank=True)
    data = models.JSONField(default=dict, blank=True)
    approval = models.CharField(max_length=10, choices=Approval.choices, default=Approval.APPROVED)
    #: Idempotency key: a job that records the same entry twice writes it once.
    key = models.CharField(max_length=120, null=True, blank=True, unique=True)

    class Meta:
        ordering = ["character", "id"]
        indexes = [models.Index(fields=["character", "currency"], name="ledger_char_currency")]
        verbose_name = _("ledger entry")
        verbose_name_plural = _("experience and karma ledger")

    def __str__(self) -> str:
        return f"{self.character} {self.amount:+d} {self.currency} ({self.kind})"

    def save(self, *args: object, **kwargs: object) -> None:
        if self.pk is not None:
            raise ImmutableRecordError("A ledger entry is never edited; append a correction.")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise ImmutableRecordError("A ledger entry is never deleted; append a correction.")
