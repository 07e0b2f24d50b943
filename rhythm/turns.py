"""Whose turn it is in a scene: a pure computation over the posts of the round.

Kept free of the ORM so each mode is tested on plain lists: the services feed
it the participants in order, the authors of this round's posts in post
order, who is absent and who was skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass
class TurnState:
    """What a scene waits on now.

    ``waiting_on``: whom the scene waits for (strict order: one person; by
    rounds: everyone who has not posted yet; free: nobody). ``complete``: every
    participant has posted (or is absent or skipped), so the round may close.
    """

    mode: str
    participants: list[int]
    posted: list[int]
    absent: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    waiting_on: list[int] = field(default_factory=list)
    current: int | None = None
    complete: bool = False


def compute(
    mode: str,
    participants: Sequence[int],
    authors: Iterable[int],
    *,
    absent: Iterable[int] = (),
    skipped: Iterable[int] = (),
) -> TurnState:
    """Compute the turn state of a round.

    ``authors``: the author of each post of the round, in post order (posts by
    non-participants, e.g. the GM, are ignored). An absent or skipped
    participant is passed over; in strict order the turn belongs to the first
    participant of the list who has not posted yet.
    """
    order = list(dict.fromkeys(participants))
    members = set(order)
    posted = list(dict.fromkeys(a for a in authors if a in members))
    away = [p for p in order if p in set(absent)]
    passed = [p for p in order if p in set(skipped)]
    done = set(posted) | set(away) | set(passed)
    remaining = [p for p in order if p not in done]
    state = TurnState(mode=mode, participants=order, posted=posted, absent=away, skipped=passed)
    if mode == "free" or not order:
        return state
    state.complete = not remaining
    if mode == "order":
        state.current = remaining[0] if remaining else None
        state.waiting_on = remaining[:1]
    else:
        state.waiting_on = remaining
    return state
