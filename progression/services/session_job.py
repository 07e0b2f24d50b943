"""The session job (:func:`run_recalculation`, run by
:func:`progression.tasks.recalculate_session`) recomputes every character of
the campaign from the append-only ledger, set-based:

1. append the session's confirmed award lines missing from the ledger in one
   ``INSERT … ON CONFLICT DO NOTHING`` (idempotent: ledger key
   ``progression:award:<line id>``; :func:`append_awards`);
2. read the campaign's approved ledger once, one query in character order,
   streamed chunk by chunk (:class:`LedgerStream`);
3. per chunk of ``TABLEE_RUN_CHUNK_SIZE`` characters, one transaction
   (:func:`recalculate_chunk`): lock the characters, call the system's
   ``apply_progression`` per character (pure and idempotent: it never mutates
   its inputs, so nothing is copied for it), upsert :class:`CharacterBalance`
   and the session's :class:`SessionResult` in bulk (``INSERT … ON CONFLICT
   DO UPDATE``, one statement each: :mod:`progression.bulk`), store changed
   sheets (:func:`save_sheets`), refresh the run's lease and progress and
   report it on the ``campaign:<id>`` live channel (GMs only).

Then one campaign-wide step (:mod:`progression.hooks`, e.g. Ambre's secret
ranks; :func:`apply_campaign_step`); a system that has one gets its balances
written there, once, whole (the chunks' rows with the step's state), not by
the chunks. Running it twice gives the same rows; a
run killed mid-way and retried gives the same balances as an uninterrupted
one: whatever committed is recomputed identically, whatever did not is redone.
"""

from __future__ import annotations

import gc
import logging
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, NamedTuple

from django.conf import settings as django_settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import CharField, F, Q, Value
from django.db.models.functions import Cast, Coalesce, Concat
from django.utils import timezone

import rules
from campaigns.models import PlaySession
from characters.models import Character, LedgerEntry
from live.events import publish
from progression import bulk
from progression.hooks import campaign_step
from progression.models import (
    CharacterBalance,
    RecalculationRun,
    SessionAward,
    SessionResult,
)
from progression.services.ledger import CharacterLedger, LedgerStream
from progression.services.runs import LIVE_KIND_RUN, LeaseLost, _heartbeat, _run_data, enqueue, lease_seconds
from progression.services.sheets import save_sheets
from rules.base import RuleSystem

logger = logging.getLogger(__name__)

#: The columns of a character the job reads (never the long texts: background, description, comment).
JOB_FIELDS = (
    "id",
    "campaign_id",
    "owner_id",
    "is_npc",
    "name",
    "system",
    "sheet",
    "schema_version",
    "status",
    "version",
)


class AwardLine(NamedTuple):
    """What the job reads of a :class:`SessionAward` (plain rows: no model instance per line)."""

    pk: int
    character_id: int
    code: str
    currency: str
    amount: int
    kind: str
    note: str
    data: dict[str, Any]
    created_by_id: int | None

    @property
    def ledger_key(self) -> str:
        return f"{SessionAward.LEDGER_KEY_PREFIX}{self.pk}"


def checkpoint(run: RecalculationRun, index: int, character: Character) -> None:
    """Called for each character once its chunk's transaction has committed (tests inject crashes here)."""


