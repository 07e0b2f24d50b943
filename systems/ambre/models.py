"""The attribute auction of an Ambre campaign."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Auction(models.Model):
    """An Ambre attribute auction (*enchères d'attributs*) in a campaign.

    ``state`` is the rules engine's JSON state (:mod:`rules.ambre.auction`);
    ``players`` maps the engine's player ids (character ids as strings) to
    nothing more: characters are looked up by id. The web layer adds the GM's
    controls: pause and a per-attribute timeout.

    Moved from the characters app (issue 16): the table keeps its name.
    """

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        PAUSED = "paused", _("paused")
        CLOSED = "closed", _("closed")

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="auctions")
    state = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    timeout_seconds = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    results_applied = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "characters_auction"
        ordering = ["-created"]
        verbose_name = _("auction")
        verbose_name_plural = _("auctions")

    def __str__(self) -> str:
        return f"auction {self.pk} ({self.campaign})"

    def character_ids(self) -> list[int]:
        return [int(p) for p in self.state.get("players", [])]
