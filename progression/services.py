"""Progression writes and the session job (Zulip "actions" style).

Every user-triggered write is one function here: it checks permission
(:class:`~django.http.Http404` for what the user may not see,
:class:`~django.core.exceptions.PermissionDenied` for a visible but
forbidden write, :class:`~django.core.exceptions.ValidationError` with
field errors for bad input), validates through :mod:`rules`, writes in one
transaction and publishes live events inside it.

The session job (:func:`run_recalculation`, run by
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
ranks; :func:`apply_campaign_step`). Running it twice gives the same rows; a
run killed mid-way and retried gives the same balances as an uninterrupted
one: whatever committed is recomputed identically, whatever did not is redone.
"""

from __future__ import annotations

import gc
import json
import logging
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple
from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Case, F, Q, TextField, Value, When
from django.db.models.functions import Cast, Coalesce, NullIf
from django.http import Http404
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules
from campaigns.access import can_view_campaign, is_gm
from campaigns.models import Campaign, PlaySession, Post, Roll
from characters import ledger
from characters import services as character_services
from characters import signals as character_signals
from characters.models import ChangeRequest, Character, LedgerEntry, SheetVersion
from live.events import publish, publish_many
from progression import bulk, signals
from progression import facts as session_facts_mod
from progression.hooks import campaign_step
from progression.labels import purchase_kind_label
from progression.models import (
    CharacterBalance,
    PurchaseRequest,
    RecalculationRun,
    SessionAward,
    SessionResult,
    SessionReview,
)
from rules.base import FieldError, LedgerDraft, Msg, RulesError, RuleSystem

logger = logging.getLogger(__name__)

MAX_AWARD = 10000
LIVE_KIND_RUN = "progression-run"
LIVE_KIND_REVIEW = "progression-review"
LIVE_KIND_PURCHASE = "progression-purchase"
#: Progress events per run, at most (plus the first and the last).
PROGRESS_EVENTS = 50
#: A ledger entry's empty ``data`` as the database gives it back as text.
EMPTY_JSON = frozenset({"{}", "", None})


# ---------------------------------------------------------------------------
# Access
# ---------------------------------------------------------------------------
def get_session_for_user(user: Any, session_id: int, *, gm: bool = False) -> PlaySession:
    """The session if ``user`` may see its campaign (``gm``: is GM/co-GM), else 404."""
    session = PlaySession.objects.select_related("campaign").filter(pk=session_id).first()
    if session is None or not can_view_campaign(user, session.campaign):
        raise Http404
    if gm and not is_gm(user, session.campaign):
        raise Http404
    return session


def is_owner(user: Any, character: Character) -> bool:
    return bool(user is not None and user.is_authenticated and character.owner_id == user.pk and not character.is_npc)


def can_see_ledger(user: Any, character: Character) -> bool:
    """Ledger and balances: the owner, the GM and co-GMs (DESIGN.md)."""
    return is_gm(user, character.campaign) or is_owner(user, character)


def get_character_for_user(user: Any, character_id: int) -> Character:
    """The character if ``user`` may see its ledger, else 404."""
    character = Character.objects.select_related("campaign").filter(pk=character_id).first()
    if character is None or not can_see_ledger(user, character):
        raise Http404
    return character


def _require_gm(actor: Any, campaign: Campaign) -> None:
    if not can_view_campaign(actor, campaign):
        raise Http404
    if not is_gm(actor, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))


# ---------------------------------------------------------------------------
# Messages: ledger notes are stored in French (default) plus both languages in data
# ---------------------------------------------------------------------------
def msg_text(value: Any, lang: str | None = None) -> str:
    """Text of a stored ``{"fr":..., "en":...}`` message (or a plain string)."""
    lang = lang or get_language() or "fr"
    if isinstance(value, Msg):
        return value.get(lang)
    if isinstance(value, dict) and ("fr" in value or "en" in value):
        return str(value.get("en") if lang.startswith("en") else value.get("fr")) or ""
    return "" if value is None else str(value)


def entry_note(entry: LedgerEntry | SessionAward, lang: str | None = None) -> str:
    data = entry.data if isinstance(entry.data, dict) else {}
    if "note_i18n" in data:
        return msg_text(data["note_i18n"], lang)
    return entry.note


# ---------------------------------------------------------------------------
# The award screen
# ---------------------------------------------------------------------------
def session_characters(session: PlaySession) -> list[Character]:
    """Characters that can earn awards: the campaign's approved player characters."""
    return list(
        Character.objects.filter(
            campaign_id=session.campaign_id, is_npc=False, status=Character.Status.APPROVED
        ).order_by("name", "pk")
    )


