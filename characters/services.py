"""Every user-triggered write on characters: one function each.

Each function checks permission (``Http404`` for what the actor may not see,
``PermissionDenied`` for a visible but forbidden write), validates game data
through :mod:`rules` only, writes inside ``transaction.atomic()`` and
publishes live events inside that transaction.

Sheet errors are raised as :class:`SheetInvalid` (a ``ValidationError`` whose
dict is keyed by the rules engine's dotted paths) so forms can put each
message next to its input.
"""

from __future__ import annotations

import copy
import io
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules
from campaigns.access import is_gm, role_of
from campaigns.models import Campaign, Role
from characters import access
from characters.ledger import append_entry, balances
from characters.models import Auction, ChangeComment, ChangeRequest, Character, LedgerEntry, SheetVersion
from characters.sheetform import msg, note_i18n, type_errors
from live.events import publish
from rhythm import loop
from rules.base import Budget, FieldError, LedgerDraft, Msg, RandomSource, RulesError, get_path, set_path

EXPORT_FORMAT = "tablee-character"
EXPORT_VERSION = 1


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------
class SheetInvalid(ValidationError):
    """Field errors from the rules engine, keyed by dotted path ("" = whole sheet)."""

    def __init__(self, errors: list[FieldError]):
        self.field_errors = list(errors)
        grouped: dict[str, list[str]] = {}
        for e in self.field_errors:
            grouped.setdefault(e.path or "__all__", []).append(msg(e.message))
        super().__init__(grouped)


class VersionConflict(ValidationError):
    """Someone saved the sheet since the form was opened (optimistic check)."""

    def __init__(self, expected: int, current: int):
        self.expected, self.current = expected, current
        super().__init__(
            {
                "__all__": [
                    _(
                        "This sheet was changed by someone else while you were editing it "
                        "(you started from version %(expected)s, it is now version %(current)s). "
                        "Your edit was not saved: reload the page to see the changes, then apply yours again."
                    )
                    % {"expected": expected, "current": current}
                ]
            },
            code="version_conflict",
        )


def _error(path: str, code: str, fr: str, en: str) -> FieldError:
    return FieldError(path, code, Msg(fr, en))


# ---------------------------------------------------------------------------
# Evaluation through the rules engine (read-only)
# ---------------------------------------------------------------------------
@dataclass
class Evaluation:
    """A sheet checked and computed by its system."""

    errors: list[FieldError] = field(default_factory=list)
    budget: Budget | None = None
    derived: dict[str, Any] | None = None

    @property
    def valid(self) -> bool:
        return not self.errors and (self.budget is None or self.budget.valid)

    def all_errors(self) -> list[FieldError]:
        """Validation errors plus budget errors not already reported."""
        seen = {(e.path, e.code) for e in self.errors}
        extra = [e for e in (self.budget.errors if self.budget else []) if (e.path, e.code) not in seen]
        return self.errors + extra


def system_settings(campaign: Campaign) -> dict[str, Any]:
    return dict(campaign.system_settings or {})


def evaluate(
    system: rules.base.RuleSystem,
    sheet: dict[str, Any],
    settings: dict[str, Any] | None,
    rolls: dict[str, Any] | None = None,
    *,
    npc: bool = False,
) -> Evaluation:
    """Validate (against the server's stored ``rolls`` too), budget and derive;
    a sheet with type errors is only validated.

    An NPC follows the system's NPC rules (``validate_npc``) and has no creation budget.
    """
    result = Evaluation()
    try:
        result.errors = list(system.validate_npc(sheet, settings) if npc else system.validate_sheet(sheet, settings))
        if not type_errors(result.errors):
            result.errors += system.verify_server_rolls(sheet, rolls or {})
    except Exception:
        result.errors = [_error("", "engine_error", "Feuille illisible par les règles.", "The rules cannot read it.")]
        return result
    if type_errors(result.errors):
        return result
    try:
        result.budget = None if npc else system.creation_budget(sheet, settings)
    except Exception:
        result.budget = None
    try:
        result.derived = system.derive(sheet, settings)
    except Exception:
        result.derived = None
    return result


def approval_sheet(character: Character) -> dict[str, Any] | None:
    """The sheet as the GM approved it (the first approved version), migrated to the current schema."""
    version = character.versions.filter(status=Character.Status.APPROVED).order_by("version").first()
    if version is None:
        return None
    try:
        return character.rule_system.migrate_sheet(copy.deepcopy(version.sheet), version.schema_version)
    except Exception:
        return None


