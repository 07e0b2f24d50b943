"""The live channel ``auction:<id>`` (registered in :mod:`live.registry` by the app's ``ready()``)."""

from __future__ import annotations

from typing import Any

from campaigns.access import is_gm, is_member
from live import registry
from live.registry import Viewer
from systems.ambre.models import Auction


def auction_viewer(user: Any, auction_id: int) -> Viewer | None:
    """Auction events: campaign members (event data holds only ids and a sequence number)."""
    auction = Auction.objects.select_related("campaign").filter(pk=auction_id).first()
    if auction is None or not is_member(user, auction.campaign):
        return None
    return Viewer(user.pk, is_gm(user, auction.campaign))


def register() -> None:
    registry.register("auction", auction_viewer)