def session_resolutions(session: PlaySession) -> dict[int, list[dict[str, Any]]]:
    """The real rolls of THIS session, per character (one query).

    Only rolls stored with ``session`` = this session and a ``character``
    count: rolls of other sessions or outside any session never do.
    """
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    rows = (
        Roll.objects.filter(session=session, character__isnull=False)
        .order_by("sequence")
        .values_list("character_id", "resolution")
    )
    for character_id, resolution in rows:
        if isinstance(resolution, dict):
            out[character_id].append(resolution)
    return out


def session_presence(session: PlaySession) -> set[int]:
    """Characters who posted or rolled during the session."""
    posted = set(Post.objects.filter(session=session, character__isnull=False).values_list("character_id", flat=True))
    rolled = set(Roll.objects.filter(session=session, character__isnull=False).values_list("character_id", flat=True))
    return posted | rolled


def _draft_code(draft: LedgerDraft, taken: set[str]) -> str:
    data = draft.data or {}
    tag = data.get("award") or data.get("rule") or data.get("reason") or ("preset" if data.get("preset") else "")
    base = f"{draft.kind}:{tag}" if tag else draft.kind
    code, n = base[:70], 2
    while code in taken:
        code = f"{base[:66]}#{n}"
        n += 1
    taken.add(code)
    return code


@dataclass
class Suggestion:
    code: str
    currency: str
    amount: int
    kind: str
    note: dict[str, str]
    data: dict[str, Any]


@dataclass
class AwardRow:
    """One character on the award screen."""

    character: Character
    present: bool
    facts: dict[str, Any]
    suggestions: list[Suggestion] = field(default_factory=list)
    amounts: dict[str, int] = field(default_factory=dict)
    current: dict[str, int] = field(default_factory=dict)
    extra: int = 0
    extra_note: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    natural_ones: int = 0


def suggest(
    system: RuleSystem,
    character: Character,
    session: PlaySession,
    *,
    present: bool,
    gm_facts: dict[str, Any],
    resolutions: list[dict[str, Any]],
) -> list[Suggestion]:
    """The system's suggested awards for one character (raises RulesError on bad facts)."""
    facts = session_facts_mod.session_facts(
        session_id=session.pk, present=present, resolutions=resolutions, gm_facts=gm_facts
    )
    drafts = system.suggest_session_awards(character.current_sheet(), facts, session.campaign.system_settings)
    taken: set[str] = set()
    return [
        Suggestion(_draft_code(d, taken), d.currency, int(d.amount), d.kind, d.note.to_dict(), dict(d.data or {}))
        for d in drafts
    ]


def current_award_totals(session: PlaySession) -> dict[int, dict[str, int]]:
    """Sum of the award lines per character and code (corrections included)."""
    totals: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for character_id, code, amount in SessionAward.objects.filter(session=session).values_list(
        "character_id", "code", "amount"
    ):
        totals[character_id][code] += amount
    return totals


def award_rows(session: PlaySession, posted: dict[int, dict[str, Any]] | None = None) -> list[AwardRow]:
    """Build the award screen: suggestions from the facts (posted, confirmed or defaults)."""
    campaign = session.campaign
    system = campaign.rule_system
    review = SessionReview.objects.filter(session=session).first()
    confirmed_facts = review.facts if review else {}
    present_ids = session_presence(session)
    anyone = bool(present_ids)
    resolutions = session_resolutions(session)
    totals = current_award_totals(session)
    rows = []
    for character in session_characters(session):
        entry = (posted or {}).get(character.pk)
        stored = confirmed_facts.get(str(character.pk)) or {}
        errors: dict[str, str] = {}
        if entry is not None:
            present = bool(entry.get("present"))
            gm_facts, errors = session_facts_mod.parse_facts(system, entry.get("facts") or {})
        elif stored:
            present = bool(stored.get("present"))
            gm_facts = {**session_facts_mod.default_facts(system), **(stored.get("facts") or {})}
        else:
            present = character.pk in present_ids or not anyone
            gm_facts = session_facts_mod.default_facts(system)
        row = AwardRow(character=character, present=present, facts=gm_facts, errors=errors)
        row.current = dict(totals.get(character.pk, {}))
        own = resolutions.get(character.pk, [])
        row.natural_ones = sum(1 for r in own if "natural_1" in (r.get("tags") or []))
        if not errors:
            try:
                row.suggestions = suggest(
                    system, character, session, present=present, gm_facts=gm_facts, resolutions=own
                )
            except RulesError as exc:
                row.errors.update({e.path: e.message.get(get_language() or "fr") for e in exc.errors})
        for s in row.suggestions:
            row.amounts[s.code] = s.amount
        if entry is not None:
            row.amounts.update(_posted_amounts(row, entry))
            row.extra = _as_int(entry.get("extra"), 0)
            row.extra_note = str(entry.get("extra_note") or "")[:300]
        elif row.current:
            for code, total in row.current.items():
                if code != "gm_extra":
                    row.amounts[code] = total
            row.extra = row.current.get("gm_extra", 0)
            row.extra_note = str(stored.get("extra_note") or "")
        rows.append(row)
    return rows


