"""Play sessions and the dice seed they reveal."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import dice
from campaigns.models import (
    Campaign,
    PlaySession,
)
from campaigns.notifications import session_changed
from campaigns.services.common import _require_gm
from campaigns.signals import session_closed
from live.events import publish


def open_session(user: Any, campaign: Campaign, *, title: str = "") -> PlaySession:
    """The GM opens a play session; posts and rolls made until it closes belong to it."""
    _require_gm(user, campaign)
    if len(title or "") > 120:
        raise ValidationError({"title": [_("At most 120 characters.")]})
    try:
        with transaction.atomic():
            Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
            if PlaySession.objects.filter(campaign=campaign, status=PlaySession.Status.OPEN).exists():
                raise ValidationError({"__all__": [_("A session is already open: close it first.")]})
            last = PlaySession.objects.filter(campaign=campaign).order_by("-number").values_list("number", flat=True)
            session = PlaySession.objects.create(
                campaign=campaign, number=(last.first() or 0) + 1, title=(title or "").strip(), opened_by=user
            )
            publish(f"campaign:{campaign.pk}", "session-opened", {"session": session.pk})
            session_changed(user, session, opened=True)
    except IntegrityError:
        raise ValidationError({"__all__": [_("A session is already open: close it first.")]}) from None
    return session


def close_session(user: Any, session: PlaySession) -> PlaySession:
    """The GM closes the session; ``campaigns.signals.session_closed`` is sent after commit."""
    campaign = session.campaign
    _require_gm(user, campaign)
    with transaction.atomic():
        updated = PlaySession.objects.filter(pk=session.pk, status=PlaySession.Status.OPEN).update(
            status=PlaySession.Status.CLOSED, closed_at=timezone.now()
        )
        if not updated:
            raise ValidationError({"__all__": [_("This session is already closed.")]})
        session.refresh_from_db()
        dice.rotate_seed(campaign)  # reveal the session's seed, publish the next commitment
        publish(f"campaign:{campaign.pk}", "session-closed", {"session": session.pk})
        session_changed(user, session, opened=False)
        transaction.on_commit(lambda: session_closed.send(sender=PlaySession, session=session))
    return session


def rotate_roll_seed(user: Any, campaign: Campaign) -> tuple[Any, Any]:
    """A GM reveals the campaign's current dice seed now; the next commitment is published with it."""
    _require_gm(user, campaign)
    with transaction.atomic():
        revealed, current = dice.rotate_seed(campaign)
        if revealed is None:
            raise ValidationError({"__all__": [_("No roll was drawn from the current seed yet: nothing to reveal.")]})
        publish(f"campaign:{campaign.pk}", "seed-revealed", {"seed": revealed.index, "next": current.index})
    return revealed, current
