"""The session job: idempotence, crash and retry, natural 1s, Ambre karma and ranks."""

from __future__ import annotations

from typing import Any

import pytest

from characters import ledger
from characters.models import LedgerEntry
from conftest import make_table
from progression import services
from progression.models import CharacterBalance, RecalculationRun, SessionAward, SessionResult
from progression.tests.conftest import make_character, make_roll, make_session

pytestmark = pytest.mark.django_db


def _ambre_cast(table: Any) -> tuple[Any, Any]:
    alice = make_character(table, table.player, "Alice")
    bruno = make_character(table, table.player2, "Bruno")
    for character, amounts in ((alice, [100, -60, 5]), (bruno, [100, -90])):
        for n, amount in enumerate(amounts):
            ledger.append_entry(character, "karma", amount, "creation_budget" if n == 0 else "purchase")
    return alice, bruno


def _confirm(table: Any, session: Any, awards: dict[Any, int], run_on_commit: Any) -> RecalculationRun:
    entries = {
        c.pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": amount, "extra_note": ""}
        for c, amount in awards.items()
    }
    return run_on_commit(services.confirm_session_awards, table.gm, session, entries=entries)


def _state(campaign: Any) -> list[tuple[str, dict[str, int], list[str]]]:
    rows = CharacterBalance.objects.filter(character__campaign=campaign).select_related("character")
    return sorted((b.character.name, b.balances, [f["code"] for f in b.flags]) for b in rows)


def test_it_applies_awards_and_is_idempotent(table: Any, run_on_commit: Any) -> None:
    alice, bruno = _ambre_cast(table)
    session = make_session(table)
    run = _confirm(table, session, {alice: 10, bruno: 3}, run_on_commit)
    run.refresh_from_db()
    assert run.status == "done" and run.done == run.total == 2
    first = _state(table.campaign)
    assert first == [("Alice", {"karma": 55}, []), ("Bruno", {"karma": 13}, [])]
    entries = LedgerEntry.objects.count()
    results = sorted(SessionResult.objects.values_list("character__name", "before", "after"))
    assert results == [("Alice", {"karma": 45}, {"karma": 55}), ("Bruno", {"karma": 10}, {"karma": 13})]

    again = run_on_commit(services.launch_recalculation, table.gm, session)
    assert again.pk != run.pk
    again.refresh_from_db()
    assert again.status == "done"
    # Running the task body a third time on a finished run does nothing either.
    services.run_recalculation(again.pk)
    assert _state(table.campaign) == first
    assert LedgerEntry.objects.count() == entries
    assert sorted(SessionResult.objects.values_list("character__name", "before", "after")) == results
    assert ledger.balances(alice)["karma"] == 55


def test_it_gives_the_same_balances_after_a_crash_and_a_retry(
    run_on_commit: Any, monkeypatch: Any, settings: Any
) -> None:
    settings.TABLEE_RUN_CHUNK_SIZE = 2  # chunks of two: the crash after the third leaves four committed
    calm = make_table("ambre", prefix="calm")
    crashy = make_table("ambre", prefix="crash")
    for table in (calm, crashy):
        cast = [make_character(table, table.player, f"PJ {n}") for n in range(5)]
        for n, character in enumerate(cast):
            ledger.append_entry(character, "karma", 50 + n, "creation_budget")
            ledger.append_entry(character, "karma", -(10 * n), "purchase")
        table.cast = cast
        table.session = make_session(table)
    _confirm(calm, calm.session, {c: 7 + n for n, c in enumerate(calm.cast)}, run_on_commit)

    def crash(run: Any, index: int, character: Any) -> None:
        if index == 3:
            raise RuntimeError("worker killed")

    monkeypatch.setattr(services.session_job, "checkpoint", crash)
    with pytest.raises(RuntimeError):
        _confirm(crashy, crashy.session, {c: 7 + n for n, c in enumerate(crashy.cast)}, run_on_commit)
    run = RecalculationRun.objects.get(campaign=crashy.campaign, reason="awards_confirmed")
    assert run.status == "failed" and "worker killed" in run.error
    # Half-way: two chunks (four characters) committed, the last one not yet; Ambre's balances are
    # written by the campaign step after the chunks (whole, with the ranks): none yet.
    assert SessionResult.objects.filter(character__campaign=crashy.campaign).count() == 4
    assert CharacterBalance.objects.filter(character__campaign=crashy.campaign).count() == 0
    monkeypatch.setattr(services.session_job, "checkpoint", lambda *a: None)
    services.run_recalculation(run.pk)  # the redelivered message
    run.refresh_from_db()
    assert run.status == "done" and run.attempts == 2
    assert _state(crashy.campaign) == _state(calm.campaign)
    assert LedgerEntry.objects.filter(character__campaign=crashy.campaign).count() == (
        LedgerEntry.objects.filter(character__campaign=calm.campaign).count()
    )


