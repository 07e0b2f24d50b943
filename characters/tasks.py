"""Celery tasks of the characters app.

``expire_auction`` is scheduled (``eta``) at an auction's deadline: it closes
the attribute being auctioned if the GM's timeout really passed. It takes an
id, re-reads the auction and is a no-op otherwise, so an early, duplicate or
retried delivery is harmless. Pages also apply an expired timeout when they
fetch the auction (the fallback when no worker runs).
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError


@shared_task(
    name="characters.expire_auction",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def expire_auction(auction_id: int) -> bool:
    from characters.models import Auction
    from characters.services import check_auction_timeout

    auction = Auction.objects.filter(pk=auction_id).first()
    if auction is None:
        return False
    before = auction.state.get("seq")
    return check_auction_timeout(auction).state.get("seq") != before