def _as_int(value: Any, default: int | None = None) -> int | None:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _posted_amounts(row: AwardRow, entry: dict[str, Any]) -> dict[str, int]:
    """GM adjustments: a posted amount wins only if it differs from what was suggested on screen."""
    out = {}
    amounts = entry.get("amounts") or {}
    shown = entry.get("suggested") or {}
    for s in row.suggestions:
        if s.code not in amounts:
            continue
        value = _as_int(amounts[s.code])
        if value is None:
            row.errors[f"amount.{s.code}"] = _("Enter a whole number.")
            continue
        if abs(value) > MAX_AWARD:
            row.errors[f"amount.{s.code}"] = _("At most %(n)s in absolute value.") % {"n": MAX_AWARD}
            continue
        if s.code in shown and _as_int(shown[s.code]) == value:
            continue  # untouched: follow the (possibly new) suggestion
        out[s.code] = value
    return out


def confirm_session_awards(actor: Any, session: PlaySession, *, entries: dict[int, dict[str, Any]]) -> RecalculationRun:
    """The GM confirms (or corrects) the session's awards and launches the job.

    ``entries`` maps character ids to ``{"present": bool, "facts": {...},
    "amounts": {code: int}, "suggested": {code: int}, "extra": int,
    "extra_note": str}``. The first confirmation appends one line per
    non-zero award; later ones append ``correction`` lines holding the
    difference (nothing is edited). Raises ValidationError with
    ``"<character id>.<field>"`` keys.
    """
    campaign = session.campaign
    _require_gm(actor, campaign)
    if session.status != PlaySession.Status.CLOSED:
        raise ValidationError({"session": _("Close the session before confirming its awards.")})
    with transaction.atomic():
        review, _created = SessionReview.objects.select_for_update().get_or_create(session=session)
        if review.status == SessionReview.Status.CONFIRMED:
            raise ValidationError({"session": _("These awards are confirmed: reopen them to correct them.")})
        known = {c.pk for c in session_characters(session)}
        unknown = [pk for pk in entries if pk not in known]
        if unknown:
            raise ValidationError({"characters": _("Unknown character.")})
        rows = award_rows(session, posted=entries)
        errors: dict[str, str] = {}
        for row in rows:
            if row.character.pk not in entries:
                continue
            extra = _as_int((entries[row.character.pk] or {}).get("extra"), None)
            if extra is None or abs(extra) > MAX_AWARD:
                row.errors["extra"] = _("Enter a whole number between -%(n)s and %(n)s.") % {"n": MAX_AWARD}
            for path, message in row.errors.items():
                errors[f"{row.character.pk}.{path}"] = message if " " in message else _("Invalid value.")
        if errors:
            raise ValidationError(errors)
        revision = review.revision + 1
        system = campaign.rule_system
        currency = system.currencies[0]
        new_lines = []
        confirmed_facts = dict(review.facts or {})
        for row in rows:
            if row.character.pk not in entries:
                continue
            confirmed_facts[str(row.character.pk)] = {
                "present": row.present,
                "facts": row.facts,
                "extra_note": row.extra_note,
            }
            targets: dict[str, tuple[int, str, str, dict[str, str], dict[str, Any]]] = {}
            for s in row.suggestions:
                targets[s.code] = (row.amounts.get(s.code, s.amount), s.currency, s.kind, s.note, s.data)
            extra_kind = "gm_penalty" if row.extra < 0 else "gm_award"
            extra_note = row.extra_note or ""
            targets["gm_extra"] = (
                row.extra,
                currency,
                extra_kind,
                {"fr": extra_note or "Gain du MJ", "en": extra_note or "GM award"},
                {"award": "gm_extra"},
            )
            codes = set(targets) | set(row.current)
            for code in sorted(codes):
                amount, cur, kind, note, data = targets.get(
                    code, (0, currency, "correction", {"fr": "Annulé", "en": "Cancelled"}, {})
                )
                before = row.current.get(code, 0)
                delta = amount - before
                if delta == 0:
                    continue
                if code in row.current:
                    kind = "correction"
                    note = {
                        "fr": f"Correction ({msg_text(note, 'fr')}) : {before} → {amount}",
                        "en": f"Correction ({msg_text(note, 'en')}): {before} → {amount}",
                    }
                new_lines.append(
                    SessionAward(
                        session=session,
                        character=row.character,
                        revision=revision,
                        code=code,
                        currency=cur,
                        amount=delta,
                        kind=kind,
                        note=note["fr"][:300],
                        data={**data, "note_i18n": note, "revision": revision, "target": amount},
                        created_by=actor,
                    )
                )
        for line in new_lines:
            line.save()
        review.status = SessionReview.Status.CONFIRMED
        review.revision = revision
        review.facts = confirmed_facts
        review.confirmed_by = actor
        review.confirmed_at = timezone.now()
        review.save()
        publish(f"campaign:{campaign.pk}", LIVE_KIND_REVIEW, {"session": session.pk}, gms_only=True)
        awarded = sorted({line.character for line in new_lines}, key=lambda c: c.pk)
        transaction.on_commit(
            lambda: signals.awards_confirmed.send(None, actor=actor, session=session, characters=awarded)
        )
        return _launch(campaign, session, actor=actor, reason="awards_confirmed", revision=revision)


