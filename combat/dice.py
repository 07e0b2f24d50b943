"""Every random draw of a fight goes through here and into the campaign's roll chain.

A combat draw (initiative, a resolved step) is made with :func:`source`, a
:class:`rules.base.RecordingRandom` over the campaign's random source; once
the rules have drawn, :func:`record` appends one chained
:class:`campaigns.models.Roll` (kind ``"combat"``) through
:func:`campaigns.dice.record_roll`, and the log entry points at it
(``LogEntry.roll``). A diceless step (Ambre) draws nothing and records no roll.

An undone step keeps its roll in the chain: the roll is immutable; the
correcting log entry marks it undone (:func:`undone_roll_ids`) and the step
resolved again draws a new roll.

The random source is the campaign's fair source (committed seed, nonce, the
roll's request: :func:`campaigns.dice.fair_source`), made in one place (:func:`source`).
"""

from __future__ import annotations

from typing import Any

from campaigns.dice import fair_source, record_roll
from campaigns.models import Campaign, Roll
from combat.models import LogEntry
from rules.base import RandomSource, RecordingRandom

KIND = "combat"


def source(campaign: Campaign, rng: RandomSource | None = None, *, request: dict[str, Any]) -> RecordingRandom:
    """A recording source for one combat draw: the campaign's fair source for this roll
    (:func:`campaigns.dice.fair_source`: committed seed, nonce, request), or ``rng`` in tests.

    Call inside the transaction that records the roll, with the ``request`` :func:`record` stores.
    """
    if rng is not None:
        recorder = RecordingRandom(rng)
        recorder.fair = None  # type: ignore[attr-defined]
        return recorder
    fair = fair_source(campaign, request)
    recorder = RecordingRandom(fair)
    recorder.fair = fair  # type: ignore[attr-defined]
    return recorder


def record(
    campaign: Campaign,
    recorder: RecordingRandom,
    *,
    roller: Any,
    label: str,
    request: dict[str, Any],
    summary: dict[str, str] | None = None,
    character: Any = None,
    secret: bool = False,
) -> Roll | None:
    """Append the draws of ``recorder`` to the campaign's chain (``None`` when nothing was drawn)."""
    if not recorder.draws:
        return None
    resolution = {
        "draws": list(recorder.draws),
        "dice": [list(d) for d in recorder.dice],
        "summary": summary or {},
    }
    return record_roll(
        campaign,
        roller=roller if getattr(roller, "is_authenticated", False) else None,
        kind=KIND,
        system=campaign.system,
        request=request,
        resolution=resolution,
        label=label,
        secret=secret,
        character=character,
        source=getattr(recorder, "fair", None),
    )


def undone_roll_ids(campaign: Campaign) -> set[int]:
    """Rolls of the campaign whose combat step was undone (they stay in the chain)."""
    return set(
        LogEntry.objects.filter(
            encounter__campaign=campaign, roll__isnull=False, corrections__kind=LogEntry.Kind.UNDO
        ).values_list("roll_id", flat=True)
    )
