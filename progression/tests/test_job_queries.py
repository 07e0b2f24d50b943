"""The session job's SQL does not grow with the campaign: the same statements for 10 characters as
for 50 (one chunk each), and one more set per extra chunk only (issue #21)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from characters import ledger
from conftest import make_table
from progression import services
from progression.models import CharacterBalance, RecalculationRun, SessionAward, SessionResult
from progression.tests.conftest import make_character, make_session

pytestmark = pytest.mark.django_db


def _campaign(system: str, size: int, prefix: str) -> RecalculationRun:
    """A closed session of ``size`` characters, each with a few ledger entries and one award line."""
    table = make_table(system, prefix=prefix)
    session = make_session(table)
    currency = "karma" if system == "ambre" else "xp"
    for n in range(size):
        character = make_character(table, table.player, f"PJ {n}")
        ledger.append_entry(character, currency, 100, "creation_budget")
        ledger.append_entry(character, currency, -3, "purchase")
        SessionAward.objects.create(
            session=session,
            character=character,
            code="gm_extra",
            currency=currency,
            amount=2,
            kind="gm_award",
            created_by=table.gm,
        )
    return RecalculationRun.objects.create(campaign=table.campaign, session=session, reason="test")


def _queries(run: RecalculationRun) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        result = services.run_recalculation(run.pk)
    assert result["status"] == "done", result
    return [q["sql"] for q in captured.captured_queries]


def _shape(queries: list[str]) -> list[str]:
    """The statements without their values (transaction control left out)."""
    out = []
    for q in queries:
        if q.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")):
            continue
        q = re.sub(r"'(?:[^']|'')*'|\d+", "?", q)  # values, ids, cursor names
        out.append(re.sub(r"\?(?:, \?)+", "?", q)[:70])
    return out


@pytest.mark.parametrize("system", ["ambre", "altaride"])
def test_the_job_sends_the_same_statements_for_10_and_50_characters(system: str, settings: Any) -> None:
    settings.TABLEE_RUN_CHUNK_SIZE = 200
    small, large = _campaign(system, 10, "s"), _campaign(system, 50, "l")
    few, many = _queries(small), _queries(large)
    assert len(few) == len(many), (len(few), len(many))
    assert _shape(few) == _shape(many)
    # And the job did the work: every character has its balance and its session result.
    assert CharacterBalance.objects.filter(run=large).count() == 50
    assert SessionResult.objects.filter(run=large).count() == 50
    # A rerun (nothing new for the ledger) is no bigger either.
    again = RecalculationRun.objects.create(campaign=large.campaign, session=large.session, reason="test")
    assert len(_queries(again)) <= len(many)


def test_each_extra_chunk_adds_a_constant_number_of_statements(settings: Any) -> None:
    settings.TABLEE_RUN_CHUNK_SIZE = 10
    one, three = _campaign("ambre", 10, "a"), _campaign("ambre", 30, "b")
    first, second = len(_queries(one)), len(_queries(three))
    per_chunk = (second - first) / 2
    assert per_chunk == int(per_chunk) and 0 < per_chunk <= 8, (first, second)


def test_save_sheets_copies_each_new_row_into_the_history() -> None:
    from django.db import transaction

    from characters.models import Character, SheetVersion

    table = make_table("ambre", prefix="h")
    alice, bruno = make_character(table, table.player, "Alice"), make_character(table, table.player2, "Bruno")
    changes = [(alice, {**alice.sheet, "note": "a"}), (bruno, {**bruno.sheet, "note": "b"})]
    with transaction.atomic():
        services.save_sheets(changes, reason="progression-ranks")
    for character, note in ((alice, "a"), (bruno, "b")):
        row = Character.objects.get(pk=character.pk)
        version = SheetVersion.objects.get(character=character, version=row.version)
        assert row.sheet["note"] == note and version.sheet == row.sheet and row.version == character.version
        assert (version.name, version.status, version.reason, version.author_id) == (
            row.name,
            row.status,
            "progression-ranks",
            None,
        )
        assert version.schema_version == row.schema_version and version.created is not None
    assert SheetVersion.objects.filter(character__in=[alice, bruno]).count() == 2


@pytest.mark.parametrize("system", ["ambre", "altaride"])
def test_the_job_leaves_alone_the_rows_between_its_characters(system: str, settings: Any) -> None:
    """The chunks and the campaign step lock a range of ids: a draft and another campaign's character
    whose ids fall among the run's characters are neither computed nor rewritten."""
    from characters.models import Character

    settings.TABLEE_RUN_CHUNK_SIZE = 2
    table, other = make_table(system, prefix="in"), make_table(system, prefix="out")
    currency = "karma" if system == "ambre" else "xp"
    session = make_session(table)
    cast, strangers = [], []
    for n in range(3):
        cast.append(make_character(table, table.player, f"PJ {n}"))
        strangers.append(make_character(table, table.player, f"Brouillon {n}", status=Character.Status.DRAFT))
        strangers.append(make_character(other, other.player, f"Ailleurs {n}"))
    for character in cast + strangers:
        ledger.append_entry(character, currency, 10, "creation_budget")
    versions = {c.pk: Character.objects.get(pk=c.pk).version for c in strangers}
    run = RecalculationRun.objects.create(campaign=table.campaign, session=session, reason="test")
    assert services.run_recalculation(run.pk)["status"] == "done"
    assert set(CharacterBalance.objects.values_list("character_id", flat=True)) == {c.pk for c in cast}
    assert set(SessionResult.objects.values_list("character_id", flat=True)) == {c.pk for c in cast}
    assert {c.pk: c.version for c in Character.objects.filter(pk__in=versions)} == versions
    assert RecalculationRun.objects.get(pk=run.pk).done == 3


def test_the_job_finds_the_award_lines_already_in_the_ledger() -> None:
    from progression.services.session_job import _written_award_keys

    run = _campaign("ambre", 3, "w")
    other = _campaign("ambre", 2, "v")
    session = run.session
    assert _written_award_keys(session) == []
    assert services.run_recalculation(run.pk)["status"] == "done"
    assert services.run_recalculation(other.pk)["status"] == "done"
    lines = SessionAward.objects.filter(session=session)
    assert sorted(_written_award_keys(session)) == sorted(f"progression:award:{line.pk}" for line in lines)
    assert sorted(line.ledger_key for line in lines) == sorted(_written_award_keys(session))
    assert len(_written_award_keys(other.session)) == 2


def test_an_award_line_goes_to_the_ledger_as_it_is() -> None:
    from characters.models import LedgerEntry

    run = _campaign("ambre", 2, "a")
    character = SessionAward.objects.filter(session=run.session).first().character
    line = SessionAward.objects.create(
        session=run.session,
        character=character,
        code="gm_extra",
        currency="karma",
        amount=2,
        kind="gm_award",
        note="Bravoure « é »",
        data={"reason": "duel", "n": 2},
        created_by=run.campaign.created_by,
    )
    assert services.run_recalculation(run.pk)["status"] == "done"
    entry = LedgerEntry.objects.get(key=f"progression:award:{line.pk}")
    assert (entry.character_id, entry.currency, entry.amount, entry.kind) == (line.character_id, "karma", 2, "gm_award")
    assert (entry.session_id, entry.created_by_id, entry.note) == (run.session_id, line.created_by_id, "Bravoure « é »")
    assert entry.data == {"reason": "duel", "n": 2, "award_line": line.pk, "code": "gm_extra"}
    assert entry.approval == LedgerEntry.Approval.APPROVED
