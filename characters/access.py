"""Who may see and change a character (see shared DESIGN.md).

* Full sheet (stored fields, derived values, private background, ledger,
  history, a plug-in's private parts such as Ambre's secret ranks): the owner,
  the GM and co-GMs (one read model: :mod:`characters.read`).
* Public part (name, portrait, public description, a plug-in's public parts):
  campaign members (and everyone for a public campaign, like its forum).
  NPCs are the GMs' business: only GMs see them here.
* Changes: the owner edits a draft or returned sheet freely and an approved
  one through change requests; GMs edit directly (recorded).

Whatever a user may not see answers 404 (never 403).
"""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Subquery
from django.http import Http404

from campaigns.access import can_view_campaign, is_gm, is_member
from campaigns.models import Membership
from characters import plugins
from characters.models import ChangeRequest, Character
from config.prepared import PreparedQuery
from rules.base import SheetContext, is_digits


def can_see_public(user: Any, character: Character) -> bool:
    """The public part: members of the campaign (everyone if it is public)."""
    campaign = character.campaign
    if character.is_npc:
        return is_gm(user, campaign)
    return is_member(user, campaign) or can_view_campaign(user, campaign)


def is_owner(user: Any, character: Character) -> bool:
    return bool(user is not None and user.is_authenticated and character.owner_id == user.pk and not character.is_npc)


def can_see_full_sheet(user: Any, character: Character) -> bool:
    """Owner, GM and co-GM (NPC sheets: GMs only)."""
    if user is None or not user.is_authenticated:
        return False
    return is_gm(user, character.campaign) or is_owner(user, character)


def can_edit_directly(user: Any, character: Character) -> bool:
    """GMs always; the owner while the sheet is a draft (or returned to draft)."""
    if is_gm(user, character.campaign):
        return True
    return is_owner(user, character) and character.status == Character.Status.DRAFT


def can_request_change(user: Any, character: Character) -> bool:
    """The owner of an approved sheet proposes changes for the GM to review."""
    return is_owner(user, character) and character.status == Character.Status.APPROVED


def _reader_character(character_id: int, user_id: int) -> Any:
    """A character with its campaign, its owner's profile and the reader's role in the campaign."""
    role = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user_id).values("role")[:1]
    return (
        Character.objects.select_related("campaign", "owner__profile")
        .filter(pk=character_id)
        .annotate(reader_role=Subquery(role))
    )


_READER_CHARACTER = PreparedQuery(
    _reader_character, {"character_id": (930_000_001, 940_000_002), "user_id": (950_000_003, 960_000_004)}
)


def get_character_for_user(user: Any, character_id: int | str, write: bool = False) -> Character:
    """The character if ``user`` may see it (``write``: see its full sheet), else 404.

    ``write=True`` is for every page and action on the full sheet (history,
    edits, change requests, export); whether the particular write is allowed
    (draft vs approved, GM vs owner) is the service's job.
    """
    if not is_digits(str(character_id)):
        raise Http404
    authenticated = user is not None and user.is_authenticated
    if authenticated:
        # The reader's role in the campaign with the character (one query compiled once, kept for ``role_of``).
        character = _READER_CHARACTER.first(character_id=int(character_id), user_id=int(user.pk))
    else:
        character = Character.objects.select_related("campaign", "owner__profile").filter(pk=character_id).first()
    if character is None:
        raise Http404
    if authenticated:
        character.campaign.__dict__.setdefault("_role_cache", {})[user.pk] = character.reader_role
    if write:
        if not can_see_full_sheet(user, character):
            raise Http404
    elif not can_see_public(user, character):
        raise Http404
    return character


def get_change_request_for_user(user: Any, request_id: int | str) -> ChangeRequest:
    """A change request is seen by whoever sees the full sheet."""
    if not is_digits(str(request_id)):
        raise Http404
    change = ChangeRequest.objects.select_related("character__campaign", "author").filter(pk=request_id).first()
    if change is None or not can_see_full_sheet(user, change.character):
        raise Http404
    return change


def sheet_context(user: Any, character: Character) -> SheetContext:
    """What the rules need to know to decide what ``user`` may write on this sheet."""
    gm = is_gm(user, character.campaign)
    return SheetContext(gm=gm, rolls=character.server_rolls(), **plugins.sheet_context(character))


def locked_paths(user: Any, character: Character) -> list[str]:
    """Schema paths ``user`` may not edit, as the rules declare them
    (:meth:`rules.base.RuleSystem.locked_paths`): GM-set values, auction results,
    what the server alone writes.

    Enforced by :mod:`characters.services` on every write (HTML, API, import) with
    :func:`characters.sheetform.keep_locked`.
    """
    system = character.rule_system
    return list(system.locked_paths(character.current_sheet(), sheet_context(user, character)))