def shown_budget(character: Character, result: Evaluation) -> tuple[Budget | None, bool]:
    """The budget a sheet page shows, and whether it is frozen.

    Before approval: the creation budget of the current sheet. Once approved,
    creation is over: the creation budget is the one of the approved sheet
    (frozen), and what was spent later comes from the ledger (purchases), not
    from the creation budget of today's sheet, which would count raises paid
    with experience as creation spending (Altaride "Talents : 4160 / 4000").
    """
    if character.status != Character.Status.APPROVED:
        return result.budget, False
    approved = approval_sheet(character)
    if approved is None:
        return result.budget, False
    return evaluate_character(character, approved).budget, True


def evaluate_character(character: Character, sheet: dict[str, Any] | None = None) -> Evaluation:
    return evaluate(
        character.rule_system,
        character.current_sheet() if sheet is None else sheet,
        system_settings(character.campaign),
        character.server_rolls(),
        npc=character.is_npc,
    )


def _check_size(sheet: Any) -> None:
    size = len(json.dumps(sheet, ensure_ascii=False).encode())
    if size > django_settings.TABLEE_MAX_SHEET_BYTES:
        raise ValidationError(
            {
                "__all__": [
                    _("This sheet is too large (%(size)s bytes, at most %(max)s).")
                    % {"size": size, "max": django_settings.TABLEE_MAX_SHEET_BYTES}
                ]
            }
        )


def _sync_name(system: rules.base.RuleSystem, sheet: dict[str, Any], name: str) -> str:
    """Systems with a ``name`` sheet field keep it equal to the character's name."""
    if any(f.path == "name" for f in system.sheet_fields()):
        sheet_name = sheet.get("name")
        if isinstance(sheet_name, str) and sheet_name.strip():
            return sheet_name.strip()[:100]
        sheet["name"] = name
    return name


# ---------------------------------------------------------------------------
# Helpers for writes
# ---------------------------------------------------------------------------
def _lock(character: Character) -> Character:
    return Character.objects.select_for_update().select_related("campaign").get(pk=character.pk)


def _check_version(locked: Character, expected_version: int | None) -> None:
    if expected_version is not None and int(expected_version) != locked.version:
        raise VersionConflict(int(expected_version), locked.version)


def _record_version(character: Character, author: Any, reason: str) -> SheetVersion:
    return SheetVersion.objects.create(
        character=character,
        version=character.version,
        name=character.name,
        sheet=copy.deepcopy(character.sheet),
        schema_version=character.schema_version,
        status=character.status,
        author=author,
        reason=reason[:300],
    )


def _publish_sheet(character: Character, kind: str = "sheet-changed") -> None:
    publish(f"character:{character.pk}", kind, {"character": character.pk, "version": character.version})


def _require_visible(actor: Any, character: Character) -> None:
    if not access.can_see_full_sheet(actor, character):
        raise Http404


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
        _record_version(character, actor, "created")
    return character


def _keep_locked(actor: Any, character: Character, sheet: dict[str, Any]) -> dict[str, Any]:
    """Whatever the client sent, nobody writes what the rules lock for them
    (:meth:`rules.base.RuleSystem.locked_paths`): a non-GM never writes GM-set
    values, auction results or keys the rules keep for themselves; a GM never
    writes what only the server writes (a creation roll). Same for HTML, API and import."""
    from characters.sheetform import keep_locked

    locked = tuple(access.locked_paths(actor, character))
    stored = character.current_sheet()
    if is_gm(actor, character.campaign):
        sheet = copy.deepcopy(sheet)
        for path in locked:
            value = get_path(stored, path, _ABSENT)
            if value is _ABSENT:
                _drop_path(sheet, path)
            else:
                set_path(sheet, path, copy.deepcopy(value))
        return sheet
    return keep_locked(character.rule_system.sheet_fields(), stored, sheet, locked)


_ABSENT = object()


def _drop_path(sheet: dict[str, Any], path: str) -> None:
    parent = get_path(sheet, path.rpartition(".")[0]) if "." in path else sheet
    if isinstance(parent, dict):
        parent.pop(path.rpartition(".")[2], None)


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
    _require_visible(actor, character)
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
        locked = _lock(character)
        _check_version(locked, expected_version)
        if locked.status != character.status:
            raise VersionConflict(int(expected_version or locked.version), locked.version)
        locked.sheet = sheet
        locked.schema_version = system.schema_version
        locked.name = _sync_name(system, locked.sheet, locked.name)
        locked.version += 1
        locked.save()
        _record_version(locked, actor, reason or (_("GM edit") if gm_edit else _("draft saved")))
        _publish_sheet(locked)
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
    _require_visible(actor, character)
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
        locked = _lock(character)
        _check_version(locked, expected_version)
        locked.name = name
        locked.public_description = public_description
        locked.private_background = private_background
        if renaming and isinstance(locked.sheet, dict) and "name" in locked.sheet:
            locked.sheet["name"] = name
        locked.version += 1
        locked.save()
        _record_version(locked, actor, _("profile edited"))
        _publish_sheet(locked)
    return locked


