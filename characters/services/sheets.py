"""Sheets: creation, wizard saves, submission and review, status."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _

from campaigns.access import is_gm, role_of
from campaigns.models import Campaign, Role
from characters import access, plugins, signals
from characters.ledger import append_entry
from characters.models import Character, LedgerEntry
from characters.services.base import (
    _check_size,
    _keep_locked,
    _sync_name,
    check_version,
    lock_character,
    publish_sheet,
    record_version,
    require_full_sheet,
)
from characters.services.errors import SheetInvalid, VersionConflict, _error
from characters.services.evaluation import (
    evaluate,
    evaluate_character,
    system_settings,
)
from characters.sheetform import msg, note_i18n, type_errors
from rules.base import FieldError, LedgerDraft


# ---------------------------------------------------------------------------
# Creation, wizard saves, submission, review
# ---------------------------------------------------------------------------
def create_character(
    actor: Any, campaign: Campaign, *, name: str, is_npc: bool = False, public_description: str = ""
) -> Character:
    """A new draft sheet with the system's defaults (players: their PC; GMs: also NPCs)."""
    role = role_of(actor, campaign)
    if role is None:
        raise Http404
    if role not in (Role.GM, Role.COGM, Role.PLAYER):
        raise PermissionDenied(_("Only players and GMs create characters."))
    if is_npc and role not in (Role.GM, Role.COGM):
        raise PermissionDenied(_("Only GMs create NPCs."))
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": [_("Give your character a name.")]})
    if len(name) > 100:
        raise ValidationError({"name": [_("At most 100 characters.")]})
    system = campaign.rule_system
    sheet = system.default_sheet()
    _sync_name(system, sheet, name)
    with transaction.atomic():
        character = Character.objects.create(
            campaign=campaign,
            owner=actor,
            is_npc=is_npc,
            name=name,
            system=system.slug,
            sheet=sheet,
            schema_version=system.schema_version,
            public_description=public_description[:10000],
        )
        record_version(character, actor, "created")
    return character


def save_sheet(
    actor: Any,
    character: Character,
    *,
    sheet: dict[str, Any],
    expected_version: int | None,
    reason: str = "",
    parse_errors: list[FieldError] | None = None,
) -> Character:
    """Store a sheet edited directly: the owner's draft, or a GM's edit (recorded).

    A draft may still break game rules (the player is mid-way, submission is
    the gate) but never holds a value of the wrong type. A GM's edit of a
    submitted or approved sheet must be fully valid.
    """
    require_full_sheet(actor, character)
    if not access.can_edit_directly(actor, character):
        raise PermissionDenied(_("Once submitted or approved, changes go through the GM."))
    if not isinstance(sheet, dict):
        raise SheetInvalid([_error("", "invalid_dict", "Objet attendu.", "Expected an object.")])
    _check_size(sheet)
    sheet = _keep_locked(actor, character, sheet)
    system = character.rule_system
    settings = system_settings(character.campaign)
    result = evaluate(system, sheet, settings, character.server_rolls(), npc=character.is_npc)
    errors = list(parse_errors or []) + type_errors(result.errors)
    if errors:
        raise SheetInvalid(errors)
    if character.status != Character.Status.DRAFT and not result.valid:
        raise SheetInvalid(result.all_errors())
    gm_edit = character.status != Character.Status.DRAFT or (
        is_gm(actor, character.campaign) and not access.is_owner(actor, character)
    )
    with transaction.atomic():
        locked = lock_character(character)
        check_version(locked, expected_version)
        if locked.status != character.status:
            raise VersionConflict(int(expected_version or locked.version), locked.version)
        locked.sheet = sheet
        locked.schema_version = system.schema_version
        locked.name = _sync_name(system, locked.sheet, locked.name)
        locked.version += 1
        locked.save()
        record_version(locked, actor, reason or (_("GM edit") if gm_edit else _("draft saved")))
        publish_sheet(locked)
    return locked


def update_profile(
    actor: Any,
    character: Character,
    *,
    name: str,
    public_description: str,
    private_background: str,
    expected_version: int | None,
) -> Character:
    """Name and texts: owner and GMs. Renaming an approved sheet is the GM's call."""
    require_full_sheet(actor, character)
    if character.is_npc and not is_gm(actor, character.campaign):
        raise Http404
    name = (name or "").strip()
    errors: dict[str, list[str]] = {}
    if not name:
        errors["name"] = [_("Give your character a name.")]
    elif len(name) > 100:
        errors["name"] = [_("At most 100 characters.")]
    if len(public_description) > 10000:
        errors["public_description"] = [_("At most 10000 characters.")]
    if len(private_background) > 20000:
        errors["private_background"] = [_("At most 20000 characters.")]
    renaming = name != character.name
    if renaming and character.status != Character.Status.DRAFT and not is_gm(actor, character.campaign):
        errors["name"] = [_("Ask your GM to rename an approved character (change request).")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        locked = lock_character(character)
        check_version(locked, expected_version)
        locked.name = name
        locked.public_description = public_description
        locked.private_background = private_background
        if renaming and isinstance(locked.sheet, dict) and "name" in locked.sheet:
            locked.sheet["name"] = name
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("profile edited"))
        publish_sheet(locked)
    return locked


