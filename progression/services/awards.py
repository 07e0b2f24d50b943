"""The award screen: suggestions from the rules, the GM's confirmation and corrections."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from campaigns.models import PlaySession, Post, Roll
from characters.models import Character
from live.events import publish
from progression import facts as session_facts_mod
from progression import signals
from progression.models import (
    RecalculationRun,
    SessionAward,
    SessionReview,
)
from progression.services.access import _require_gm
from progression.services.messages import msg_text
from progression.services.runs import _launch
from rules.base import LedgerDraft, RulesError, RuleSystem

MAX_AWARD = 10000
LIVE_KIND_REVIEW = "progression-review"


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


def start_session_review(session: PlaySession) -> RecalculationRun:
    """Receiver of ``campaigns.signals.session_closed``: open the award sheet, run the job.

    The run at close applies what the session already recorded (approved
    purchases, corrections); the GM's awards come with the next run.
    """
    with transaction.atomic():
        review, _created = SessionReview.objects.get_or_create(session=session)
        publish(f"campaign:{session.campaign_id}", LIVE_KIND_REVIEW, {"session": session.pk}, gms_only=True)
        return _launch(session.campaign, session, actor=None, reason="session_closed", revision=review.revision)
