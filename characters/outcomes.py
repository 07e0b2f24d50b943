"""What play does to a character: results carried to the sheet (a recorded version), death and its reversal.

The combat app calls :func:`carry_result` when a step leaves lasting marks
(wounds, pools, fatigue, handicaps, conditions): the sheet gets a new
version whose reason names the fight and the log entry, visible in the
sheet history. A character the fight kills is marked dead
(``Character.Status.DEAD``); only a GM brings it back, with a reason
(:func:`revive_character`).
"""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.access import is_gm
from characters.models import Character
from characters.services import lock_character, publish_sheet, record_version, require_full_sheet

#: Statuses a fight may change into dead (a draft is not in play).
IN_PLAY = (Character.Status.APPROVED, Character.Status.SUBMITTED)


def carry_result(
    actor: Any, character: Character, *, sheet: dict[str, Any], dead: bool | None, reason: str
) -> Character | None:
    """Store ``sheet`` (and death, or its undoing) as a new version; ``None`` when nothing changes.

    Called by the combat service inside its transaction, after its own
    permission check (the GM resolves the step).
    """
    with transaction.atomic():
        locked = lock_character(character)
        status = locked.status
        if dead is True and status in IN_PLAY:
            status = Character.Status.DEAD
        elif dead is False and status == Character.Status.DEAD:
            status = Character.Status.APPROVED  # an undone death
        if sheet == locked.sheet and status == locked.status:
            return None
        locked.sheet = copy.deepcopy(sheet)
        locked.status = status
        locked.version += 1
        locked.save()
        record_version(locked, actor, reason)
        publish_sheet(locked, "sheet-status" if status != character.status else "sheet-changed")
    return locked


def revive_character(actor: Any, character: Character, *, reason: str) -> Character:
    """A GM reverses a death (a mistake, a miracle): the reason is recorded in the sheet history."""
    require_full_sheet(actor, character)
    if not is_gm(actor, character.campaign):
        raise PermissionDenied(_("Only GMs change a character's status."))
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": [_("Give a reason: it is recorded in the history.")]})
    if len(reason) > 250:
        raise ValidationError({"reason": [_("At most 250 characters.")]})
    if character.status != Character.Status.DEAD:
        raise ValidationError({"status": [_("This status change is not possible.")]})
    with transaction.atomic():
        locked = lock_character(character)
        locked.status = Character.Status.APPROVED
        locked.version += 1
        locked.save()
        record_version(locked, actor, _("brought back: %(reason)s") % {"reason": reason})
        publish_sheet(locked, "sheet-status")
    return locked
