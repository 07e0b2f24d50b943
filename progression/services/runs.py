"""Runs of the session job that always finish: launch, enqueue, lease, sweep."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings as django_settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaigns.models import Campaign, PlaySession
from config.celery import app as celery_app
from live.events import publish
from progression.models import (
    RecalculationRun,
    SessionReview,
)
from progression.services.access import _require_gm

logger = logging.getLogger(__name__)

LIVE_KIND_RUN = "progression-run"
#: The Celery task that runs the job (:func:`progression.tasks.recalculate_session`).
TASK_NAME = "progression.recalculate_session"
#: Progress events per run, at most (plus the first and the last).
PROGRESS_EVENTS = 50


def launch_recalculation(actor: Any, session: PlaySession, *, reason: str = "manual") -> RecalculationRun:
    """The GM relaunches the job (e.g. after approving purchases)."""
    _require_gm(actor, session.campaign)
    with transaction.atomic():
        review = SessionReview.objects.filter(session=session).first()
        return _launch(session.campaign, session, actor=actor, reason=reason, revision=review.revision if review else 0)


def _launch(
    campaign: Campaign, session: PlaySession | None, *, actor: Any, reason: str, revision: int
) -> RecalculationRun:
    """Create a run and enqueue the task after commit; reuse an active run (idempotent launch).

    An active run that is dead (never sent, or its worker's lease expired) is
    re-sent rather than trusted: "relaunch" and "confirm awards" never attach
    to a run nobody will finish.
    """
    active = (
        RecalculationRun.objects.select_for_update()
        .filter(campaign=campaign, session=session, status__in=RecalculationRun.ACTIVE)
        .first()
    )
    if active is not None:
        if active.revision != revision:
            RecalculationRun.objects.filter(pk=active.pk).update(revision=revision)
            active.revision = revision
        if is_stale(active, unsent_grace=0):
            _resend(active)
        # The queued task recomputes from the ledger when it runs: it sees the new lines.
        return active
    now = timezone.now()
    run = RecalculationRun.objects.create(
        campaign=campaign, session=session, created_by=actor, reason=reason, revision=revision, heartbeat_at=now
    )
    publish(f"campaign:{campaign.pk}", LIVE_KIND_RUN, _run_data(run), gms_only=True)
    transaction.on_commit(lambda: enqueue(run.pk))
    return run


def lease_seconds() -> float:
    """A worker refreshes its run's heartbeat at least every quarter of this."""
    return float(getattr(django_settings, "TABLEE_RUN_LEASE_SECONDS", 120))


#: A run created but not sent yet is left alone this long (its on-commit send may be under way).
UNSENT_GRACE_SECONDS = 10.0


def is_stale(run: RecalculationRun, now: Any = None, *, unsent_grace: float = UNSENT_GRACE_SECONDS) -> bool:
    """Dead: active, and never sent (after a short grace), or no heartbeat within the lease."""
    if run.status not in RecalculationRun.ACTIVE:
        return False
    now = now or timezone.now()
    beat = run.heartbeat_at or run.started_at or run.created
    age = (now - beat).total_seconds()
    if run.status == RecalculationRun.Status.QUEUED and run.enqueued_at is None:
        return age >= min(unsent_grace, lease_seconds())
    return age > lease_seconds()


def enqueue(run_id: int) -> bool:
    """Send the task (``PROGRESSION_TASK_QUEUE`` setting: a dedicated queue, else the default).

    Called on commit. If the broker is down the run stays queued with
    ``enqueued_at`` empty and the sweeper (:func:`sweep_stale_runs`, a beat
    task) sends it again later: the request that launched it never fails.
    """
    # By name from the app's registry (filled from progression.tasks, which imports this package).
    recalculate_session = celery_app.tasks[TASK_NAME]
    queue = getattr(django_settings, "PROGRESSION_TASK_QUEUE", None)
    options: dict[str, Any] = {"queue": queue} if queue else {}
    eager = bool(recalculate_session.app.conf.task_always_eager)
    if eager:
        # In-process (embedded defaults, tests): no broker to miss.
        RecalculationRun.objects.filter(pk=run_id).update(enqueued_at=timezone.now())
        recalculate_session.apply_async(args=[run_id], **options)
        return True
    try:
        recalculate_session.apply_async(
            args=[run_id],
            retry=True,
            retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 1},
            **options,
        )
    except Exception as exc:  # kombu/redis connection errors: the broker is down
        logger.warning(
            "progression: run %s not sent (%s: %s); the sweeper will resend it", run_id, type(exc).__name__, exc
        )
        return False
    try:
        RecalculationRun.objects.filter(pk=run_id, enqueued_at__isnull=True).update(enqueued_at=timezone.now())
    except Exception:
        logger.warning("progression: run %s sent but not marked as sent", run_id, exc_info=True)
    return True


def _resend(run: RecalculationRun) -> None:
    """Mark a dead run interrupted, back to queued, and send it again on commit."""
    now = timezone.now()
    was_sent = run.enqueued_at is not None
    fields: dict[str, Any] = {
        "status": RecalculationRun.Status.QUEUED,
        "heartbeat_at": now,
        "lease": "",
        "resends": F("resends") + 1,
    }
    if was_sent or run.status == RecalculationRun.Status.RUNNING:
        fields["interrupted_at"] = now  # a broker that was down at enqueue is not an interruption of the job
    RecalculationRun.objects.filter(pk=run.pk).update(**fields)
    run.refresh_from_db()
    logger.warning("progression: run %s was dead (%s); re-sent", run.pk, "stale" if was_sent else "never sent")
    publish(f"campaign:{run.campaign_id}", LIVE_KIND_RUN, _run_data(run), gms_only=True)
    transaction.on_commit(lambda: enqueue(run.pk))


def sweep_stale_runs(*, session: PlaySession | None = None) -> list[int]:
    """Find dead runs (never sent, or lease expired) and re-send them. The beat task.

    Safe to run anywhere, any number of times: a re-sent run is claimed by one
    worker only (:func:`run_recalculation`'s lease), duplicates return early.
    """
    qs = RecalculationRun.objects.filter(status__in=RecalculationRun.ACTIVE)
    if session is not None:
        qs = qs.filter(session=session)
    now = timezone.now()
    resent: list[int] = []
    for pk in qs.values_list("pk", flat=True)[:500]:
        with transaction.atomic():
            run = RecalculationRun.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if run is not None and is_stale(run, now):
                _resend(run)
                resent.append(run.pk)
    return resent


class LeaseLost(Exception):
    """Another worker took the run over (this one was presumed dead): stop quietly."""


def _heartbeat(run: RecalculationRun, **values: Any) -> None:
    """Refresh the lease (and progress); raise :class:`LeaseLost` if the run is no longer ours."""
    now = timezone.now()
    if not RecalculationRun.objects.filter(pk=run.pk, lease=run.lease).update(heartbeat_at=now, **values):
        raise LeaseLost(run.pk)
    run.heartbeat_at = now


def _run_data(run: RecalculationRun) -> dict[str, Any]:
    return {
        "run": run.pk,
        "session": run.session_id,
        "status": run.status,
        "done": run.done,
        "total": run.total,
        "interrupted": run.interrupted,
    }
