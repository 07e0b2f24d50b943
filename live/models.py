"""Append-only log of live events, the catch-up source for ``Last-Event-ID``."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from config.history import AppendOnlyModel


class LiveEvent(AppendOnlyModel):
    """One event published on a channel (``thread:12``, ``encounter:3``...).

    ``data`` holds only what every allowed viewer of the channel may see
    (typically ids); ``audience`` narrows who receives it: ``{}`` means every
    viewer of the channel, ``{"users": [ids]}`` those users (GMs always
    included when ``"gms": true``), ``{"gms_only": true}`` only the GMs.
    """

    edit_refused = "A live event is never edited."
    delete_refused = "A live event is never deleted."

    channel = models.CharField(max_length=120)
    kind = models.CharField(max_length=60)
    data = models.JSONField(default=dict, blank=True)
    audience = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["channel", "id"], name="live_event_channel_id")]
        verbose_name = _("live event")
        verbose_name_plural = _("live events")

    def __str__(self) -> str:
        return f"{self.channel} #{self.pk} {self.kind}"

    def message(self) -> dict:
        return {"id": self.pk, "channel": self.channel, "kind": self.kind, "data": self.data, "audience": self.audience}
