"""Change requests of approved sheets: proposed, discussed, approved (with the ledger) or rejected."""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules
from campaigns.access import is_gm
from characters import access, change_kinds, signals
from characters.ledger import append_entry
from characters.models import ChangeComment, ChangeRequest, Character
from characters.services.base import (
    _check_size,
    _keep_locked,
    lock_character,
    publish_sheet,
    record_version,
    require_full_sheet,
)
from characters.services.errors import SheetInvalid, VersionConflict, _error
from characters.services.evaluation import (
    evaluate_character,
    system_settings,
)
from characters.sheetform import msg, note_i18n
from live.events import publish
from rules.base import FieldError, LedgerDraft, Msg


# ---------------------------------------------------------------------------
# Change requests
# ---------------------------------------------------------------------------
def change_ledger_drafts(character: Character, before: dict[str, Any], after: dict[str, Any]) -> list[LedgerDraft]:
    """What a change costs: the difference of the system's budget balance
    (``Budget.remaining``) before and after, in its currency, when that
    currency is one of its system's ledger currencies (``RuleSystem.currencies``)."""
    system = character.rule_system
    settings = system_settings(character.campaign)
    try:
        old = system.creation_budget(before, settings)
        new = system.creation_budget(after, settings)
    except Exception:
        return []
    delta = new.remaining - old.remaining
    if not delta or new.currency not in character.rule_system.currencies:
        return []
    note = Msg("Modification de la feuille", "Sheet change")
    return [LedgerDraft(new.currency, delta, "purchase", note, {"spent_before": old.spent, "spent_after": new.spent})]


def request_change(
    actor: Any,
    character: Character,
    *,
    sheet: dict[str, Any],
    expected_version: int | None,
    reason: str = "",
    name: str | None = None,
    parse_errors: list[FieldError] | None = None,
) -> ChangeRequest:
    """The owner of an approved sheet proposes an edit; the GM reviews it."""
    require_full_sheet(actor, character)
    if not access.can_request_change(actor, character):
        raise PermissionDenied(_("Only the owner of an approved character requests changes."))
    if not isinstance(sheet, dict):
        raise SheetInvalid([_error("", "invalid_dict", "Objet attendu.", "Expected an object.")])
    _check_size(sheet)
    sheet = _keep_locked(actor, character, sheet)
    if expected_version is not None and int(expected_version) != character.version:
        raise VersionConflict(int(expected_version), character.version)
    result = evaluate_character(character, sheet)
    errors = list(parse_errors or []) + result.errors
    if errors:
        raise SheetInvalid(errors)
    if sheet == character.current_sheet() and (name is None or name == character.name):
        raise ValidationError({"__all__": [_("Nothing changed.")]})
    with transaction.atomic():
        change = ChangeRequest.objects.create(
            character=character,
            author=actor,
            base_version=character.version,
            name=(name or character.name)[:100],
            sheet=sheet,
            schema_version=character.rule_system.schema_version,
            reason=(reason or "")[:300],
        )
        publish(f"character:{character.pk}", "change-request", {"character": character.pk, "change": change.pk})
        signals.change_opened.send(ChangeRequest, actor=actor, change=change)
    return change


def purchase_preview(character: Character, change: ChangeRequest) -> rules.base.PurchaseResult:
    """The rules' ``purchase()`` of a purchase change request on the CURRENT
    sheet and balances (per-session limits as its handler counts them:
    :mod:`characters.change_kinds`, registered by progression)."""
    kind = change_kinds.kind_of(change)
    if kind is None:
        raise ValueError("not a purchase change request")
    return kind.preview(character, change.purchase or {})