def reopen_session_awards(actor: Any, session: PlaySession) -> SessionReview:
    """Reopen the confirmed awards of a closed session for corrections.

    Reading: the play session itself stays closed (its posts and rolls are
    history); what reopens is its award sheet. Confirming again appends
    corrections and recalculates.
    """
    _require_gm(actor, session.campaign)
    with transaction.atomic():
        review, _created = SessionReview.objects.select_for_update().get_or_create(session=session)
        if review.status != SessionReview.Status.CONFIRMED:
            raise ValidationError({"session": _("These awards are not confirmed yet.")})
        review.status = SessionReview.Status.REOPENED
        review.save(update_fields=["status"])
        publish(f"campaign:{session.campaign_id}", LIVE_KIND_REVIEW, {"session": session.pk}, gms_only=True)
    return review


def launch_recalculation(actor: Any, session: PlaySession, *, reason: str = "manual") -> RecalculationRun:
    """The GM relaunches the job (e.g. after approving purchases)."""
    _require_gm(actor, session.campaign)
    with transaction.atomic():
        review = SessionReview.objects.filter(session=session).first()
        return _launch(session.campaign, session, actor=actor, reason=reason, revision=review.revision if review else 0)


def start_session_review(session: PlaySession) -> RecalculationRun:
    """Receiver of ``campaigns.signals.session_closed``: open the award sheet, run the job.

    The run at close applies what the session already recorded (approved
    purchases, corrections); the GM's awards come with the next run.
    """
    with transaction.atomic():
        review, _created = SessionReview.objects.get_or_create(session=session)
        publish(f"campaign:{session.campaign_id}", LIVE_KIND_REVIEW, {"session": session.pk}, gms_only=True)
        return _launch(session.campaign, session, actor=None, reason="session_closed", revision=review.revision)


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


# ---------------------------------------------------------------------------
# Jobs that always finish: enqueue, lease, sweep
# ---------------------------------------------------------------------------
def lease_seconds() -> float:
    """A worker refreshes its run's heartbeat at least every quarter of this."""
    from django.conf import settings

    return float(getattr(settings, "TABLEE_RUN_LEASE_SECONDS", 120))


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
    from django.conf import settings

    from progression.tasks import recalculate_session

    queue = getattr(settings, "PROGRESSION_TASK_QUEUE", None)
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


# ---------------------------------------------------------------------------
# The job
# ---------------------------------------------------------------------------
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
    lines: dict[int, list[SessionAward]] = defaultdict(list)
    numbers: dict[int, int] = {}
    if session is not None:
        for line in SessionAward.objects.filter(session=session).order_by("pk"):
            lines[line.character_id].append(line)
        numbers = dict(PlaySession.objects.filter(campaign=campaign).values_list("pk", "number"))
    written: set[int] = set()
    if lines:
        keys = {f"progression:award:{pk}": pk for items in lines.values() for pk in (line.pk for line in items)}
        written = {keys[k] for k in LedgerEntry.objects.filter(key__in=list(keys)).values_list("key", flat=True)}
    step = campaign_step(system)
    closed_at = (session.closed_at or now) if session is not None else now
    number = numbers.get(session.pk, session.number) if session is not None else 0
    stream: LedgerStream | None = None
    try:
        append_awards(pks, lines, written, session)
        stream = LedgerStream(campaign.pk, closed_at, numbers)
        seen: dict[int, Character] = {}
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
                )
            for offset, character in enumerate(done, start=start + 1):
                checkpoint(run, offset, character)
            if step is not None:
                seen.update((character.pk, character) for character in done)
        stream.close()
        if step is not None and seen:
            with cyclic_gc_paused():
                apply_campaign_step(run, step, seen, settings)
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