def test_it_counts_altaride_natural_ones_of_the_session_only(altaride_table: Any, run_on_commit: Any) -> None:
    table = altaride_table
    hero = make_character(table, table.player, "Héros")
    other = make_character(table, table.player2, "Autre")
    earlier = make_session(table, 1)
    session = make_session(table, 2)
    make_roll(table, hero, session, ["natural_1"])
    make_roll(table, hero, session, ["natural_1"])
    make_roll(table, hero, session, ["success"])
    make_roll(table, hero, earlier, ["natural_1"])  # another session
    make_roll(table, hero, None, ["natural_1"])  # outside any session
    make_roll(table, other, session, ["natural_1"])  # someone else's

    rows = {r.character.name: r for r in services.award_rows(session)}
    hero_suggestions = {s.code: s.amount for s in rows["Héros"].suggestions}
    assert hero_suggestions == {"gm_award:session": 15, "system_award:natural_ones": 2}
    assert rows["Autre"].natural_ones == 1

    entries = {
        hero.pk: {"present": True, "facts": {"gm_award": "20"}, "amounts": {}, "suggested": {}, "extra": 0},
        other.pk: {"present": True, "facts": {"gm_award": "15"}, "amounts": {}, "suggested": {}, "extra": 0},
    }
    run_on_commit(services.confirm_session_awards, table.gm, session, entries=entries)
    assert ledger.balances(hero)["xp"] == 22
    assert ledger.balances(other)["xp"] == 16
    assert CharacterBalance.objects.get(character=hero).balances == {"xp": 22}


def test_it_refuses_an_altaride_award_out_of_range(altaride_table: Any, run_on_commit: Any) -> None:
    from django.core.exceptions import ValidationError

    table = altaride_table
    hero = make_character(table, table.player, "Héros")
    session = make_session(table)
    entries = {hero.pk: {"present": True, "facts": {"gm_award": "70"}, "amounts": {}, "suggested": {}, "extra": 0}}
    with pytest.raises(ValidationError) as info:
        run_on_commit(services.confirm_session_awards, table.gm, session, entries=entries)
    assert f"{hero.pk}.gm_award" in info.value.message_dict
    assert "15" in info.value.message_dict[f"{hero.pk}.gm_award"][0]
    assert SessionAward.objects.count() == 0 and RecalculationRun.objects.count() == 0


def test_it_repays_ambre_debt_with_new_karma(table: Any, run_on_commit: Any) -> None:
    debtor = make_character(table, table.player, "Débiteur")
    ledger.append_entry(debtor, "karma", 100, "creation_budget")
    ledger.append_entry(debtor, "karma", -112, "purchase", data={"loan": True})
    session = make_session(table)
    run_on_commit(services.start_session_review, session)
    snapshot = CharacterBalance.objects.get(character=debtor)
    assert snapshot.balances == {"karma": -12}
    assert snapshot.state["karma_state"]["state"] == "bad" and snapshot.state["karma_state"]["loan"] == 12
    assert snapshot.has_flag("negative_karma")

    _confirm(table, session, {debtor: 15}, run_on_commit)
    snapshot.refresh_from_db()
    assert snapshot.balances == {"karma": 3}
    assert snapshot.state["karma_state"]["state"] == "good" and snapshot.state["karma_state"]["loan"] == 0
    assert not snapshot.has_flag("negative_karma")
    result = SessionResult.objects.get(session=session, character=debtor)
    assert (result.before, result.after) == ({"karma": -12}, {"karma": 3})


def test_it_flags_a_mortal_wound_with_negative_karma_without_killing(table: Any, run_on_commit: Any) -> None:
    sheet = {"condition": {"life_damage": 0, "energy_spent": 0, "wounds": {"mortal": 1}}}
    dying = make_character(table, table.player, "Mourant", sheet=sheet)
    ledger.append_entry(dying, "karma", -5, "purchase")
    session = make_session(table)
    run_on_commit(services.start_session_review, session)
    snapshot = CharacterBalance.objects.get(character=dying)
    assert snapshot.has_flag("mortal_wound_negative_karma")
    dying.refresh_from_db()
    assert dying.status == "approved"


