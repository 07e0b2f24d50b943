"""The creation roll's write (one function, as in :mod:`characters.services`)."""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from campaigns.access import is_gm
from campaigns.dice import fair_source, record_roll
from characters import access
from characters.models import Character
from characters.services import (
    SheetInvalid,
    check_version,
    lock_character,
    publish_sheet,
    record_version,
    require_full_sheet,
)
from rules.base import FieldError, RandomSource, RulesError
from rules.clefs import SYSTEM, creation_roll

#: The sheet version's reason (shown in the reader's language by the history: ``PLUGIN.version_reasons``).
CREATION_ROLL_REASON = gettext_noop("creation dice rolled: %(draws)s")


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
    require_full_sheet(actor, character)
    if character.system != SYSTEM.slug:
        raise Http404
    if not access.can_edit_directly(actor, character):
        raise PermissionDenied(_("Only a draft sheet can be rolled."))
    sheet = copy.deepcopy(character.current_sheet())
    creation = sheet.setdefault("creation", {})
    if character.creation_roll_id is not None and not is_gm(actor, character.campaign):
        raise PermissionDenied(_("The creation dice were already rolled; only the GM may roll again."))
    request = {"aspect_method": aspect_method, "means_method": means_method}
    with transaction.atomic():
        locked = lock_character(character)
        check_version(locked, expected_version)
        if locked.creation_roll_id is not None and not is_gm(actor, locked.campaign):
            raise PermissionDenied(_("The creation dice were already rolled; only the GM may roll again."))
        try:
            # The campaign's fair source (campaigns.dice): the draws get the chain's fairness proof.
            record = creation_roll(rng or fair_source(locked.campaign, request), aspect_method, means_method)
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
        draws = ", ".join(str(d) for d in record["draws"])
        record_version(locked, actor, _(CREATION_ROLL_REASON) % {"draws": draws})
        publish_sheet(locked)
    return locked