def approve_change(actor: Any, change: ChangeRequest, *, comment: str = "") -> Character:
    """Apply a change request and its ledger entries in ONE transaction.

    The sheet must not have moved since the request was made (otherwise the
    diff the GM read is not what would be applied): a conflict is refused.

    A purchase (``change.purchase`` set) is re-priced instead: the rules'
    ``purchase()`` runs again on the current sheet with the current balances;
    if it no longer validates (unaffordable, limit reached) the approval is
    refused and nothing is written. Its ledger drafts are written with the
    open session (none between sessions), as progression counts per-session
    limits.
    """
    character = change.character
    require_full_sheet(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs approve change requests."))
    if change.status != ChangeRequest.Status.PENDING:
        raise ValidationError({"__all__": [_("This change request was already decided.")]})
    kind = change_kinds.kind_of(change)
    with transaction.atomic():
        locked = lock_character(character)
        session = None
        if kind is not None:
            result = purchase_preview(locked, change)
            if result.errors:
                lang = get_language() or "fr"
                reasons = "; ".join(e.message.get(lang) for e in result.errors)
                raise ValidationError(
                    {"__all__": [_("This purchase can no longer be applied: %(reasons)s") % {"reasons": reasons}]}
                )
            new_sheet = copy.deepcopy(result.sheet)
            drafts = list(result.entries)
            session = kind.session(locked.campaign)
            change.sheet = new_sheet
        else:
            if locked.version != change.base_version:
                raise VersionConflict(change.base_version, locked.version)
            evaluation = evaluate_character(locked, change.sheet)
            if evaluation.errors:
                raise SheetInvalid(evaluation.errors)
            drafts = change_ledger_drafts(locked, locked.current_sheet(), change.sheet)
            new_sheet = copy.deepcopy(change.sheet)
        locked.sheet = new_sheet
        locked.schema_version = change.schema_version
        locked.name = change.name
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("change request #%(id)s approved") % {"id": change.pk})
        link = {"change_request": change.pk, **(kind.links(change) if kind is not None else {})}
        for index, draft in enumerate(drafts):
            append_entry(
                locked,
                draft.currency,
                draft.amount,
                draft.kind,
                session=session,
                created_by=actor,
                note=msg(draft.note),
                data={**draft.data, **link, "note_i18n": note_i18n(draft.note)},
                key=f"change:{change.pk}:{index}",
            )
        change.status = ChangeRequest.Status.APPROVED
        change.decided_by = actor
        change.decided_at = timezone.now()
        change.applied_version = locked.version
        change.save()
        if comment.strip():
            ChangeComment.objects.create(change_request=change, author=actor, body=comment.strip()[:5000])
        if kind is not None:
            kind.decided(change, actor, comment)
        publish_sheet(locked)
        signals.change_decided.send(ChangeRequest, actor=actor, change=change)
    return locked


def reject_change(actor: Any, change: ChangeRequest, *, comment: str) -> ChangeRequest:
    character = change.character
    require_full_sheet(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs reject change requests."))
    if change.status != ChangeRequest.Status.PENDING:
        raise ValidationError({"__all__": [_("This change request was already decided.")]})
    if not (comment or "").strip():
        raise ValidationError({"comment": [_("Say why you reject it.")]})
    with transaction.atomic():
        change.status = ChangeRequest.Status.REJECTED
        change.decided_by = actor
        change.decided_at = timezone.now()
        change.save()
        ChangeComment.objects.create(change_request=change, author=actor, body=comment.strip()[:5000])
        kind = change_kinds.kind_of(change)
        if kind is not None:
            kind.decided(change, actor, comment)
        publish(f"character:{character.pk}", "change-request", {"character": character.pk, "change": change.pk})
        signals.change_decided.send(ChangeRequest, actor=actor, change=change)
    return change


def withdraw_change(actor: Any, change: ChangeRequest) -> ChangeRequest:
    require_full_sheet(actor, change.character)
    if change.author_id != getattr(actor, "pk", None):
        raise PermissionDenied(_("Only its author withdraws a change request."))
    if change.status != ChangeRequest.Status.PENDING:
        raise ValidationError({"__all__": [_("This change request was already decided.")]})
    with transaction.atomic():
        change.status = ChangeRequest.Status.WITHDRAWN
        change.decided_at = timezone.now()
        change.save()
        kind = change_kinds.kind_of(change)
        if kind is not None:
            kind.decided(change, actor, "")
    return change


def comment_change(actor: Any, change: ChangeRequest, *, body: str) -> ChangeComment:
    require_full_sheet(actor, change.character)
    body = (body or "").strip()
    if not body:
        raise ValidationError({"body": [_("Write something.")]})
    if len(body) > 5000:
        raise ValidationError({"body": [_("At most 5000 characters.")]})
    with transaction.atomic():
        comment = ChangeComment.objects.create(change_request=change, author=actor, body=body)
        publish(
            f"character:{change.character_id}",
            "change-comment",
            {"character": change.character_id, "change": change.pk},
        )
    return comment