def _result_dict(result: rules.base.ProgressionResult) -> dict[str, Any]:
    return {
        "balances": {k: int(v) for k, v in result.balances.items()},
        "flags": list(result.flags),
        "notes": [n.to_dict() for n in result.notes],
    }


def _progress(
    system: RuleSystem, sheet: dict[str, Any], entries: list[dict[str, Any]], settings: dict[str, Any]
) -> Any:
    return system.apply_progression(sheet, entries, settings)


def chunk_size() -> int:
    """Characters per transaction of the session job (``TABLEE_RUN_CHUNK_SIZE``)."""
    from django.conf import settings

    return max(1, int(getattr(settings, "TABLEE_RUN_CHUNK_SIZE", 200)))


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
    """
    session = run.session
    with transaction.atomic():
        locked = list(Character.objects.select_for_update().filter(pk__in=pks).order_by("pk").only(*JOB_FIELDS))
        balance_rows: list[dict[str, Any]] = []
        result_rows: list[dict[str, Any]] = []
        changed_sheets: list[tuple[Character, dict[str, Any]]] = []
        nothing = CharacterLedger([], [])
        for character in locked:
            pk = character.pk
            entries, ranks = ledger.get(pk, nothing)
            sheet = character.current_sheet()
            result = _progress(system, sheet, entries, settings)
            after = _result_dict(result)
            balance_rows.append(
                {
                    "character_id": pk,
                    "balances": after["balances"],
                    "flags": after["flags"],
                    "notes": after["notes"],
                    "state": {"karma_state": _karma_state(system, result.balances)},
                    "entries_count": len(entries),
                    "last_entry_id": entries[-1]["id"] if entries else 0,
                    "run_id": run.pk,
                }
            )
            if isinstance(result.sheet, dict) and result.sheet is not sheet and result.sheet != sheet:
                changed_sheets.append((character, result.sheet))
            if session is None:
                continue
            # Before the session: ranks below its number; at the session: up to it (ranks: LedgerStream).
            before_entries = [e for e, r in zip(entries, ranks, strict=True) if r < number]
            after_entries = [e for e, r in zip(entries, ranks, strict=True) if r <= number]
            # The usual case: nothing after this session, so "at the session" is "now".
            at_session = (
                after
                if len(after_entries) == len(entries)
                else _result_dict(_progress(system, sheet, after_entries, settings))
            )
            before = (
                at_session
                if len(before_entries) == len(after_entries)
                else _result_dict(_progress(system, sheet, before_entries, settings))
            )
            result_rows.append(
                {
                    "session_id": session.pk,
                    "character_id": pk,
                    "before": before["balances"],
                    "after": at_session["balances"],
                    "flags": at_session["flags"],
                    "notes": at_session["notes"],
                    "state": {
                        "before_flags": [f.get("code") for f in before["flags"] if isinstance(f, dict)],
                        "karma_before": _karma_state(system, before["balances"]),
                        "karma_after": _karma_state(system, at_session["balances"]),
                    },
                    "run_id": run.pk,
                }
            )
        if changed_sheets:
            save_sheets(changed_sheets, reason="progression")
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
    pks: list[int], lines: dict[int, list[SessionAward]], written: set[int] | frozenset[int], session: Any
) -> None:
    """The confirmed award lines of these characters not yet in the ledger (``written``: already
    there), in one transaction of ``INSERT … ON CONFLICT DO NOTHING`` (the ledger key makes each
    line count once, even if two runs overlapped). The ledger is the truth: a run that stops after
    this recomputes the same balances when it is retried."""
    rows: list[dict[str, Any]] = []
    for pk in pks:
        for line in lines.get(pk, ()):
            if line.pk in written:
                continue  # already in the ledger (a rerun or a retry)
            if line.currency not in LedgerEntry.Currency.values or line.kind not in LedgerEntry.Kind.values:
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


class CharacterLedger(NamedTuple):
    """A character's approved entries in order, as the rules read them, and each entry's rank:
    the number of its session, ``-inf`` for an entry without session recorded before the run's
    session closed, ``inf`` after (so "up to session n" is ``rank <= n``)."""

    entries: list[dict[str, Any]]
    ranks: list[float]


class LedgerStream:
    """The campaign's approved ledger, read once: one query in (character, entry) order, streamed
    (a server-side cursor on PostgreSQL, ``fetch`` rows per round trip) and handed out chunk by
    chunk (:meth:`take`, characters in increasing id order). Entries are dicts as the rules read
    them: ``id``, ``currency``, ``amount``, ``kind``, ``data``, ``session_id`` and ``pre_close``
    (recorded before ``closed_at``, computed by SQL); ``numbers`` are the campaign's session
    numbers by id (the ranks of :class:`CharacterLedger`)."""

    def __init__(self, campaign_id: int, closed_at: Any, numbers: dict[int, int], fetch: int = 5000) -> None:
        # ``data`` as text, null when empty (decoded only when not); no per-value converters on the rows.
        rows = (
            LedgerEntry.objects.filter(character__campaign_id=campaign_id, approval=LedgerEntry.Approval.APPROVED)
            .order_by("character_id", "pk")
            .annotate(
                data_text=NullIf(Cast("data", TextField()), Value("{}", output_field=TextField())),
                pre_close=Case(When(created__lte=closed_at, then=Value(True)), default=Value(False)),
            )
            .values_list("character_id", "id", "currency", "amount", "kind", "data_text", "session_id", "pre_close")
        )
        self._rows = rows.iterator(chunk_size=fetch)
        self._next: tuple[Any, ...] | None = None
        self._numbers = numbers

    def take(self, pks: list[int]) -> dict[int, CharacterLedger]:
        """The ledgers of ``pks`` (sorted, after every id already taken)."""
        out: dict[int, CharacterLedger] = {}
        if not pks:
            return out
        wanted, last, loads, number = set(pks), pks[-1], json.loads, self._numbers.get
        inf = float("inf")
        row = self._next
        current, entries, ranks = None, [], []
        while True:
            if row is None:
                row = next(self._rows, None)
                if row is None:
                    break
            cid, eid, currency, amount, kind, text, session_id, pre_close = row
            if cid > last:
                break  # the next chunk's
            row = None
            if cid not in wanted:
                continue  # a character created since the run started
            if cid != current:
                current, entries, ranks = cid, [], []
                out[cid] = CharacterLedger(entries, ranks)
            entries.append(
                {
                    "id": eid,
                    "currency": currency,
                    "amount": amount,
                    "kind": kind,
                    "data": {} if text in EMPTY_JSON else loads(text),
                    "session_id": session_id,
                    "pre_close": bool(pre_close),
                }
            )
            ranks.append(number(session_id, 0) if session_id is not None else -inf if pre_close else inf)
        self._next = row
        return out

    def close(self) -> None:
        """Close the cursor (also when the run stops half-way)."""
        self._rows.close()


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
    run: RecalculationRun, step: Any, characters: dict[int, Character], settings: dict[str, Any]
) -> None:
    """The campaign-wide step (Ambre ladders), in one transaction.

    ``characters`` are the characters as the chunks left them. Their rows are
    locked (ids and versions only: one query); a character whose sheet changed
    since its chunk is read again. The rules compute the step over every sheet;
    the sheets they change are stored (:func:`save_sheets`) and the balances'
    states merged in one UPDATE.
    """
    with transaction.atomic():
        versions = dict(
            Character.objects.select_for_update()
            .filter(pk__in=list(characters))
            .order_by("pk")
            .values_list("pk", "version")
        )
        stale = [pk for pk, version in versions.items() if characters[pk].version != version]
        current = {pk: characters[pk] for pk in versions}
        if stale:
            current.update((c.pk, c) for c in Character.objects.filter(pk__in=stale).only(*JOB_FIELDS))
        sheets = {pk: character.current_sheet() for pk, character in current.items()}
        outcome = step(sheets, settings)
        new_sheets: list[tuple[Character, dict[str, Any]]] = []
        states: dict[int, dict[str, Any]] = {}
        for pk, item in outcome.items():
            if pk not in current:
                continue
            new_sheet = item.get("sheet")
            if isinstance(new_sheet, dict) and new_sheet != sheets[pk]:
                new_sheets.append((current[pk], new_sheet))
            if item.get("state"):
                states[pk] = item["state"]
        if new_sheets:
            save_sheets(new_sheets, reason="progression-ranks")
        if states:
            stored = dict(
                CharacterBalance.objects.filter(character_id__in=list(states)).values_list("character_id", "state")
            )
            changed = []
            for pk, state in states.items():
                if pk in stored:
                    merged = {**(stored[pk] or {}), **state}
                    if merged != stored[pk]:
                        changed.append({"character_id": pk, "state": merged})
            bulk.update_rows(CharacterBalance, "character_id", changed)


def save_sheets(changes: list[tuple[Character, dict[str, Any]]], *, reason: str) -> None:
    """Store recomputed sheets as new versions, in bulk: one UPDATE of the characters and one
    INSERT of their versions per :data:`progression.bulk.BATCH`, one INSERT of their live events.
    The caller holds the characters' row locks."""
    if not changes:
        return
    now = timezone.now()
    versions: list[dict[str, Any]] = []
    for character, sheet in changes:
        character.sheet, character.version = sheet, character.version + 1
        character.schema_version = character.rule_system.schema_version
        character.updated = now
        versions.append(
            {
                "character_id": character.pk,
                "version": character.version,
                "name": character.name,
                "sheet": sheet,
                "schema_version": character.schema_version,
                "status": character.status,
                "author_id": None,
                "reason": reason,
            }
        )
    bulk.update_rows(
        Character,
        "id",
        [
            {"id": c.pk, "sheet": c.sheet, "version": c.version, "schema_version": c.schema_version, "updated": now}
            for c, _sheet in changes
        ],
    )
    bulk.insert_rows(SheetVersion, versions)
    publish_many([(f"character:{c.pk}", "sheet-changed", {"character": c.pk}) for c, _sheet in changes])


