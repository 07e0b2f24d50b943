"""Celery tasks of the progression app.

``recalculate_session`` takes a run id (never model instances), re-reads the
world and recomputes it from the append-only ledger (see
:func:`progression.services.run_recalculation`). A run can never be stuck:

* ``acks_late`` + ``reject_on_worker_lost`` (settings): a killed pool process
  puts the message back at once; the Redis visibility timeout is matched to
  the task's time limit, so a whole worker killed gives it back in minutes;
* the run row carries a lease (heartbeat): a second delivery of a run whose
  worker is alive answers "busy" and looks again later; a dead one is taken over;
* transient database errors are retried with a jittered backoff for about
  ``TABLEE_RUN_MAX_RETRIES`` × 60 s (a long PostgreSQL outage);
* past every retry, ``sweep_stale_runs`` (beat, every
  ``TABLEE_RUN_SWEEP_INTERVAL`` seconds) re-sends runs whose lease expired or
  whose message never reached the broker.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from progression import services


@shared_task(
    bind=True,
    name=services.TASK_NAME,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=getattr(settings, "TABLEE_RUN_MAX_RETRIES", 30),
)
def recalculate_session(self: Any, run_id: int) -> dict[str, Any]:
    result = services.run_recalculation(run_id)
    if result.get("status") == "busy" and not self.request.is_eager:
        # Another delivery of this run holds a live lease: look again once it may have expired.
        raise self.retry(countdown=max(1.0, services.lease_seconds() / 2), max_retries=None)
    return result


@shared_task(name="progression.sweep_stale_runs", ignore_result=True)
def sweep_stale_runs() -> list[int]:
    """Beat: re-send dead runs (never sent, or lease expired)."""
    return services.sweep_stale_runs()
