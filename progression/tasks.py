"""Celery tasks of the progression app.

``recalculate_session`` takes a run id (never model instances), re-reads the
world and recomputes it from the append-only ledger (see
:func:`progression.services.run_recalculation`). ``acks_late``: a worker that
dies mid-way leaves the message unacknowledged, so it is redelivered and the
run restarts; the per-character transactions and ledger keys make that safe.
Transient database errors are retried with a jittered backoff.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from progression import services


@shared_task(
    name="progression.recalculate_session",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
)
def recalculate_session(run_id: int) -> dict[str, Any]:
    return services.run_recalculation(run_id)
