"""Progression writes and the session job (Zulip "actions" style), one module per area.

Every user-triggered write is one function here: it checks permission
(:class:`~django.http.Http404` for what the user may not see,
:class:`~django.core.exceptions.PermissionDenied` for a visible but
forbidden write, :class:`~django.core.exceptions.ValidationError` with
field errors for bad input), validates through :mod:`rules`, writes in one
transaction and publishes live events inside it.

The package re-exports every name so callers keep writing ``progression.services.confirm_session_awards``
(a test that replaces a hook, e.g. ``checkpoint`` or ``enqueue``, patches the module that calls it):

=================  ================================================================
``access``         who may see a session, a character's ledger; the GM check
``messages``       ledger notes in both languages
``awards``         the award screen, the GM's confirmation and corrections, the review at close
``runs``           runs that always finish: launch, enqueue, lease, heartbeat, sweep
``session_job``    the job: award lines to the ledger, per-chunk recomputation, campaign step
``ledger``         the campaign's ledger read once, streamed chunk by chunk
``sheets``         recomputed sheets stored as new versions
``purchases``      what a character can afford, purchase requests and their decision
``recap``          the session recap
=================  ================================================================
"""

from progression.services.access import (
    can_see_ledger,
    get_character_for_user,
    get_session_for_user,
    is_owner,
)
from progression.services.awards import (
    LIVE_KIND_REVIEW,
    MAX_AWARD,
    AwardRow,
    Suggestion,
    award_rows,
    confirm_session_awards,
    current_award_totals,
    reopen_session_awards,
    session_characters,
    session_presence,
    session_resolutions,
    start_session_review,
    suggest,
)
from progression.services.ledger import (
    EMPTY_JSON,
    CharacterLedger,
    LedgerStream,
)
from progression.services.messages import (
    entry_note,
    msg_text,
)
from progression.services.purchases import (
    GM_PURCHASE_FIELDS,
    LIVE_KIND_PURCHASE,
    affordable,
    current_session,
    decide_purchase,
    preview_purchase,
    request_purchase,
    session_purchases,
)
from progression.services.recap import (
    recap,
)
from progression.services.runs import (
    LIVE_KIND_RUN,
    PROGRESS_EVENTS,
    TASK_NAME,
    UNSENT_GRACE_SECONDS,
    LeaseLost,
    enqueue,
    is_stale,
    launch_recalculation,
    lease_seconds,
    sweep_stale_runs,
)
from progression.services.session_job import (
    BALANCE_FIELDS,
    JOB_FIELDS,
    RESULT_FIELDS,
    append_awards,
    apply_campaign_step,
    checkpoint,
    chunk_size,
    cyclic_gc_paused,
    recalculate_chunk,
    run_recalculation,
)
from progression.services.sheets import (
    save_sheet,
    save_sheets,
)

__all__ = [
    "BALANCE_FIELDS",
    "EMPTY_JSON",
    "GM_PURCHASE_FIELDS",
    "JOB_FIELDS",
    "LIVE_KIND_PURCHASE",
    "LIVE_KIND_REVIEW",
    "LIVE_KIND_RUN",
    "MAX_AWARD",
    "PROGRESS_EVENTS",
    "RESULT_FIELDS",
    "TASK_NAME",
    "UNSENT_GRACE_SECONDS",
    "AwardRow",
    "CharacterLedger",
    "LeaseLost",
    "LedgerStream",
    "Suggestion",
    "affordable",
    "append_awards",
    "apply_campaign_step",
    "award_rows",
    "can_see_ledger",
    "checkpoint",
    "chunk_size",
    "confirm_session_awards",
    "current_award_totals",
    "current_session",
    "cyclic_gc_paused",
    "decide_purchase",
    "enqueue",
    "entry_note",
    "get_character_for_user",
    "get_session_for_user",
    "is_owner",
    "is_stale",
    "launch_recalculation",
    "lease_seconds",
    "msg_text",
    "preview_purchase",
    "recalculate_chunk",
    "recap",
    "reopen_session_awards",
    "request_purchase",
    "run_recalculation",
    "save_sheet",
    "save_sheets",
    "session_characters",
    "session_presence",
    "session_purchases",
    "session_resolutions",
    "start_session_review",
    "suggest",
    "sweep_stale_runs",
]
