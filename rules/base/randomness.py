"""Random sources: every draw is injected, recorded and replayable.

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

import random as _random
import secrets
from collections.abc import Iterable
from typing import Protocol, runtime_checkable


# --------------------------------------------------------------------------
# Randomness
# --------------------------------------------------------------------------
@runtime_checkable
class RandomSource(Protocol):
    """What the rules need from a random source: inclusive integer draws."""

    def randint(self, a: int, b: int) -> int: ...


class SecureRandom:
    """Cryptographically secure draws (what the server uses for real rolls)."""

    def __init__(self) -> None:
        self._sys = secrets.SystemRandom()

    def randint(self, a: int, b: int) -> int:
        return self._sys.randint(a, b)


class SeededRandom:
    """Reproducible draws from a seed (tests, benchmarks, creation replays)."""

    def __init__(self, seed: int | str) -> None:
        self._rng = _random.Random(seed)

    def randint(self, a: int, b: int) -> int:
        return self._rng.randint(a, b)


class ScriptedRandom:
    """Returns the given draws in order: replays a recorded roll exactly.

    Raises :class:`ValueError` if a scripted draw is outside ``[a, b]`` or if
    the script runs out, so a replay that diverges is detected.
    """

    def __init__(self, draws: Iterable[int]) -> None:
        self._draws = list(draws)
        self._index = 0

    def randint(self, a: int, b: int) -> int:
        if self._index >= len(self._draws):
            raise ValueError("scripted random source exhausted")
        value = self._draws[self._index]
        self._index += 1
        if not a <= value <= b:
            raise ValueError(f"scripted draw {value} outside [{a}, {b}]")
        return value

    @property
    def remaining(self) -> int:
        return len(self._draws) - self._index


class RecordingRandom:
    """Wraps a source and records every draw with its die size, in order."""

    def __init__(self, source: RandomSource | None = None) -> None:
        self.source = source or SecureRandom()
        self.draws: list[int] = []
        self.dice: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        value = self.source.randint(a, b)
        self.draws.append(value)
        self.dice.append((a, b))
        return value

    # ``random.Random``-like API used by d20's expression evaluator.
    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        count = (stop - start + step - 1) // step
        return start + step * (self.randint(1, count) - 1)
