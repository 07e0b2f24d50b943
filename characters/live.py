"""Live channels of the characters app: ``character:<id>`` and ``auction:<id>``."""

from __future__ import annotations

from typing import Any

from live.registry import Viewer, register


def character_viewer(user: Any, character_id: int) -> Viewer | None:
    """Sheet events: whoever sees the full sheet (owner, GM, co-GM)."""
    from campaigns.access import is_gm
    from characters.access import can_see_full_sheet
    from characters.models import Character

    character = Character.objects.select_related("campaign").filter(pk=character_id).first()
    if character is None or not can_see_full_sheet(user, character):
        return None
    return Viewer(user.pk, is_gm(user, character.campaign))


def auction_viewer(user: Any, auction_id: int) -> Viewer | None:
    """Auction events: campaign members (event data holds only ids and a sequence number)."""
    from campaigns.access import is_gm, is_member
    from characters.models import Auction

    auction = Auction.objects.select_related("campaign").filter(pk=auction_id).first()
    if auction is None or not is_member(user, auction.campaign):
        return None
    return Viewer(user.pk, is_gm(user, auction.campaign))


register("character", character_viewer)
register("auction", auction_viewer)