def test_it_makes_an_ambre_rank_secret_after_a_buy_up(table: Any, run_on_commit: Any) -> None:
    from characters.models import SheetVersion
    from rules import get_system

    first = make_character(
        table,
        table.player,
        "Corwin",
        sheet={
            "attributes": {"psy": 0, "phy": 30, "end": 0, "cbt": 0},
            "ladder": {"phy": {"public_position": 1, "true_position": 1}},
        },
    )
    second = make_character(
        table,
        table.player2,
        "Eric",
        sheet={
            "attributes": {"psy": 0, "phy": 20, "end": 0, "cbt": 0},
            "ladder": {"phy": {"public_position": 2, "true_position": 2}},
        },
    )
    for character in (first, second):
        ledger.append_entry(character, "karma", 40, "creation_budget")
    # Eric buys 15 points of Physique after the auction (a private buy-up).
    purchase = services.request_purchase(
        table.player2,
        second,
        request={"kind": "attribute", "attribute": "phy", "points": 15, "allocation": {"force": 15}},
    )
    services.decide_purchase(table.gm, purchase, approve=True)
    second.refresh_from_db()
    assert second.sheet["attributes"]["phy"] == 35
    assert ledger.balances(second)["karma"] == 25

    session = make_session(table)
    run_on_commit(services.start_session_review, session)
    second.refresh_from_db()
    first.refresh_from_db()
    # The true ladder is the GMs' (snapshot "ranks"); sheets keep public positions only (L18, issue #19 item 1).
    assert second.sheet["ladder"]["phy"] == {"public_position": 2, "public_points": 20}
    assert first.sheet["ladder"]["phy"] == {"public_position": 1}
    ranks = CharacterBalance.objects.get(character=second).state["ranks"]["phy"]
    assert ranks["secret"] is True and ranks["label"] == "dominant"
    known = CharacterBalance.objects.get(character=second).state["known_ranks"]["phy"]
    assert known["secret"] is True and known["label"] == "ranked" and known["public_position"] == 2
    assert CharacterBalance.objects.get(character=first).state["ranks"]["phy"]["secret"] is False
    assert CharacterBalance.objects.get(character=first).state["known_ranks"]["phy"]["label"] == "dominant"
    derived = get_system("ambre").derive(second.sheet)
    assert derived["attributes"]["phy"]["secret"] is True
    versions = SheetVersion.objects.filter(character=second).count()
    # Recalculating again changes nothing (no new sheet version).
    run_on_commit(services.launch_recalculation, table.gm, session)
    assert SheetVersion.objects.filter(character=second).count() == versions


def test_it_appends_corrections_after_reopening(table: Any, run_on_commit: Any) -> None:
    alice, _bruno = _ambre_cast(table)
    session = make_session(table)
    _confirm(table, session, {alice: 10}, run_on_commit)
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        _confirm(table, session, {alice: 4}, run_on_commit)
    services.reopen_session_awards(table.gm, session)
    _confirm(table, session, {alice: 4}, run_on_commit)
    lines = list(SessionAward.objects.filter(character=alice).values_list("kind", "amount", "revision"))
    assert lines == [("gm_award", 10, 1), ("correction", -6, 2)]
    assert ledger.balances(alice)["karma"] == 45 + 4
    kinds = list(LedgerEntry.objects.filter(character=alice, session=session).values_list("kind", "amount"))
    assert kinds == [("gm_award", 10), ("correction", -6)]
    assert SessionResult.objects.get(session=session, character=alice).after == {"karma": 49}


def test_it_records_the_karma_state_change_for_the_recap(table: Any, run_on_commit: Any) -> None:
    debtor = make_character(table, table.player, "Débiteur")
    ledger.append_entry(debtor, "karma", -4, "purchase")
    session = make_session(table)
    _confirm(table, session, {debtor: 10}, run_on_commit)
    state = SessionResult.objects.get(session=session, character=debtor).state
    assert state["karma_before"]["state"] == "bad" and state["karma_before"]["loan"] == 4
    assert state["karma_after"]["state"] == "good" and state["karma_after"]["loan"] == 0
    assert state["before_flags"] == ["negative_karma"]