def save_sheet(character: Character, sheet: dict[str, Any], *, reason: str, author: Any = None) -> None:
    """Store a recomputed sheet as a new version (history kept)."""
    version = character.version + 1
    Character.objects.filter(pk=character.pk).update(
        sheet=sheet, version=version, schema_version=character.rule_system.schema_version, updated=timezone.now()
    )
    character.sheet, character.version = sheet, version
    SheetVersion.objects.create(
        character=character,
        version=version,
        name=character.name,
        sheet=sheet,
        schema_version=character.rule_system.schema_version,
        status=character.status,
        author=author,
        reason=reason,
    )
    publish(f"character:{character.pk}", "sheet-changed", {"character": character.pk})


# ---------------------------------------------------------------------------
# Players: balance, history, what they can afford, purchase requests
# ---------------------------------------------------------------------------
def current_session(campaign: Campaign) -> PlaySession | None:
    return PlaySession.objects.filter(campaign=campaign, status=PlaySession.Status.OPEN).first()


def session_purchases(character: Character) -> list[dict[str, Any]]:
    """Purchases already approved in the current session (per-session limits).

    Reading: the window is the open session; between sessions it is what was
    bought since the last session closed. A new session starts empty, which
    is how the limits reset (Altaride L59, L79, L115, L161, L219–L220).
    """
    campaign = character.campaign
    qs = LedgerEntry.objects.filter(character=character, kind=LedgerEntry.Kind.PURCHASE)
    open_session = current_session(campaign)
    if open_session is not None:
        qs = qs.filter(session=open_session)
    else:
        last = PlaySession.objects.filter(campaign=campaign, closed_at__isnull=False).order_by("-closed_at").first()
        qs = qs.filter(session__isnull=True)
        if last is not None:
            qs = qs.filter(created__gt=last.closed_at)
    return [{"data": e.data} for e in qs.order_by("pk")]