def run_recalculation(run_id: int) -> dict[str, Any]:
    """Recompute every character of the run's campaign. Idempotent and retry-safe.

    The worker first claims the run (a lease token, compare-and-set): a
    queued, failed or dead (stale heartbeat) run can be claimed, a run whose
    lease is alive cannot (``status: "busy"``, the task retries later), a done
    run returns at once. While it works it refreshes the heartbeat.

    The work is set-based: the session's award lines not yet in the ledger are
    appended in one statement (:func:`append_awards`), the campaign's approved
    ledger is read once, in character order, by one query streamed chunk by
    chunk (:class:`LedgerStream`); each chunk of :func:`chunk_size` characters
    is one transaction with a constant number of queries
    (:func:`recalculate_chunk`); then the campaign-wide step
    (:func:`apply_campaign_step`) in one more.
    """
    run = RecalculationRun.objects.select_related("campaign", "session").filter(pk=run_id).first()
    if run is None:
        return {"run": run_id, "status": "missing"}
    if run.status == RecalculationRun.Status.DONE:
        return _run_data(run)
    campaign = run.campaign
    session = run.session
    pks = list(
        Character.objects.filter(campaign=campaign)
        .exclude(status=Character.Status.DRAFT)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    now = timezone.now()
    token = uuid.uuid4().hex
    stale_before = now - timedelta(seconds=lease_seconds())
    claimable = (
        Q(status__in=[RecalculationRun.Status.QUEUED, RecalculationRun.Status.FAILED])
        | Q(status=RecalculationRun.Status.RUNNING, heartbeat_at__lt=stale_before)
        | Q(status=RecalculationRun.Status.RUNNING, heartbeat_at__isnull=True)
    )
    claimed = (
        RecalculationRun.objects.filter(pk=run.pk)
        .filter(claimable)
        .update(
            status=RecalculationRun.Status.RUNNING,
            lease=token,
            heartbeat_at=now,
            enqueued_at=Coalesce(F("enqueued_at"), Value(now)),
            started_at=now,
            finished_at=None,
            attempts=F("attempts") + 1,
            done=0,
            total=len(pks),
            error="",
        )
    )
    run.refresh_from_db()
    if not claimed:
        return {**_run_data(run), "status": "done" if run.status == RecalculationRun.Status.DONE else "busy"}
    start_revision = run.revision
    system = campaign.rule_system
    settings = campaign.system_settings or {}
    lines: dict[int, list[AwardLine]] = defaultdict(list)
    numbers: dict[int, int] = {}
    if session is not None:
        for row in SessionAward.objects.filter(session=session).order_by("pk").values_list(*AwardLine._fields):
            line = AwardLine(*row)
            lines[line.character_id].append(line)
        numbers = dict(PlaySession.objects.filter(campaign=campaign).values_list("pk", "number"))
    written: set[int] = set()
    if lines:
        keys = {line.ledger_key: line.pk for items in lines.values() for line in items}
        written = {keys[k] for k in _written_award_keys(session) if k in keys}
    step = campaign_step(system)
    closed_at = (session.closed_at or now) if session is not None else now
    number = numbers.get(session.pk, session.number) if session is not None else 0
    stream: LedgerStream | None = None
    try:
        append_awards(pks, lines, written, session)
        stream = LedgerStream(
            campaign.pk,
            closed_at,
            numbers,
            system.progression_entry_keys,
            totals=system.progression_reads_totals,
            number=number,
        )
        seen: dict[int, Character] = {}
        # With a campaign step, each balance is written once, whole (its state completed), by the step.
        pending: dict[int, dict[str, Any]] | None = {} if step is not None else None
        size = chunk_size()
        for start in range(0, len(pks), size):
            chunk = pks[start : start + size]
            with cyclic_gc_paused():
                done = recalculate_chunk(
                    run,
                    chunk,
                    stream.take(chunk),
                    system=system,
                    settings=settings,
                    number=number,
                    done_before=start,
                    pending=pending,
                )
            for offset, character in enumerate(done, start=start + 1):
                checkpoint(run, offset, character)
            if step is not None:
                seen.update((character.pk, character) for character in done)
        stream.close()
        if step is not None and seen:
            with cyclic_gc_paused():
                apply_campaign_step(run, step, seen, settings, pending or {})
    except LeaseLost:
        logger.warning("progression: run %s was taken over by another worker; this one stops", run.pk)
        return {**_run_data(run), "status": "taken-over"}
    except (OperationalError, InterfaceError):
        # The database is away: leave the run claimable (the task retries; past
        # its budget the stale heartbeat lets the sweeper re-send it).
        try:
            RecalculationRun.objects.filter(pk=run.pk, lease=token).update(status=RecalculationRun.Status.QUEUED)
        except Exception:
            pass
        raise
    except Exception as exc:
        with transaction.atomic():
            RecalculationRun.objects.filter(pk=run.pk, lease=token).update(
                status=RecalculationRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000]
            )
            run.refresh_from_db()
            publish(f"campaign:{campaign.pk}", LIVE_KIND_RUN, _run_data(run), gms_only=True)
        raise
    finally:
        if stream is not None:
            stream.close()
    with transaction.atomic():
        current = RecalculationRun.objects.select_for_update().get(pk=run.pk)
        if current.lease != token:
            return {**_run_data(current), "status": "taken-over"}
        if current.revision != start_revision:
            # Awards were confirmed again while this run was going: run once more.
            current.status = RecalculationRun.Status.QUEUED
            current.enqueued_at = None
            current.heartbeat_at = timezone.now()
            current.save(update_fields=["status", "enqueued_at", "heartbeat_at"])
            transaction.on_commit(lambda: enqueue(current.pk))
        else:
            current.status = RecalculationRun.Status.DONE
            current.finished_at = timezone.now()
            current.done = len(pks)
            current.lease = ""
            current.save(update_fields=["status", "finished_at", "done", "lease"])
        publish(f"campaign:{campaign.pk}", LIVE_KIND_RUN, _run_data(current), gms_only=True)
    return _run_data(current)


