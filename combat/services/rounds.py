"""Rounds and the end of the fight: summaries posted to the thread, next round, end, GM notes."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, override

from campaigns.services import create_post
from combat.models import Declaration, Encounter, LogEntry, Round
from combat.services.common import _append, _lock, _require_active, _require_gm, both

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Rounds and the end of the fight
# ---------------------------------------------------------------------------
def round_summary(encounter: Encounter, number: int, lang: str) -> str:
    """A public summary of a round (what every member may read)."""
    lines = []
    entries = LogEntry.objects.filter(
        encounter=encounter,
        round_number=number,
        gm_only=False,
        kind__in=(
            LogEntry.Kind.INITIATIVE,
            LogEntry.Kind.STEP,
            LogEntry.Kind.SKIP,
            LogEntry.Kind.ADJUST,
            LogEntry.Kind.UNDO,
        ),
    ).order_by("sequence")
    for entry in entries:
        text = entry.public.get("text") or {}
        lines.append(f"- {text.get(lang) or text.get('fr', '')}")
    with override(lang):
        title = gettext("Fight “%(t)s”, round %(n)s") % {"t": encounter.title, "n": number}
        if not lines:
            lines.append("- " + gettext("Nothing happened."))
    return f"**{title}**\n\n" + "\n".join(lines)


def _post_summary(user: Any, encounter: Encounter, body: str) -> int | None:
    """Post a system message to the encounter's thread (campaigns' service)."""
    try:
        with transaction.atomic():
            post = create_post(user, encounter.thread, body=body, system_message=True)
    except (PermissionDenied, ValidationError, Http404):
        logger.warning("combat: round summary refused for encounter %s", encounter.pk, exc_info=True)
        return None
    return getattr(post, "pk", None)


def end_round(user: Any, encounter: Encounter, *, expected_round: int | None = None) -> Round:
    """End the round: pending actions are skipped, a summary is posted to the
    thread and the next round opens for declarations."""
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        _require_active(encounter)
        if expected_round is not None and expected_round != encounter.round_number:
            raise ValidationError({"__all__": [gettext("This round was already ended by someone else.")]})
        current = _close_round(user, encounter)
        encounter.round_number = current.number + 1
        encounter.save(update_fields=["round_number"])
        following = Round.objects.create(encounter=encounter, number=encounter.round_number)
        _append(
            encounter,
            LogEntry.Kind.ROUND_STARTED,
            actor=user,
            text=both(gettext_noop("Round %(n)s: declare your actions."), n=following.number),
            round_changed=True,
        )
    return following


def _close_round(user: Any, encounter: Encounter) -> Round:
    current = encounter.current_round()
    assert current is not None
    current.declarations.filter(status=Declaration.Status.PENDING).update(status=Declaration.Status.SKIPPED)
    current.phase = Round.Phase.ENDED
    current.ended = timezone.now()
    _append(
        encounter, LogEntry.Kind.ROUND_ENDED, actor=user, text=both(gettext_noop("Round %(n)s ends."), n=current.number)
    )
    current.summary_post_id = _post_summary(
        user, encounter, round_summary(encounter, current.number, encounter.campaign.language or "fr")
    )
    current.save(update_fields=["phase", "ended", "summary_post_id"])
    return current


def end_encounter(user: Any, encounter: Encounter) -> Encounter:
    """End the fight (the current round is closed and summarised)."""
    _require_gm(user, encounter.campaign)
    with transaction.atomic():
        encounter = _lock(encounter)
        if encounter.status == Encounter.Status.ENDED:
            raise ValidationError({"__all__": [gettext("The encounter is already over.")]})
        if encounter.status == Encounter.Status.ACTIVE and encounter.current_round() is not None:
            _close_round(user, encounter)
        encounter.status = Encounter.Status.ENDED
        encounter.ended_at = timezone.now()
        encounter.save(update_fields=["status", "ended_at"])
        _append(
            encounter,
            LogEntry.Kind.ENDED,
            actor=user,
            text=both(gettext_noop("The fight is over.")),
            round_changed=True,
        )
    return encounter


def set_gm_notes(user: Any, encounter: Encounter, *, notes: str) -> Encounter:
    """GM-only notes on the encounter (never shown to players)."""
    _require_gm(user, encounter.campaign)
    if len(notes or "") > 10000:
        raise ValidationError({"notes": [gettext("At most 10000 characters.")]})
    Encounter.objects.filter(pk=encounter.pk).update(gm_notes=notes or "")
    encounter.gm_notes = notes or ""
    return encounter
