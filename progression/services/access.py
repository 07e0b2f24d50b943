"""Who may see and change what: the session, the character's ledger, the GM's writes."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from campaigns.access import can_view_campaign, is_gm
from campaigns.models import Campaign, PlaySession
from characters.models import Character


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