#: Purchase fields only a GM may set (Altaride L140 derogation, GM confirmation).
GM_PURCHASE_FIELDS = frozenset({"gm_confirmed", "derogation"})


def _purchase_request(system: RuleSystem, character: Character, request: dict[str, Any]) -> dict[str, Any]:
    kind = request.get("kind")
    paths = {f.path for f in system.purchase_fields().get(kind, ())}
    full = dict(request)
    if "already_bought" in paths:
        full["already_bought"] = session_purchases(character)
    return full


def preview_purchase(character: Character, request: dict[str, Any]) -> rules.base.PurchaseResult:
    system = character.rule_system
    full = _purchase_request(system, character, request)
    return system.purchase(
        character.current_sheet(), full, ledger.balances(character), character.campaign.system_settings
    )


def _errors_dict(errors: Iterable[FieldError]) -> dict[str, list[str]]:
    lang = get_language() or "fr"
    out: dict[str, list[str]] = defaultdict(list)
    for e in errors:
        out[e.path or "__all__"].append(e.message.get(lang))
    return dict(out)


def request_purchase(actor: Any, character: Character, *, request: dict[str, Any]) -> PurchaseRequest:
    """A player asks to spend experience/karma; validated by the rules, decided by a GM.

    The request becomes a character change request (*demande de modification*,
    ``ChangeRequest.purchase`` = the request, sheet = what ``purchase()`` gives
    now): the GM decides there, and approval re-prices it on the sheet and
    balances of that moment. The :class:`PurchaseRequest` is kept, linked, as
    progression's list of requests (its status mirrors the change request's).
    """
    if not can_see_ledger(actor, character):
        raise Http404
    if not is_owner(actor, character) and not is_gm(actor, character.campaign):
        raise PermissionDenied
    if character.status != Character.Status.APPROVED:
        raise ValidationError({"__all__": _("Only an approved character can buy.")})
    if not is_gm(actor, character.campaign):
        # A player cannot speak for the GM: "gm_confirmed"/"derogation" are the GM's to give.
        request = {k: v for k, v in request.items() if k not in GM_PURCHASE_FIELDS}
    result = preview_purchase(character, request)
    if result.errors:
        raise ValidationError(_errors_dict(result.errors))
    kind = str(request.get("kind", ""))[:40]
    with transaction.atomic():
        change = ChangeRequest.objects.create(
            character=character,
            author=actor,
            base_version=character.version,
            name=character.name,
            sheet=result.sheet,
            schema_version=character.rule_system.schema_version,
            reason=(_("Purchase: %(kind)s") % {"kind": purchase_kind_label(kind)})[:300],
            purchase=request,
        )
        purchase = PurchaseRequest.objects.create(
            character=character,
            requested_by=actor,
            kind=kind,
            request=request,
            preview={"entries": [d.to_dict() for d in result.entries], "cost": -sum(d.amount for d in result.entries)},
            session=current_session(character.campaign),
            change_request=change,
        )
        publish(f"character:{character.pk}", "change-request", {"character": character.pk, "change": change.pk})
        character_signals.change_opened.send(ChangeRequest, actor=actor, change=change)
        publish(
            f"campaign:{character.campaign_id}",
            LIVE_KIND_PURCHASE,
            {"purchase": purchase.pk, "character": character.pk},
            users=[actor.pk],
        )
    return purchase


