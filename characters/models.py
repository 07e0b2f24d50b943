"""Characters, their sheet history and the experience/karma ledger.

The sheet (``Character.sheet``) is the rule system's stored data, validated
and derived by :mod:`rules`; derived values are never stored as truth.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core.files.storage import FileSystemStorage, Storage
from django.db import models
from django.utils.translation import gettext_lazy as _

import rules
from config.history import AppendOnlyModel


def portrait_storage() -> Storage:
    """Portraits live in ``MEDIA_ROOT`` but their URLs point to
    :func:`characters.views.portrait_file`, which checks who may see the character
    (a private campaign's portraits are never public files)."""
    return FileSystemStorage(base_url="/characters/media/")


def portrait_name(instance: Any, filename: str) -> str:
    """An unguessable name: ``portraits/<random token>.jpg``."""
    return f"portraits/{secrets.token_urlsafe(24)}.jpg"


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
    portrait = models.ImageField(_("portrait"), upload_to=portrait_name, storage=portrait_storage, blank=True)
    public_description = models.TextField(_("public description"), blank=True, max_length=10000)
    private_background = models.TextField(_("private background"), blank=True, max_length=20000)
    system = models.CharField(max_length=40)
    sheet = models.JSONField(default=dict, blank=True)
    schema_version = models.PositiveIntegerField(default=1)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)
    version = models.PositiveIntegerField(default=1)  # optimistic concurrency
    gm_comment = models.TextField(blank=True)
    #: The server's creation roll (a chained roll of kind ``"creation"``), when the system rolls
    #: one: the rules check the sheet against it, never against draws the sheet carries.
    creation_roll = models.ForeignKey(
        "campaigns.Roll", on_delete=models.PROTECT, null=True, blank=True, related_name="+", editable=False
    )
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

    def server_rolls(self) -> dict[str, Any]:
        """The server's stored rolls for this character by kind, as the rules read them."""
        if self.creation_roll_id is None:
            return {}
        return {"creation": self.creation_roll.resolution}

    def current_sheet(self) -> dict[str, Any]:
        """The sheet migrated to the system's current schema version."""
        system = self.rule_system
        if self.schema_version == system.schema_version:
            return self.sheet
        return system.migrate_sheet(dict(self.sheet), self.schema_version)


class SheetVersion(AppendOnlyModel):
    """Every saved version of a character (append-only history)."""

    edit_refused = "A sheet version is never edited."
    delete_refused = "A sheet version is never deleted."

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
        verbose_name = _("sheet version")
        verbose_name_plural = _("sheet versions")

    def __str__(self) -> str:
        return f"{self.character} v{self.version}"


class _SystemCurrencies:
    """``LedgerEntry.Currency``: the currencies of every registered system (``RuleSystem.currencies``).

    Kept for code written when the currencies were a closed list (``LedgerEntry.Currency.values``);
    an entry is validated against ITS system's currencies (:func:`characters.ledger.append_entry`).
    """

    @property
    def values(self) -> list[str]:
        codes: list[str] = []
        for slug in rules.SYSTEM_MODULES:
            codes += [c for c in rules.get_system(slug).currencies if c not in codes]
        return codes

    @property
    def choices(self) -> list[tuple[str, str]]:
        return [(code, code) for code in self.values]


class LedgerEntry(AppendOnlyModel):
    """One change of a system's currency: experience, karma... (*expérience*, *karma*).

    Append-only: never edited or deleted; a correction is a new entry.
    Balances are the sum of the approved entries. ``currency`` is open: its values
    are the character's system's ``RuleSystem.currencies`` (names from
    ``RuleSystem.currency_labels()``), checked by :func:`characters.ledger.append_entry`.
    """

    edit_refused = "A ledger entry is never edited; append a correction."
    delete_refused = "A ledger entry is never deleted; append a correction."

    Currency = _SystemCurrencies()

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
    currency = models.CharField(max_length=20)
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


class ChangeRequest(models.Model):
    """A player's proposed edit of an approved sheet (*demande de modification*).

    Holds the whole proposed state (name and sheet) and the sheet version it
    was made from; the GM approves it (applied with its ledger entries in one
    transaction) or rejects it.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        REJECTED = "rejected", _("rejected")
        WITHDRAWN = "withdrawn", _("withdrawn")

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="change_requests")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    base_version = models.PositiveIntegerField()
    name = models.CharField(_("name"), max_length=100)
    sheet = models.JSONField(default=dict)
    schema_version = models.PositiveIntegerField(default=1)
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    applied_version = models.PositiveIntegerField(null=True, blank=True)
    #: An experience/karma purchase (*achat*): the validated request given to the
    #: rules' ``purchase()`` (``{"kind": ..., ...}``). When set, approval re-prices
    #: it on the current sheet and balances instead of the creation budget.
    purchase = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("change request")
        verbose_name_plural = _("change requests")

    def __str__(self) -> str:
        return f"{self.character} #{self.pk} ({self.status})"


class ChangeComment(models.Model):
    """One message of a change request's discussion thread."""

    change_request = models.ForeignKey(ChangeRequest, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    body = models.TextField(max_length=5000)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"comment on {self.change_request_id}"
