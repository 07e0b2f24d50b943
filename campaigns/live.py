"""Live channels of the campaigns app: ``campaign:<id>`` and ``thread:<id>``."""

from __future__ import annotations

from typing import Any

from campaigns.access import can_read_forum, is_gm
from campaigns.models import Campaign, Thread
from live.registry import Viewer, register


def campaign_viewer(user: Any, campaign_id: int) -> Viewer | None:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or not can_read_forum(user, campaign):
        return None
    return Viewer(user.pk if user.is_authenticated else None, is_gm(user, campaign))


def thread_viewer(user: Any, thread_id: int) -> Viewer | None:
    thread = Thread.objects.filter(pk=thread_id).only("campaign_id").first()
    if thread is None:
        return None
    return campaign_viewer(user, thread.campaign_id)


register("campaign", campaign_viewer)
register("thread", thread_viewer)
