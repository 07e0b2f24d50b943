"""Concurrent declarations and resolutions against PostgreSQL: no log entry
is lost, duplicated or reordered, and the loser of a race is told why.

Skipped unless ``DATABASE_URL`` points at PostgreSQL (SQLite serialises
writers anyway)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from combat import services
from combat.models import Declaration, LogEntry

pytestmark = [
    pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="needs PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]


def _race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls at the same moment in threads; return results or exceptions."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = calls[index]()
        except Exception as exc:  # collected and asserted below
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _assert_log_is_gapless(encounter) -> list[int]:
    sequences = list(LogEntry.objects.filter(encounter=encounter).order_by("id").values_list("sequence", flat=True))
    assert sequences == list(range(1, len(sequences) + 1))  # no gap, no duplicate, in commit order
    encounter.refresh_from_db()
    assert encounter.last_sequence == len(sequences)
    return sequences


def _fight(table):
    from combat.tests.test_visibility import _make_fight

    return _make_fight(table)


def test_players_declaring_at_the_same_moment_are_all_recorded(table, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    fight = _fight(table)
    t = fight.table
    extra = services.add_participant(t.gm, fight.encounter, name="Garde", count=5, side="opponents")
    services.start_encounter(t.gm, fight.encounter)
    before = LogEntry.objects.filter(encounter=fight.encounter).count()
    calls = [
        lambda: services.declare_action(t.player, fight.cendre, data={"action": "melee"}, target=fight.borel),
        lambda: services.declare_action(t.player2, fight.ariane, data={"action": "melee"}, target=fight.borel),
        lambda: services.declare_action(t.gm, fight.borel, data={"action": "psychic"}, target=fight.ariane),
    ] + [(lambda p=p: services.declare_action(t.cogm, p, data={"action": "melee"}, target=fight.cendre)) for p in extra]
    results = _race(calls)
    assert not [r for r in results if isinstance(r, Exception)]
    assert Declaration.objects.filter(round__encounter=fight.encounter).count() == len(calls)
    sequences = _assert_log_is_gapless(fight.encounter)
    assert len(sequences) == before + len(calls)


def test_two_gms_clicking_resolve_at_once_resolve_one_step(table, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    fight = _fight(table)
    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(t.player, fight.cendre, data={"action": "melee"}, target=fight.borel)
    services.declare_action(t.player2, fight.ariane, data={"action": "melee"}, target=fight.borel)
    services.reveal_declarations(t.gm, fight.encounter)
    results = _race(
        [
            lambda: services.resolve_next_step(t.gm, fight.encounter, expected_step=0),
            lambda: services.resolve_next_step(t.cogm, fight.encounter, expected_step=0),
        ]
    )
    winners = [r for r in results if isinstance(r, LogEntry)]
    losers = [r for r in results if isinstance(r, ValidationError)]
    assert len(winners) == 1 and len(losers) == 1, results
    assert "déjà été résolue" in losers[0].messages[0]
    assert LogEntry.objects.filter(encounter=fight.encounter, kind="step").count() == 1
    _assert_log_is_gapless(fight.encounter)
    # Borel was hit exactly once: Ariane acts first (Rapidité 20): raw 75 - 0, net 55, life 55 -> 0.
    fight.borel.refresh_from_db()
    assert fight.borel.state["life"] == 0


def test_many_concurrent_resolutions_never_duplicate_or_reorder(table, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    fight = _fight(table)
    t = fight.table
    guards = services.add_participant(t.gm, fight.encounter, name="Garde", count=6, side="opponents")
    services.start_encounter(t.gm, fight.encounter)
    for guard in guards:
        services.declare_action(t.gm, guard, data={"action": "power", "energy_cost": 1})
    services.reveal_declarations(t.gm, fight.encounter)
    users = [t.gm, t.cogm] * 4
    results = _race([(lambda u=u: services.resolve_next_step(u, fight.encounter)) for u in users])
    steps = [r for r in results if isinstance(r, LogEntry)]
    refused = [r for r in results if isinstance(r, ValidationError)]
    assert len(steps) == 6 and len(refused) == 2
    assert len({s.detail["step"] for s in steps}) == 6  # each initiative step resolved exactly once
    logged = list(LogEntry.objects.filter(encounter=fight.encounter, kind="step").order_by("sequence"))
    assert [e.detail["step"] for e in logged] == sorted(e.detail["step"] for e in logged)
    for guard in guards:
        guard.refresh_from_db()
        assert guard.state["energy"] == guard.state["energy_max"] - 1
    _assert_log_is_gapless(fight.encounter)


def test_two_gms_resolving_everything_at_once_share_the_steps(table, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    fight = _fight(table)
    t = fight.table
    guards = services.add_participant(t.gm, fight.encounter, name="Garde", count=8, side="opponents")
    services.start_encounter(t.gm, fight.encounter)
    for guard in guards:
        services.declare_action(t.gm, guard, data={"action": "power", "energy_cost": 2})
    services.reveal_declarations(t.gm, fight.encounter)
    results = _race(
        [lambda: services.resolve_round(t.gm, fight.encounter), lambda: services.resolve_round(t.cogm, fight.encounter)]
    )
    resolved = [e for r in results if isinstance(r, list) for e in r]
    assert len(resolved) == 8, results
    assert sorted(e.detail["step"] for e in resolved) == sorted(set(e.detail["step"] for e in resolved))
    for guard in guards:
        guard.refresh_from_db()
        assert guard.state["energy"] == guard.state["energy_max"] - 2
    _assert_log_is_gapless(fight.encounter)