def _written_award_keys(session: PlaySession) -> list[str]:
    """The ledger keys of the session's award lines already in the ledger: one query, the keys
    computed by the database from the lines (not a thousand of them sent back as parameters)."""
    award_keys = (
        SessionAward.objects.filter(session=session)
        .order_by()
        .annotate(ledger_key=Concat(Value(SessionAward.LEDGER_KEY_PREFIX), Cast("pk", CharField())))
        .values("ledger_key")
    )
    return list(LedgerEntry.objects.filter(key__in=award_keys).order_by().values_list("key", flat=True))


def _result_dict(result: rules.base.ProgressionResult) -> dict[str, Any]:
    return {
        "balances": {k: int(v) for k, v in result.balances.items()},
        "flags": list(result.flags),
        "notes": [n.to_dict() for n in result.notes],
    }


def chunk_size() -> int:
    """Characters per transaction of the session job (``TABLEE_RUN_CHUNK_SIZE``)."""
    return max(1, int(getattr(django_settings, "TABLEE_RUN_CHUNK_SIZE", 200)))


def recalculate_chunk(
    run: RecalculationRun,
    pks: list[int],
    ledger: dict[int, CharacterLedger],
    *,
    system: RuleSystem,
    settings: dict[str, Any],
    number: int = 0,
    done_before: int = 0,
    announce: bool = True,
    pending: dict[int, dict[str, Any]] | None = None,
) -> list[Character]:
    """A chunk of characters in one transaction, set-based: a constant number of queries.

    ``ledger`` holds the chunk's approved ledger entries (from the run's
    :class:`LedgerStream`); ``number`` is the run's session number. Lock the
    chunk's characters and read their sheets (one query), compute each
    character through the rules, upsert the balances and the session's results
    (``INSERT … ON CONFLICT DO UPDATE``, one statement each: :mod:`progression.bulk`),
    store the sheets the rules changed (:func:`save_sheets`), refresh the lease
    and the progress (one query). Returns the chunk's characters as they are
    after it (a character deleted meanwhile is left out).

    Every computation of the chunk is one call of the rules
    (``RuleSystem.apply_progression_many``), and the balances' meaning
    (``balance_state``) one call per distinct balances. With ``pending`` (a
    campaign step follows) the chunk's balance rows go into ``pending`` instead:
    the step completes their state and writes each balance once, whole
    (:func:`apply_campaign_step`): a balance is never seen with the new sums and
    the old ranks, nor written twice.
    """
    session = run.session
    with transaction.atomic():
        # The chunk's ids are consecutive among the campaign's: a range, not a list of parameters; the
        # range's other rows (drafts, characters approved since the run started) are left out here.
        wanted = set(pks)
        locked = [
            character
            for character in Character.objects.select_for_update()
            .filter(campaign_id=run.campaign_id, pk__gte=pks[0], pk__lte=pks[-1])
            .order_by("pk")
            .only(*JOB_FIELDS)
            if character.pk in wanted
        ]
        # Every computation of the chunk in one call of the rules: now, and for the session's result
        # "at the session" (ranks up to its number) and "before" (below it) when they differ from now.
        items: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        plan: list[tuple[Character, dict[str, Any], CharacterLedger, int, int, int]] = []
        nothing = CharacterLedger([], [])
        for character in locked:
            own = ledger.get(character.pk, nothing)
            entries, ranks = own.entries, own.ranks
            sheet = character.current_sheet()
            now = at = before = len(items)
            items.append((sheet, entries))
            if session is not None:
                # The usual case: nothing after this session, so "at the session" is "now".
                if any(r > number for r in ranks):
                    at = before = len(items)
                    items.append((sheet, [e for e, r in zip(entries, ranks, strict=True) if r <= number]))
                if any(r == number for r in ranks):
                    before = len(items)
                    items.append((sheet, [e for e, r in zip(entries, ranks, strict=True) if r < number]))
            plan.append((character, sheet, own, now, at, before))
        results = system.apply_progression_many(items, settings)
        outcomes: dict[int, dict[str, Any]] = {}
        meanings: dict[tuple[tuple[str, int], ...], dict[str, Any]] = {}

        def outcome(index: int) -> dict[str, Any]:
            if index not in outcomes:
                outcomes[index] = _result_dict(results[index])
            return outcomes[index]

        def state(balances: dict[str, int]) -> dict[str, Any]:
            """What the balances mean, from the rules (one call per distinct balances)."""
            key = tuple(sorted(balances.items()))
            if key not in meanings:
                meanings[key] = _karma_state(system, balances)
            return meanings[key]

        balance_rows: list[dict[str, Any]] = []
        result_rows: list[dict[str, Any]] = []
        changed_sheets: list[tuple[Character, dict[str, Any]]] = []
        for character, sheet, own, now, at, before in plan:
            pk = character.pk
            after = outcome(now)
            balance_rows.append(
                {
                    "character_id": pk,
                    "balances": after["balances"],
                    "flags": after["flags"],
                    "notes": after["notes"],
                    "state": {"karma_state": state(after["balances"])},
                    "entries_count": own.count,
                    "last_entry_id": own.last_id,
                    "run_id": run.pk,
                }
            )
            new_sheet = results[now].sheet
            if isinstance(new_sheet, dict) and new_sheet is not sheet and new_sheet != sheet:
                changed_sheets.append((character, new_sheet))
            if session is None:
                continue
            at_session, earlier = outcome(at), outcome(before)
            result_rows.append(
                {
                    "session_id": session.pk,
                    "character_id": pk,
                    "before": earlier["balances"],
                    "after": at_session["balances"],
                    "flags": at_session["flags"],
                    "notes": at_session["notes"],
                    "state": {
                        "before_flags": [f.get("code") for f in earlier["flags"] if isinstance(f, dict)],
                        "karma_before": state(earlier["balances"]),
                        "karma_after": state(at_session["balances"]),
                    },
                    "run_id": run.pk,
                }
            )
        if changed_sheets:
            save_sheets(changed_sheets, reason="progression")
        if pending is not None:
            pending.update((row["character_id"], row) for row in balance_rows)
        else:
            bulk.insert_rows(CharacterBalance, balance_rows, conflict=["character"], update=BALANCE_FIELDS)
        bulk.insert_rows(SessionResult, result_rows, conflict=["session", "character"], update=RESULT_FIELDS)
        done = done_before + len(pks)
        _heartbeat(run, done=done)
        run.done = done
        if announce:
            publish(f"campaign:{run.campaign_id}", LIVE_KIND_RUN, _run_data(run), gms_only=True)
    return locked


