"""Who may see an auction; which auction a character took part in."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from campaigns.access import is_member
from characters.models import Character
from rules.base import is_digits
from systems.ambre.models import Auction


def get_auction_for_user(user: Any, auction_id: int | str) -> Auction:
    """Auctions are seen by campaign members (spectator and up); others get 404."""
    if not is_digits(str(auction_id)):
        raise Http404
    auction = Auction.objects.select_related("campaign").filter(pk=auction_id).first()
    if auction is None or not is_member(user, auction.campaign):
        raise Http404
    return auction


def auction_of(character: Character) -> Auction | None:
    """The auction (of its campaign) ``character`` takes part in, if any."""
    if character.pk is None:
        return None
    return next(
        (a for a in Auction.objects.filter(campaign_id=character.campaign_id) if character.pk in a.character_ids()),
        None,
    )
