"""Celery tasks of the Ambre plug-in.

``expire_auction`` is scheduled (``eta``) at an auction's deadline: it closes
the attribute being auctioned if the GM's timeout really passed. It takes an
id, re-reads the auction and is a no-op otherwise, so an early, duplicate or
retried delivery is harmless. Pages also apply an expired timeout when they
fetch the auction (the fallback when no worker runs).

The task keeps the name it had in the characters app (``characters.expire_auction``):
messages queued before the move still find it.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from systems.ambre.models import Auction
from systems.ambre.services import EXPIRY_TASK, check_auction_timeout


@shared_task(
    name=EXPIRY_TASK,
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def expire_auction(auction_id: int) -> bool:
    auction = Auction.objects.filter(pk=auction_id).first()
    if auction is None:
        return False
    before = auction.state.get("seq")
    return check_auction_timeout(auction).state.get("seq") != before
