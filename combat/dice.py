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

The random source itself is chosen in one place (:func:`_base_source`), so
the campaign's source (committed seeds, client nonce) can replace it here.
"""

from __future__ import annotations

from typing import Any

from campaigns.dice import record_roll
from campaigns.models import Campaign, Roll
from rules.base import RandomSource, RecordingRandom, SecureRandom

KIND = "combat"


def _base_source(campaign: Campaign) -> RandomSource:
    """The campaign's random source for combat draws."""
    return SecureRandom()


def source(campaign: Campaign, rng: RandomSource | None = None) -> RecordingRandom:
    """A recording source for one combat draw (``rng`` replaces the campaign's source in tests)."""
    return RecordingRandom(rng or _base_source(campaign))


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
    )


def undone_roll_ids(campaign: Campaign) -> set[int]:
    """Rolls of the campaign whose combat step was undone (they stay in the chain)."""
    from combat.models import LogEntry

    return set(
        LogEntry.objects.filter(
            encounter__campaign=campaign, roll__isnull=False, corrections__kind=LogEntry.Kind.UNDO
        ).values_list("roll_id", flat=True)
    )
