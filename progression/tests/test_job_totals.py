"""The session job reads the ledger as sums for a system whose progression reads only sums
(``progression_reads_totals``): balances and session results equal those of the line-by-line read,
with lines in earlier, this and later sessions, and without session before and after the close."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

import rules
from campaigns.models import PlaySession
from characters import ledger
from characters.models import LedgerEntry
from conftest import make_table
from progression import services
from progression.models import CharacterBalance, RecalculationRun, SessionAward, SessionResult
from progression.tests.conftest import make_character, make_session

pytestmark = pytest.mark.django_db


def _rows(campaign: Any) -> tuple[list[Any], list[Any]]:
    balances = [
        (b.character_id, b.balances, b.flags, b.notes, b.entries_count, b.last_entry_id)
        for b in CharacterBalance.objects.filter(character__campaign=campaign).order_by("character_id")
    ]
    results = [
        (r.character_id, r.before, r.after, r.flags, r.notes, r.state)
        for r in SessionResult.objects.filter(character__campaign=campaign).order_by("character_id")
    ]
    return balances, results


@pytest.mark.parametrize("slug", ["ambre", "altaride", "clefs-de-l-aube"])
def test_the_sums_give_what_the_lines_give(slug: str, monkeypatch: Any) -> None:
    table = make_table(slug, prefix=f"jt{slug[:3]}")
    system = rules.get_system(slug)
    assert system.progression_reads_totals
    currency = "karma" if slug == "ambre" else "xp"
    first, second, third = (make_session(table, n) for n in (1, 2, 3))
    characters = []
    for n, amounts in enumerate(([100, -30, 5], [10, -200], [0, 7, -7, 50])):
        character = make_character(table, table.player, f"PJ {n}")
        characters.append(character)
        for i, amount in enumerate(amounts):
            session = (first, second, third, None)[(i + n) % 4]
            ledger.append_entry(character, currency, amount, "gm_award", session=session)
        ledger.append_entry(character, currency, 3 + n, "gm_award")  # no session, before the close
        SessionAward.objects.create(
            session=second,
            character=character,
            code="gm_extra",
            currency=currency,
            amount=4,
            kind="gm_award",
            created_by=table.gm,
        )
    # The second session closes now: what comes without session from here on is after it.
    PlaySession.objects.filter(pk=second.pk).update(closed_at=timezone.now())
    second.refresh_from_db()
    for n, character in enumerate(characters):
        ledger.append_entry(character, currency, -(2 + n), "gm_award")
    run = RecalculationRun.objects.create(campaign=table.campaign, session=second, reason="totals")
    assert services.run_recalculation(run.pk)["status"] == "done"
    as_sums = _rows(table.campaign)
    assert as_sums[0] and as_sums[1]

    monkeypatch.setattr(type(system), "progression_reads_totals", False)
    again = RecalculationRun.objects.create(campaign=table.campaign, session=second, reason="lines")
    assert services.run_recalculation(again.pk)["status"] == "done"
    assert _rows(table.campaign) == as_sums
    # The balance is the sum of every approved line; the session's "before" leaves out its own lines.
    for character_id, balances, *_rest in as_sums[0]:
        total = sum(LedgerEntry.objects.filter(character_id=character_id).values_list("amount", flat=True))
        assert balances[currency] == total


@pytest.mark.parametrize("sessions", [0, 1])
def test_the_sums_give_what_the_lines_give_without_a_session_or_at_the_first(sessions: int, monkeypatch: Any) -> None:
    """A run of no session (a campaign-wide recalculation) and a run of the campaign's first session
    (nothing before it, nothing after it): some sides are empty, the results are still the lines'."""
    table = make_table("ambre", prefix=f"jn{sessions}")
    system = rules.get_system("ambre")
    session = make_session(table, 1) if sessions else None
    for n, amounts in enumerate(([100, -30], [0], [-5, 7])):
        character = make_character(table, table.player, f"PJ {n}")
        for amount in amounts:
            ledger.append_entry(character, "karma", amount, "gm_award", session=session)
        ledger.append_entry(character, "karma", 2, "gm_award")
    run = RecalculationRun.objects.create(campaign=table.campaign, session=session, reason="totals")
    assert services.run_recalculation(run.pk)["status"] == "done"
    as_sums = _rows(table.campaign)
    assert len(as_sums[0]) == 3 and len(as_sums[1]) == (3 if sessions else 0)
    monkeypatch.setattr(type(system), "progression_reads_totals", False)
    again = RecalculationRun.objects.create(campaign=table.campaign, session=session, reason="lines")
    assert services.run_recalculation(again.pk)["status"] == "done"
    assert _rows(table.campaign) == as_sums