def submit_character(actor: Any, character: Character, *, expected_version: int | None = None) -> Character:
    """The owner hands a complete, valid draft to the GM (*soumettre*)."""
    _require_visible(actor, character)
    if not (access.is_owner(actor, character) or is_gm(actor, character.campaign)):
        raise PermissionDenied(_("Only the owner submits a character."))
    if character.status != Character.Status.DRAFT:
        raise PermissionDenied(_("Only a draft can be submitted."))
    result = evaluate_character(character)
    if not result.valid:
        raise SheetInvalid(result.all_errors())
    with transaction.atomic():
        locked = _lock(character)
        _check_version(locked, expected_version)
        locked.status = Character.Status.SUBMITTED
        locked.version += 1
        locked.save()
        _record_version(locked, actor, _("submitted for approval"))
        _publish_sheet(locked, "sheet-status")
        loop.sheet_submitted(actor, locked)
    return locked


def approve_character(actor: Any, character: Character, *, comment: str = "") -> Character:
    """A GM approves a submitted sheet; the system's creation ledger entries are written."""
    _require_visible(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs approve characters."))
    if character.status not in (Character.Status.SUBMITTED, Character.Status.DRAFT):
        raise PermissionDenied(_("This character is not waiting for approval."))
    result = evaluate_character(character)
    if not result.valid:
        raise SheetInvalid(result.all_errors())
    system = character.rule_system
    with transaction.atomic():
        locked = _lock(character)
        drafts = list(system.creation_ledger(locked.current_sheet(), system_settings(locked.campaign)))
        _write_creation_ledger(locked, drafts, actor)
        locked.status = Character.Status.APPROVED
        locked.gm_comment = comment[:5000]
        locked.version += 1
        locked.save()
        _record_version(locked, actor, _("approved"))
        _publish_sheet(locked, "sheet-status")
        loop.sheet_approved(actor, locked)
    return locked


def _write_creation_ledger(character: Character, drafts: list[LedgerDraft], actor: Any) -> None:
    """Creation entries (idempotent by key). Attribute lines already paid in an
    Ambre auction (``auction_bid``/``rank_refund`` entries of that attribute)
    only add the difference (buy-ups made in the sheet)."""
    for index, draft in enumerate(drafts):
        if draft.currency not in LedgerEntry.Currency.values:
            continue
        amount = int(draft.amount)
        kind = draft.kind
        path = str(draft.data.get("path", ""))
        if path.startswith("attributes."):
            attribute = path.split(".", 1)[1]
            paid = sum(
                e.amount
                for e in LedgerEntry.objects.filter(
                    character=character, kind__in=["auction_bid", "rank_refund"], currency=draft.currency
                )
                if e.data.get("attribute") == attribute
            )
            if paid:
                amount -= paid
                kind = "purchase"
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
    _require_visible(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs review characters."))
    if character.status != Character.Status.SUBMITTED:
        raise PermissionDenied(_("This character is not waiting for approval."))
    if not (comment or "").strip():
        raise ValidationError({"comment": [_("Tell the player what to change.")]})
    with transaction.atomic():
        locked = _lock(character)
        locked.status = Character.Status.DRAFT
        locked.gm_comment = comment.strip()[:5000]
        locked.version += 1
        locked.save()
        _record_version(locked, actor, _("returned: %(comment)s") % {"comment": comment.strip()[:200]})
        _publish_sheet(locked, "sheet-status")
        loop.sheet_returned(actor, locked)
    return locked


def set_status(actor: Any, character: Character, *, status: str) -> Character:
    """GMs retire a character, declare it dead, or bring it back (approved)."""
    _require_visible(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs change a character's status."))
    allowed = {Character.Status.RETIRED, Character.Status.DEAD, Character.Status.APPROVED}
    if status not in allowed or character.status in (Character.Status.DRAFT, Character.Status.SUBMITTED):
        raise ValidationError({"status": [_("This status change is not possible.")]})
    with transaction.atomic():
        locked = _lock(character)
        locked.status = status
        locked.version += 1
        locked.save()
        _record_version(locked, actor, _("status: %(status)s") % {"status": locked.get_status_display()})
        _publish_sheet(locked, "sheet-status")
    return locked


# ---------------------------------------------------------------------------
# System-specific creation helpers (all game logic stays in rules/)
# ---------------------------------------------------------------------------
def clefs_creation_roll(
    actor: Any,
    character: Character,
    *,
    aspect_method: str,
    means_method: str,
    expected_version: int | None,
    rng: RandomSource | None = None,
) -> Character:
    """Clefs de l'Aube: roll the creation dice on the server (L517-L576).

    One roll per character: the record is appended to the campaign's dice
    chain (a secret roll of kind ``"creation"``, linked to the character and
    referenced by ``Character.creation_roll``) and copied into the sheet's
    ``creation.roll``, which nobody may write; the rules check the sheet
    against the stored roll. Only a GM may roll again.
    """
    from campaigns.dice import fair_source, record_roll
    from rules import clefs

    _require_visible(actor, character)
    if character.system != "clefs-de-l-aube":
        raise Http404
    if not access.can_edit_directly(actor, character):
        raise PermissionDenied(_("Only a draft sheet can be rolled."))
    sheet = copy.deepcopy(character.current_sheet())
    creation = sheet.setdefault("creation", {})
    if character.creation_roll_id is not None and not is_gm(actor, character.campaign):
        raise PermissionDenied(_("The creation dice were already rolled; only the GM may roll again."))
    request = {"aspect_method": aspect_method, "means_method": means_method}
    with transaction.atomic():
        locked = _lock(character)
        _check_version(locked, expected_version)
        if locked.creation_roll_id is not None and not is_gm(actor, locked.campaign):
            raise PermissionDenied(_("The creation dice were already rolled; only the GM may roll again."))
        try:
            # The campaign's fair source (campaigns.dice): the draws get the chain's fairness proof.
            record = clefs.creation_roll(rng or fair_source(locked.campaign, request), aspect_method, means_method)
        except RulesError as exc:
            remap = {"aspect_method": "creation.aspect_method", "means_method": "creation.means_method"}
            errors = [FieldError(remap.get(e.path, e.path), e.code, e.message) for e in exc.errors]
            raise SheetInvalid(errors) from exc
        creation.update(aspect_method=aspect_method, means_method=means_method, roll=record)
        aspects = dict(zip(("PH", "ME", "MY"), record["aspect_results"], strict=False))
        creation["aspects_assigned"] = dict(aspects)
        sheet["aspects"] = dict(aspects)
        means_keys = list((sheet.get("means") or {}).keys()) or ["PU", "RE", "MA", "PR", "EX", "PE"]
        means = dict(zip(means_keys, record["means_values"], strict=False))
        creation["means_assigned"] = dict(means)
        sheet["means"] = dict(means)
        roll = record_roll(
            locked.campaign,
            roller=actor,
            kind="creation",
            system=locked.system,
            request=request,
            resolution=record,
            label=f"creation: {locked.name}",
            secret=True,
            character=locked,
        )
        creation["roll"] = roll.resolution
        locked.creation_roll = roll
        locked.sheet = sheet
        locked.version += 1
        locked.save()
        _record_version(locked, actor, _("creation dice rolled: %(draws)s") % {"draws": record["draws"]})
        _publish_sheet(locked)
    return locked


def apply_template(actor: Any, character: Character, *, kind: str, key: str, expected_version: int | None) -> Character:
    """SMS: apply a race or an archetype template (``rules.sms.creation``)."""
    from rules.sms import creation as sms_creation

    _require_visible(actor, character)
    if character.system != "sms":
        raise Http404
    if not access.can_edit_directly(actor, character):
        raise PermissionDenied(_("Only a draft sheet takes templates."))
    settings = system_settings(character.campaign)
    try:
        if kind == "race":
            sheet = sms_creation.apply_race(character.current_sheet(), key, settings)
        elif kind == "archetype":
            sheet = sms_creation.apply_archetype(character.current_sheet(), key, settings)
        else:
            raise ValidationError({"kind": [_("Unknown template.")]})
    except RulesError as exc:
        path = "race" if kind == "race" else "archetypes"
        raise SheetInvalid([FieldError(path, e.code, e.message) for e in exc.errors]) from exc
    return save_sheet(
        actor,
        character,
        sheet=sheet,
        expected_version=expected_version,
        reason=_("template applied: %(key)s") % {"key": key},
    )


def on_step_saved(character: Character, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What the rules carry through when a wizard step changes (``RuleSystem.follow_edit``: SMS race, L689;
    Clefs: a new placement of the rolled results)."""
    return character.rule_system.follow_edit(before, after, system_settings(character.campaign))


# ---------------------------------------------------------------------------
# Change requests
# ---------------------------------------------------------------------------
def change_ledger_drafts(character: Character, before: dict[str, Any], after: dict[str, Any]) -> list[LedgerDraft]:
    """What a change costs: the difference of the system's budget balance
    (``Budget.remaining``) before and after, in its currency, when that
    currency is a ledger currency (karma, experience)."""
    system = character.rule_system
    settings = system_settings(character.campaign)
    try:
        old = system.creation_budget(before, settings)
        new = system.creation_budget(after, settings)
    except Exception:
        return []
    delta = new.remaining - old.remaining
    if not delta or new.currency not in LedgerEntry.Currency.values:
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
    _require_visible(actor, character)
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
        loop.change_opened(actor, change)
    return change


def _purchase_module() -> Any:
    """progression's purchase helpers (imported late: progression depends on characters)."""
    from progression import services as progression_services

    return progression_services


def purchase_preview(character: Character, change: ChangeRequest) -> rules.base.PurchaseResult:
    """The rules' ``purchase()`` of a purchase change request on the CURRENT
    sheet and balances (per-session limits as progression counts them)."""
    return _purchase_module().preview_purchase(character, change.purchase or {})


def _sync_purchase_request(change: ChangeRequest, actor: Any, comment: str = "") -> None:
    """Mirror the decision on the linked progression purchase request, if any."""
    from progression.models import PurchaseRequest

    values: dict[str, Any] = {"status": change.status, "decided_at": change.decided_at}
    if change.status != ChangeRequest.Status.WITHDRAWN:
        values["decided_by"] = actor
    if comment.strip():
        values["comment"] = comment.strip()[:500]
    PurchaseRequest.objects.filter(change_request=change).update(**values)


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
    _require_visible(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs approve change requests."))
    if change.status != ChangeRequest.Status.PENDING:
        raise ValidationError({"__all__": [_("This change request was already decided.")]})
    with transaction.atomic():
        locked = _lock(character)
        session = None
        if change.purchase is not None:
            result = purchase_preview(locked, change)
            if result.errors:
                lang = get_language() or "fr"
                reasons = "; ".join(e.message.get(lang) for e in result.errors)
                raise ValidationError(
                    {"__all__": [_("This purchase can no longer be applied: %(reasons)s") % {"reasons": reasons}]}
                )
            new_sheet = copy.deepcopy(result.sheet)
            drafts = list(result.entries)
            session = _purchase_module().current_session(locked.campaign)
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
        _record_version(locked, actor, _("change request #%(id)s approved") % {"id": change.pk})
        link = {"change_request": change.pk}
        purchase_request = _purchase_request_id(change)
        if purchase_request is not None:
            link["purchase_request"] = purchase_request
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
        if change.purchase is not None:
            _sync_purchase_request(change, actor, comment)
        _publish_sheet(locked)
        loop.change_decided(actor, change)
    return locked


def _purchase_request_id(change: ChangeRequest) -> int | None:
    if change.purchase is None:
        return None
    from progression.models import PurchaseRequest

    return PurchaseRequest.objects.filter(change_request=change).values_list("pk", flat=True).first()


def reject_change(actor: Any, change: ChangeRequest, *, comment: str) -> ChangeRequest:
    character = change.character
    _require_visible(actor, character)
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
        if change.purchase is not None:
            _sync_purchase_request(change, actor, comment)
        publish(f"character:{character.pk}", "change-request", {"character": character.pk, "change": change.pk})
        loop.change_decided(actor, change)
    return change


def withdraw_change(actor: Any, change: ChangeRequest) -> ChangeRequest:
    _require_visible(actor, change.character)
    if change.author_id != getattr(actor, "pk", None):
        raise PermissionDenied(_("Only its author withdraws a change request."))
    if change.status != ChangeRequest.Status.PENDING:
        raise ValidationError({"__all__": [_("This change request was already decided.")]})
    with transaction.atomic():
        change.status = ChangeRequest.Status.WITHDRAWN
        change.decided_at = timezone.now()
        change.save()
        if change.purchase is not None:
            _sync_purchase_request(change, actor)
    return change


def comment_change(actor: Any, change: ChangeRequest, *, body: str) -> ChangeComment:
    _require_visible(actor, change.character)
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


# ---------------------------------------------------------------------------
# Portrait
# ---------------------------------------------------------------------------
def set_portrait(actor: Any, character: Character, *, upload: Any) -> Character:
    """Store a portrait re-encoded by Pillow (max ``TABLEE_MAX_PORTRAIT_BYTES``, 512 px)."""
    from PIL import Image, UnidentifiedImageError

    _require_visible(actor, character)
    if not (access.is_owner(actor, character) or is_gm(actor, character.campaign)):
        raise PermissionDenied(_("Only the owner and the GMs change the portrait."))
    limit = django_settings.TABLEE_MAX_PORTRAIT_BYTES
    if upload is None:
        raise ValidationError({"portrait": [_("Choose an image file.")]})
    if upload.size > limit:
        raise ValidationError(
            {"portrait": [_("This image is too large (at most %(size)s KB).") % {"size": limit // 1024}]}
        )
    try:
        data = upload.read(limit + 1)
        max_pixels = django_settings.TABLEE_MAX_IMAGE_PIXELS
        Image.MAX_IMAGE_PIXELS = max_pixels  # Pillow's own bomb check (an error beyond twice this)
        with Image.open(io.BytesIO(data)) as probe:
            # The header gives the size: refuse before a single pixel is decoded.
            if probe.width * probe.height > max_pixels:
                raise ValidationError({"portrait": [_("This image has too many pixels.")]})
            probe.verify()
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > max_pixels:
                raise ValidationError({"portrait": [_("This image has too many pixels.")]})
            image.draft("RGB", (1024, 1024))  # JPEG: decode at a reduced scale
            image = image.convert("RGB")
            image.thumbnail((512, 512))
            out = io.BytesIO()
            image.save(out, format="JPEG", quality=85)
    except ValidationError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ValidationError(
            {"portrait": [_("This file is not an image we can read (use JPEG, PNG, GIF or WebP).")]}
        ) from exc
    with transaction.atomic():
        locked = _lock(character)
        old = locked.portrait.name if locked.portrait else ""
        locked.portrait.save("portrait.jpg", ContentFile(out.getvalue()), save=False)  # random name
        locked.save(update_fields=["portrait", "updated"])
        if old:
            transaction.on_commit(lambda: locked.portrait.storage.delete(old))
    return locked


# ---------------------------------------------------------------------------
# Export / import
# ---------------------------------------------------------------------------
def export_character(actor: Any, character: Character) -> dict[str, Any]:
    _require_visible(actor, character)
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "system": character.system,
        "schema_version": character.schema_version,
        "name": character.name,
        "is_npc": character.is_npc,
        "public_description": character.public_description,
        "private_background": character.private_background,
        "sheet": character.sheet,
    }


def import_character(actor: Any, campaign: Campaign, *, data: Any) -> Character:
    """A JSON export becomes a new draft in another campaign of the same system.

    The imported sheet goes through the same checks as an edit of that new
    draft: what the rules lock for the importer (GM-set values, auction
    results) keeps the default of a new sheet, and what only the server writes
    (a creation roll) is not taken from the file: the dice of this campaign's
    chain are rolled again here.
    """
    role = role_of(actor, campaign)
    if role is None:
        raise Http404
    if role not in (Role.GM, Role.COGM, Role.PLAYER):
        raise PermissionDenied(_("Only players and GMs create characters."))
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ValidationError({"file": [_("This is not a Tablée character export.")]})
    if data.get("system") != campaign.system:
        raise ValidationError({"file": [_("This character uses another rule system than this campaign.")]})
    system = campaign.rule_system
    sheet = data.get("sheet")
    if not isinstance(sheet, dict):
        raise ValidationError({"file": [_("The export holds no sheet.")]})
    _check_size(sheet)
    schema = data.get("schema_version")
    if not isinstance(schema, int) or isinstance(schema, bool):
        raise ValidationError({"file": [_("The export has no valid schema version.")]})
    try:
        sheet = system.migrate_sheet(dict(sheet), schema)
    except ValueError as exc:
        raise ValidationError({"file": [_("This export comes from a newer version of the rules.")]}) from exc
    is_npc = bool(data.get("is_npc")) and role in (Role.GM, Role.COGM)
    name = str(data.get("name") or "").strip()[:100] or _("Imported character")
    with transaction.atomic():
        character = create_character(actor, campaign, name=name, is_npc=is_npc)
        sheet = _keep_locked(actor, character, sheet)
        errors = type_errors(system.validate_sheet(sheet, system_settings(campaign)))
        if errors:
            raise SheetInvalid(errors)
        character.sheet = sheet
        character.schema_version = system.schema_version
        character.public_description = str(data.get("public_description") or "")[:10000]
        character.private_background = str(data.get("private_background") or "")[:20000]
        character.version += 1
        character.save()
        _record_version(character, actor, _("imported"))
    return character


# ---------------------------------------------------------------------------
# The Ambre attribute auction
# ---------------------------------------------------------------------------
def _auction_module() -> Any:
    from rules.ambre import auction

    return auction


def _publish_auction(auction: Auction) -> None:
    publish(f"auction:{auction.pk}", "auction-updated", {"auction": auction.pk, "seq": auction.state.get("seq", 0)})
    if auction.deadline is not None:
        _schedule_expiry(auction.pk, auction.deadline)


def _schedule_expiry(auction_id: int, deadline: Any) -> None:
    """After commit, ask a worker to apply the timeout at the deadline (a no-op if it moved)."""

    def send() -> None:
        from characters.tasks import expire_auction

        try:
            expire_auction.apply_async((auction_id,), eta=deadline)
        except Exception:  # the broker being down must not fail the bid; pages expire lazily
            pass

    transaction.on_commit(send)


def _rules_invalid(exc: RulesError) -> SheetInvalid:
    return SheetInvalid(exc.errors)


def open_auction(
    actor: Any,
    campaign: Campaign,
    *,
    characters: list[Character],
    mode: str = "open",
    timeout_seconds: int | None = None,
) -> Auction:
    """A GM opens the attribute auction for the starting characters (L5, L22)."""
    if role_of(actor, campaign) is None:
        raise Http404
    if not is_gm(actor, campaign):
        raise PermissionDenied(_("Only GMs open an auction."))
    if campaign.system != "ambre":
        raise ValidationError({"__all__": [_("The attribute auction belongs to Ambre campaigns.")]})
    if Auction.objects.filter(campaign=campaign).exclude(status=Auction.Status.CLOSED).exists():
        raise ValidationError({"__all__": [_("An auction is already running in this campaign.")]})
    chosen = [c for c in characters if c.campaign_id == campaign.pk and not c.is_npc]
    if len(chosen) < 1:
        raise ValidationError({"characters": [_("Choose at least one player character.")]})
    settings = system_settings(campaign)
    options: dict[str, Any] = {"mode": mode}
    if isinstance(settings.get("starting_budget"), int):
        options["budget"] = settings["starting_budget"]
    if isinstance(settings.get("debt_limit"), int):
        options["debt_limit"] = settings["debt_limit"]
    budgets = {str(c.pk): c.sheet.get("creation_points") for c in chosen}
    budgets = {k: v for k, v in budgets.items() if isinstance(v, int) and not isinstance(v, bool)}
    if budgets:
        options["budgets"] = budgets
    try:
        state = _auction_module().new_auction([str(c.pk) for c in chosen], options)
    except RulesError as exc:
        raise _rules_invalid(exc) from exc
    with transaction.atomic():
        auction = Auction.objects.create(
            campaign=campaign,
            state=state.to_dict(),
            created_by=actor,
            timeout_seconds=timeout_seconds or None,
            deadline=timezone.now() + timedelta(seconds=timeout_seconds) if timeout_seconds else None,
        )
        publish(f"campaign:{campaign.pk}", "auction-opened", {"auction": auction.pk})
        _publish_auction(auction)
    return auction


def _lock_auction(auction: Auction) -> Auction:
    return Auction.objects.select_for_update().select_related("campaign").get(pk=auction.pk)


def _apply_event(locked: Auction, event: dict[str, Any]) -> None:
    auction_rules = _auction_module()
    before_current = locked.state.get("current")
    try:
        state = auction_rules.apply(locked.state, event)
    except RulesError as exc:
        raise _rules_invalid(exc) from exc
    locked.state = state.to_dict()
    if locked.timeout_seconds and (event.get("type") == "bid" or state.current != before_current):
        locked.deadline = timezone.now() + timedelta(seconds=locked.timeout_seconds)
    if state.status == "closed":
        locked.status = Auction.Status.CLOSED
        locked.deadline = None
    locked.save()
    _sync_auction_results(locked)
    _publish_auction(locked)


def auction_act(actor: Any, auction: Auction, *, character: Character, event: dict[str, Any]) -> Auction:
    """A player bids, passes, downgrades (or cancels it) or buys up for one of their characters."""
    if not access.can_see_public(actor, character) or role_of(actor, auction.campaign) is None:
        raise Http404
    if not access.is_owner(actor, character) or str(character.pk) not in auction.state.get("players", []):
        raise PermissionDenied(_("You take part in this auction only for your own characters."))
    kind = event.get("type")
    if kind not in ("bid", "pass", "downgrade", "cancel_downgrade", "buy_up"):
        raise ValidationError({"type": [_("Unknown action.")]})
    clean = {k: v for k, v in event.items() if k in ("type", "attribute", "amount", "rank")}
    clean["player"] = str(character.pk)
    with transaction.atomic():
        locked = _lock_auction(auction)
        _expire(locked)
        if locked.status == Auction.Status.PAUSED:
            raise ValidationError({"__all__": [_("The auction is paused by the GM.")]})
        if locked.status == Auction.Status.CLOSED and kind != "buy_up":
            raise ValidationError({"__all__": [_("The auction is closed.")]})
        _apply_event(locked, clean)
    return locked


def auction_gm(actor: Any, auction: Auction, *, action: str, **data: Any) -> Auction:
    """GM controls: ``pause``, ``resume``, ``timeout`` (seconds, 0 = none), ``close`` (current
    attribute), ``comparison`` (two characters of a closed attribute)."""
    if role_of(actor, auction.campaign) is None:
        raise Http404
    if not is_gm(actor, auction.campaign):
        raise PermissionDenied(_("Only GMs run the auction."))
    with transaction.atomic():
        locked = _lock_auction(auction)
        if action == "pause":
            if locked.status != Auction.Status.RUNNING:
                raise ValidationError({"__all__": [_("The auction is not running.")]})
            locked.status = Auction.Status.PAUSED
            locked.deadline = None
            locked.save()
            _publish_auction(locked)
        elif action == "resume":
            if locked.status != Auction.Status.PAUSED:
                raise ValidationError({"__all__": [_("The auction is not paused.")]})
            locked.status = Auction.Status.RUNNING
            if locked.timeout_seconds:
                locked.deadline = timezone.now() + timedelta(seconds=locked.timeout_seconds)
            locked.save()
            _publish_auction(locked)
        elif action == "timeout":
            seconds = data.get("seconds")
            if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= 7 * 24 * 3600:
                raise ValidationError({"seconds": [_("Enter a number of seconds between 0 and 604800.")]})
            locked.timeout_seconds = seconds or None
            running = locked.status == Auction.Status.RUNNING
            locked.deadline = timezone.now() + timedelta(seconds=seconds) if seconds and running else None
            locked.save()
            _publish_auction(locked)
        elif action == "close":
            if locked.status == Auction.Status.CLOSED:
                raise ValidationError({"__all__": [_("The auction is closed.")]})
            event: dict[str, Any] = {"type": "close"}
            if data.get("attribute"):
                event["attribute"] = data["attribute"]
            _apply_event(locked, event)
        elif action == "comparison":
            _apply_event(
                locked,
                {"type": "comparison", "attribute": data.get("attribute"), "players": list(data.get("players") or [])},
            )
        else:
            raise ValidationError({"action": [_("Unknown action.")]})
    return locked


def _expire(locked: Auction) -> bool:
    """Close the current attribute when the GM's timeout has passed."""
    if locked.status != Auction.Status.RUNNING or locked.deadline is None or locked.deadline > timezone.now():
        return False
    if locked.state.get("status") == "closed":
        return False
    _apply_event(locked, {"type": "close", "reason": "timeout"})
    return True


def check_auction_timeout(auction: Auction) -> Auction:
    """Called when a page or fragment is fetched: applies an expired timeout."""
    if auction.status != Auction.Status.RUNNING or auction.deadline is None or auction.deadline > timezone.now():
        return auction
    with transaction.atomic():
        locked = _lock_auction(auction)
        _expire(locked)
    return locked


def _sync_auction_results(auction: Auction) -> None:
    """Closed attributes go to the sheets (points, ladder positions) and to the
    karma ledger. Re-run after every event: entries are appended only for the
    difference with what the ledger already holds for this auction."""
    auction_rules = _auction_module()
    state = auction.state
    res = auction_rules.results(state)
    closed = [a for a in state["attributes"] if state["lots"][a]["status"] == "closed"]
    if not closed:
        return
    for pid, info in res["players"].items():
        character = Character.objects.select_for_update().filter(pk=int(pid), campaign=auction.campaign).first()
        if character is None:
            continue
        sheet = copy.deepcopy(character.sheet)
        for attr in closed:
            sheet.setdefault("attributes", {})[attr] = info["points"][attr]
            # What the owner may know (L18): the public position and his points when last compared. The true
            # ladder stays in the auction (GMs): another's buy-up never changes this sheet or its history.
            known = info["known_ranks"][attr]
            sheet.setdefault("ladder", {})[attr] = {
                "public_position": known["public_position"],
                "public_points": (state.get("public_points", {}).get(attr) or {}).get(pid),
            }
        if sheet != character.sheet:
            character.sheet = sheet
            character.version += 1
            character.save()
            _record_version(character, None, _("auction results"))
            _publish_sheet(character)
        desired: dict[tuple[str, str], tuple[int, LedgerDraft]] = {}
        for draft in auction_rules.ledger(state, pid):
            attr = draft.data.get("attribute")
            if attr in closed:
                desired[(attr, draft.kind)] = (draft.amount, draft)
        existing: dict[tuple[str, str], int] = {}
        for entry in LedgerEntry.objects.filter(character=character, kind__in=["auction_bid", "rank_refund"]):
            if entry.data.get("auction") == auction.pk:
                key = (entry.data.get("attribute"), entry.kind)
                existing[key] = existing.get(key, 0) + entry.amount
        for key in set(desired) | set(existing):
            amount, draft = desired.get(key, (0, None))
            delta = amount - existing.get(key, 0)
            if not delta:
                continue
            attr, kind = key
            note = msg(draft.note) if draft else _("Auction correction")
            append_entry(
                character,
                "karma",
                delta,
                kind,
                note=note,
                data={"auction": auction.pk, "attribute": attr, **(draft.data if draft else {})},
                key=f"auction:{auction.pk}:{pid}:{attr}:{kind}:{state.get('seq', 0)}",
            )
    auction.results_applied = state.get("status") == "closed"
    auction.save(update_fields=["results_applied", "updated"])


def karma_balance(character: Character) -> dict[str, int]:
    return balances(character)
