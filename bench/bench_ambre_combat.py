"""Benchmark: Ambre combat exchanges resolved per second.

Run: ``.venv/bin/python bench/bench_ambre_combat.py [seconds]``

Resolves a rotating mix of declarations (melee, ranged, thrown, wrestling,
psychic, surprise, spell) through the public interface
(``SYSTEM.resolve_action``, validation and state changes included) and prints
exchanges/second, next to a trivial baseline measured in the same run (a
Python function that compares two numbers and builds a small dict), so the
ratio stays meaningful on a busy or slower machine.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import get_system
from rules.base import Combatant, SeededRandom

SYSTEM = get_system("ambre")


def _sheet(attrs, chars, powers):
    sheet = SYSTEM.default_sheet()
    sheet["attributes"] = dict(zip(("psy", "phy", "end", "cbt"), attrs, strict=True))
    keys = (
        "mental",
        "concentration",
        "volonte",
        "force",
        "dexterite",
        "rapidite",
        "adaptation",
        "regeneration",
        "resistance",
        "hab_distance",
        "hab_cac",
        "strategie",
    )
    sheet["characteristics"] = dict(zip(keys, chars, strict=True))
    sheet["powers"] = [{"power": p} for p in powers]
    return sheet


ARIANE = _sheet((0, 20, -10, 30), (10, 10, 5, 15, 10, 20, 5, 5, 5, 15, 30, 10), ("atouts",))
BOREL = _sheet((40, 0, 5, -25), (25, 25, 15, 5, 10, 10, 5, 5, 20, 0, 0, 0), ("logrus", "metamorphose"))
DECLARATIONS = [
    {"mode": "melee"},
    {"mode": "ranged", "within_reach": True},
    {"mode": "thrown", "target_mode": "unarmed"},
    {"mode": "wrestling"},
    {"mode": "psychic"},
    {"mode": "melee", "surprise": True, "weapon_quality": "double"},
    {"mode": "spell", "base_cost": 10, "modifications": 1, "prepared": True, "instant": True},
]


def _combatants():
    a = Combatant("ariane", "Ariane", "a", ARIANE, SYSTEM.combat_state(ARIANE, balances={"karma": 15}))
    b = Combatant("borel", "Borel", "b", BOREL, SYSTEM.combat_state(BOREL, balances={"karma": -3}))
    return a, b


def bench_exchanges(seconds: float) -> tuple[int, float]:
    a, b = _combatants()
    rng = SeededRandom(1)
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for decl in DECLARATIONS:
            actor, target = (b, a) if decl["mode"] in ("psychic", "spell") else (a, b)
            SYSTEM.resolve_action(actor, target, decl, rng)
        count += len(DECLARATIONS)
    return count, time.perf_counter() - start


def _trivial(a: int, b: int) -> dict[str, int]:
    return {"winner": 0 if a > b else 1, "margin": abs(a - b)}


def bench_baseline(seconds: float) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for i in range(1000):
            _trivial(i, 500)
        count += 1000
    return count, time.perf_counter() - start


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    bench_exchanges(0.2)  # warm-up
    n, t = bench_exchanges(seconds)
    bn, bt = bench_baseline(seconds)
    rate, base = n / t, bn / bt
    print(f"ambre combat: {rate:,.0f} exchanges/s ({n} exchanges in {t:.2f} s, {t / n * 1e6:.1f} µs each)")
    print(f"trivial baseline: {base:,.0f} calls/s (same run)")
    print(f"ratio: one exchange costs {base / rate:,.0f} trivial calls")


if __name__ == "__main__":
    main()
