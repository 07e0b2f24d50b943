"""A run can never be stuck: lease, sweeper, relaunch, enqueue failures, the GM's view (in-process)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from characters import ledger
from progression import services, tasks
from progression.models import CharacterBalance, RecalculationRun, SessionResult
from progression.tests.conftest import make_character, make_session

pytestmark = pytest.mark.django_db


def _cast(table: Any) -> list[Any]:
    cast = [make_character(table, table.player, f"PJ {n}") for n in range(3)]
    for n, c in enumerate(cast):
        ledger.append_entry(c, "karma", 20 + n, "creation_budget")
    return cast


def _entries(cast: list[Any]) -> dict[int, dict[str, Any]]:
    return {c.pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": 4} for c in cast}


def _dead_run(table: Any, cast: list[Any], monkeypatch: Any, *, status: str = "running") -> RecalculationRun:
    """A confirmed session whose run a killed worker left behind (lease expired)."""
    session = make_session(table)
    with monkeypatch.context() as m:
        m.setattr(services.runs, "enqueue", lambda run_id: True)
        run = services.confirm_session_awards(table.gm, session, entries=_entries(cast))
    old = timezone.now() - timedelta(seconds=services.lease_seconds() + 5)
    RecalculationRun.objects.filter(pk=run.pk).update(
        status=status, heartbeat_at=old, enqueued_at=old, lease="dead-worker", done=1, total=3
    )
    run.refresh_from_db()
    return run


def test_the_sweeper_resends_a_dead_run_and_it_finishes_once(
    table: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cast = _cast(table)
    run = _dead_run(table, cast, monkeypatch)
    assert services.is_stale(run)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_stale_runs() == [run.pk]
    run.refresh_from_db()
    assert run.status == "done" and run.resends == 1 and run.interrupted_at is not None and run.lease == ""
    assert [CharacterBalance.objects.get(character=c).balances for c in cast] == [
        {"karma": 24},
        {"karma": 25},
        {"karma": 26},
    ]
    # A second sweep finds nothing; the awards were applied once.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_stale_runs() == []
    assert ledger.balances(cast[0])["karma"] == 24


def test_a_live_run_is_not_swept_and_a_second_delivery_is_busy(table: Any, monkeypatch: Any) -> None:
    cast = _cast(table)
    run = _dead_run(table, cast, monkeypatch)
    RecalculationRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())
    run.refresh_from_db()
    assert not services.is_stale(run)
    assert services.sweep_stale_runs() == []
    assert services.run_recalculation(run.pk)["status"] == "busy"
    run.refresh_from_db()
    assert run.status == "running" and run.lease == "dead-worker" and run.attempts == 0
    assert CharacterBalance.objects.count() == 0


def test_a_worker_that_lost_its_lease_stops_without_writing(table: Any, monkeypatch: Any, settings: Any) -> None:
    settings.TABLEE_RUN_CHUNK_SIZE = 1
    cast = _cast(table)
    run = _dead_run(table, cast, monkeypatch, status="queued")

    def taken_over(run_: Any, index: int, character: Any) -> None:
        RecalculationRun.objects.filter(pk=run_.pk).update(lease="another-worker")

    monkeypatch.setattr(services.session_job, "checkpoint", taken_over)
    result = services.run_recalculation(run.pk)
    assert result["status"] == "taken-over"
    # The first character committed before the takeover; the second one's transaction was rolled back.
    assert SessionResult.objects.count() == 1
    # Ambre's balances are written by the campaign step, which a worker without its lease never reaches.
    assert CharacterBalance.objects.count() == 0
    assert RecalculationRun.objects.get(pk=run.pk).lease == "another-worker"


def test_a_worker_that_lost_its_lease_before_the_campaign_step_writes_no_balance(
    table: Any, monkeypatch: Any, settings: Any
) -> None:
    settings.TABLEE_RUN_CHUNK_SIZE = 10
    cast = _cast(table)
    run = _dead_run(table, cast, monkeypatch, status="queued")

    def taken_over(run_: Any, index: int, character: Any) -> None:
        if index == len(cast):  # every chunk committed: the step is next
            RecalculationRun.objects.filter(pk=run_.pk).update(lease="another-worker")

    monkeypatch.setattr(services.session_job, "checkpoint", taken_over)
    result = services.run_recalculation(run.pk)
    assert result["status"] == "taken-over"
    assert SessionResult.objects.count() == len(cast)
    assert CharacterBalance.objects.count() == 0
    # The worker holding the lease now finishes the run: every balance, whole (the step's ranks in it).
    monkeypatch.setattr(services.session_job, "checkpoint", lambda *args: None)
    RecalculationRun.objects.filter(pk=run.pk).update(status="queued", lease="")
    assert services.run_recalculation(run.pk)["status"] == "done"
    balances = list(CharacterBalance.objects.filter(character__in=cast).order_by("character_id"))
    assert [b.balances for b in balances] == [{"karma": 24}, {"karma": 25}, {"karma": 26}]
    assert all("ranks" in b.state and "karma_state" in b.state for b in balances)


def test_relaunch_resends_a_dead_run_instead_of_attaching_to_it(
    table: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cast = _cast(table)
    run = _dead_run(table, cast, monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        again = services.launch_recalculation(table.gm, run.session)
    assert again.pk == run.pk
    again.refresh_from_db()
    assert again.status == "done" and again.resends == 1
    assert CharacterBalance.objects.get(character=cast[2]).balances == {"karma": 26}


def test_the_broker_down_at_enqueue_leaves_a_queued_run_that_the_sweeper_sends(
    table: Any, monkeypatch: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    from kombu.exceptions import OperationalError as BrokerDown

    cast = _cast(table)
    session = make_session(table)
    app = tasks.recalculate_session.app
    monkeypatch.setattr(app.conf, "task_always_eager", False)
    sent: list[int] = []

    def down(*args: Any, **kwargs: Any) -> None:
        raise BrokerDown("Error 111 connecting to 127.0.0.1:6391. Connection refused.")

    monkeypatch.setattr(tasks.recalculate_session, "apply_async", down)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.confirm_session_awards(table.gm, session, entries=_entries(cast))  # no exception
    run.refresh_from_db()
    assert run.status == "queued" and run.enqueued_at is None and run.waiting_for_broker
    # Within the grace period the sweeper leaves it alone (its on-commit send may be under way).
    assert services.sweep_stale_runs() == []

    monkeypatch.setattr(tasks.recalculate_session, "apply_async", lambda args, **kw: sent.append(args[0]))
    RecalculationRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=30))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_stale_runs() == [run.pk]
    run.refresh_from_db()
    assert sent == [run.pk] and run.enqueued_at is not None and run.interrupted_at is None


def test_the_gm_sees_interrupted_relaunched_in_both_languages(table: Any, monkeypatch: Any, client: Any) -> None:
    cast = _cast(table)
    run = _dead_run(table, cast, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(services.runs, "enqueue", lambda run_id: True)
        services.sweep_stale_runs()
    url = f"/progression/sessions/{run.session_id}/progress/"
    client.force_login(table.gm)
    fr = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "interrompu — relancé" in fr and "relancé automatiquement" in fr
    table.gm.profile.language = "en"
    table.gm.profile.save()
    en = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "interrupted — relaunched" in en
    # A player never sees the run panel.
    client.force_login(table.player)
    assert client.get(url).status_code == 404


def test_the_task_settings_survive_lost_workers_and_long_outages(settings: Any) -> None:
    from config.celery import app

    assert app.conf.task_reject_on_worker_lost is True and app.conf.task_acks_late is True
    visibility = app.conf.broker_transport_options["visibility_timeout"]
    assert app.conf.task_time_limit < visibility <= app.conf.task_time_limit + 120  # matched to the job, not 1 h
    assert tasks.recalculate_session.max_retries * 60 >= 15 * 60  # ~25 minutes of PostgreSQL outage
    assert settings.CELERY_BEAT_SCHEDULE["progression-sweep-stale-runs"]["task"] == "progression.sweep_stale_runs"