def decide_purchase(actor: Any, purchase: PurchaseRequest, *, approve: bool, comment: str = "") -> PurchaseRequest:
    """A GM approves or rejects a purchase: through its change request
    (``characters.services.approve_change``/``reject_change``: sheet + ledger
    entries in one transaction)."""
    character = purchase.character
    _require_gm(actor, character.campaign)
    purchase = PurchaseRequest.objects.select_related("change_request").get(pk=purchase.pk)
    if purchase.status != PurchaseRequest.Status.PENDING:
        raise ValidationError({"__all__": _("This request was already decided.")})
    change = purchase.change_request
    if change is None:
        raise ValidationError({"__all__": _("This request has no change request: ask the player to request it again.")})
    with transaction.atomic():
        if approve:
            character_services.approve_change(actor, change, comment=comment)
        else:
            character_services.reject_change(actor, change, comment=comment.strip() or _("Purchase rejected."))
        publish(
            f"campaign:{character.campaign_id}",
            LIVE_KIND_PURCHASE,
            {"purchase": purchase.pk, "character": character.pk},
            users=[character.owner_id] if character.owner_id else [],
        )
    purchase.refresh_from_db()
    return purchase


def affordable(character: Character, limit: int = 60) -> list[dict[str, Any]]:
    """What the character can buy now, as the rules offer it (``RuleSystem.purchase_offers``),
    each with the query string that prefills the purchase form."""
    system = character.rule_system
    lang = get_language() or "fr"
    offers = system.purchase_offers(
        character.current_sheet(),
        ledger.balances(character),
        character.campaign.system_settings,
        {"already_bought": session_purchases(character)},
    )
    out: list[dict[str, Any]] = []
    for offer in offers[:limit]:
        inputs = {k: v for k, v in (offer.get("request") or {}).items() if v is not None}
        first = next(iter(inputs.items()), ("", ""))
        out.append(
            {
                "kind": offer["kind"],
                "field": first[0],
                "value": first[1],
                "label": offer["label"].get(lang),
                "cost": offer["cost"],
                "query": urlencode({"kind": offer["kind"], **{f"p-{k}": v for k, v in inputs.items()}}),
            }
        )
    return out


def recap(session: PlaySession, viewer: Any) -> dict[str, Any]:
    """What the recap page shows to ``viewer`` (GM details only to GMs)."""
    gm = is_gm(viewer, session.campaign)
    results = list(SessionResult.objects.filter(session=session).select_related("character"))
    awards = list(SessionAward.objects.filter(session=session).select_related("character", "created_by"))
    purchases = list(
        LedgerEntry.objects.filter(session=session, kind=LedgerEntry.Kind.PURCHASE).select_related("character")
    )
    if not gm:
        mine = {r.character_id for r in results if is_owner(viewer, r.character)}
        mine |= {a.character_id for a in awards if is_owner(viewer, a.character)}
        results = [r for r in results if r.character_id in mine]
        awards = [a for a in awards if a.character_id in mine]
        purchases = [p for p in purchases if p.character_id in mine]
    runs = list(RecalculationRun.objects.filter(session=session)[:20]) if gm else []
    return {
        "gm": gm,
        "results": results,
        "awards": awards,
        "purchases": purchases,
        "runs": runs,
        "review": SessionReview.objects.filter(session=session).first(),
    }