def submit_character(actor: Any, character: Character, *, expected_version: int | None = None) -> Character:
    """The owner hands a complete, valid draft to the GM (*soumettre*)."""
    require_full_sheet(actor, character)
    if not (access.is_owner(actor, character) or is_gm(actor, character.campaign)):
        raise PermissionDenied(_("Only the owner submits a character."))
    if character.status != Character.Status.DRAFT:
        raise PermissionDenied(_("Only a draft can be submitted."))
    result = evaluate_character(character)
    if not result.valid:
        raise SheetInvalid(result.all_errors())
    with transaction.atomic():
        locked = lock_character(character)
        check_version(locked, expected_version)
        locked.status = Character.Status.SUBMITTED
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("submitted for approval"))
        publish_sheet(locked, "sheet-status")
        signals.sheet_submitted.send(Character, actor=actor, character=locked)
    return locked


def approve_character(actor: Any, character: Character, *, comment: str = "") -> Character:
    """A GM approves a submitted sheet; the system's creation ledger entries are written."""
    require_full_sheet(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs approve characters."))
    if character.status not in (Character.Status.SUBMITTED, Character.Status.DRAFT):
        raise PermissionDenied(_("This character is not waiting for approval."))
    result = evaluate_character(character)
    if not result.valid:
        raise SheetInvalid(result.all_errors())
    system = character.rule_system
    with transaction.atomic():
        locked = lock_character(character)
        drafts = list(system.creation_ledger(locked.current_sheet(), system_settings(locked.campaign)))
        _write_creation_ledger(locked, drafts, actor)
        locked.status = Character.Status.APPROVED
        locked.gm_comment = comment[:5000]
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("approved"))
        publish_sheet(locked, "sheet-status")
        signals.sheet_approved.send(Character, actor=actor, character=locked)
    return locked


def _write_creation_ledger(character: Character, drafts: list[LedgerDraft], actor: Any) -> None:
    """Creation entries (idempotent by key). A line its system's plug-in already charged
    (:func:`characters.plugins.already_paid`: Ambre's auction bids of an attribute) only adds
    the difference (buy-ups made in the sheet), as a purchase."""
    currencies = character.rule_system.currencies
    for index, draft in enumerate(drafts):
        if draft.currency not in currencies:
            continue
        amount = int(draft.amount)
        kind = draft.kind
        paid = plugins.already_paid(character, draft)
        if paid:
            amount -= paid
            kind = LedgerEntry.Kind.PURCHASE
        if not amount:
            continue
        append_entry(
            character,
            draft.currency,
            amount,
            kind,
            created_by=actor,
            note=msg(draft.note),
            data={**draft.data, "note_i18n": note_i18n(draft.note)},
            key=f"creation:{character.pk}:{index}",
        )


def return_character(actor: Any, character: Character, *, comment: str) -> Character:
    """A GM sends a submitted sheet back to draft with comments (*renvoyer*)."""
    require_full_sheet(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs review characters."))
    if character.status != Character.Status.SUBMITTED:
        raise PermissionDenied(_("This character is not waiting for approval."))
    if not (comment or "").strip():
        raise ValidationError({"comment": [_("Tell the player what to change.")]})
    with transaction.atomic():
        locked = lock_character(character)
        locked.status = Character.Status.DRAFT
        locked.gm_comment = comment.strip()[:5000]
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("returned: %(comment)s") % {"comment": comment.strip()[:200]})
        publish_sheet(locked, "sheet-status")
        signals.sheet_returned.send(Character, actor=actor, character=locked)
    return locked


def set_status(actor: Any, character: Character, *, status: str) -> Character:
    """GMs retire a character, declare it dead, or bring it back (approved)."""
    require_full_sheet(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs change a character's status."))
    allowed = {Character.Status.RETIRED, Character.Status.DEAD, Character.Status.APPROVED}
    if status not in allowed or character.status in (Character.Status.DRAFT, Character.Status.SUBMITTED):
        raise ValidationError({"status": [_("This status change is not possible.")]})
    with transaction.atomic():
        locked = lock_character(character)
        locked.status = status
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("status: %(status)s") % {"status": locked.get_status_display()})
        publish_sheet(locked, "sheet-status")
    return locked


def on_step_saved(character: Character, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What the rules carry through when a wizard step changes (``RuleSystem.follow_edit``: SMS race, L689;
    Clefs: a new placement of the rolled results)."""
    return character.rule_system.follow_edit(before, after, system_settings(character.campaign))