#: What a run rewrites of a balance and of a session result.
BALANCE_FIELDS = ["balances", "flags", "notes", "state", "entries_count", "last_entry_id", "run_id", "computed_at"]
RESULT_FIELDS = ["before", "after", "flags", "notes", "state", "run_id", "computed_at"]


def append_awards(
    pks: list[int],
    lines: dict[int, list[AwardLine]] | dict[int, list[SessionAward]],
    written: set[int] | frozenset[int],
    session: Any,
) -> None:
    """The confirmed award lines of these characters not yet in the ledger (``written``: already
    there), in one transaction of ``INSERT … ON CONFLICT DO NOTHING`` (the ledger key makes each
    line count once, even if two runs overlapped). The ledger is the truth: a run that stops after
    this recomputes the same balances when it is retried."""
    rows: list[dict[str, Any]] = []
    currencies, kinds = frozenset(LedgerEntry.Currency.values), frozenset(LedgerEntry.Kind.values)
    for pk in pks:
        for line in lines.get(pk, ()):
            if line.pk in written:
                continue  # already in the ledger (a rerun or a retry)
            if line.currency not in currencies or line.kind not in kinds:
                raise ValueError(f"award line {line.pk}: unknown currency or kind")
            rows.append(
                {
                    "character_id": pk,
                    "currency": line.currency,
                    "amount": int(line.amount),
                    "kind": line.kind,
                    "session_id": session.pk if session is not None else None,
                    "created_by_id": line.created_by_id,
                    "note": line.note[:300],
                    "data": {**(line.data or {}), "award_line": line.pk, "code": line.code},
                    "key": line.ledger_key,
                    "approval": LedgerEntry.Approval.APPROVED,
                }
            )
    if rows:
        with transaction.atomic():
            bulk.insert_rows(LedgerEntry, rows, conflict=["key"])


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The job builds about a hundred small dicts per character, none of them cyclic: the cyclic
    garbage collector would rescan them at each of its passes (a third of the job's Python time).
    Reference counting still frees them; the collector runs again afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _karma_state(system: RuleSystem, balances: dict[str, int]) -> dict[str, Any]:
    """What the balances mean in the game (Ambre's karma state), from the rules."""
    return system.balance_state(balances)


def apply_campaign_step(
    run: RecalculationRun,
    step: Any,
    characters: dict[int, Character],
    settings: dict[str, Any],
    balances: dict[int, dict[str, Any]],
) -> None:
    """The campaign-wide step (Ambre ladders), in one transaction.

    ``characters`` are the characters as the chunks left them. Their rows are
    locked (ids and versions only: one query); a character whose sheet changed
    since its chunk is read again. The rules compute the step over every sheet;
    the sheets they change are stored (:func:`save_sheets`) and each balance,
    the chunk's row (``balances``, see :func:`recalculate_chunk`) with the step's
    state over the chunk's, upserted whole in one statement per
    :data:`progression.bulk.BATCH` (``INSERT … ON CONFLICT DO UPDATE``).
    """
    with transaction.atomic():
        # The campaign's rows (not a thousand ids as parameters); those the chunks did not see are left out.
        versions = {
            pk: version
            for pk, version in Character.objects.select_for_update()
            .filter(campaign_id=run.campaign_id, pk__gte=min(characters), pk__lte=max(characters))
            .order_by("pk")
            .values_list("pk", "version")
            if pk in characters
        }
        # The balances are written here: only by the worker that holds the run (the characters locked
        # first, then the run's row, as in the chunks).
        _heartbeat(run)
        stale = [pk for pk, version in versions.items() if characters[pk].version != version]
        current = {pk: characters[pk] for pk in versions}
        if stale:
            current.update((c.pk, c) for c in Character.objects.filter(pk__in=stale).only(*JOB_FIELDS))
        sheets = {pk: character.current_sheet() for pk, character in current.items()}
        outcome = step(sheets, settings)
        new_sheets: list[tuple[Character, dict[str, Any]]] = []
        states = {pk: dict(row["state"]) for pk, row in balances.items() if pk in current}
        for pk, item in outcome.items():
            if pk not in current:
                continue
            new_sheet = item.get("sheet")
            if isinstance(new_sheet, dict) and new_sheet != sheets[pk]:
                new_sheets.append((current[pk], new_sheet))
            if item.get("state") and pk in states:
                states[pk].update(item["state"])
        if new_sheets:
            save_sheets(new_sheets, reason="progression-ranks")
        bulk.insert_rows(
            CharacterBalance,
            [{**balances[pk], "state": state} for pk, state in states.items()],
            conflict=["character"],
            update=BALANCE_FIELDS,
        )
