"""Stored rolls read again after the fact: lowering a die, a difficulty set later, the GM's inputs.

The stored roll never changes: each re-reading is a new roll of the chain in the same post.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _

import rules
from campaigns import access, dice
from campaigns.models import (
    Campaign,
    Roll,
)
from campaigns.reads import can_add_gm_inputs, can_set_difficulty
from campaigns.services.common import _rules_errors
from campaigns.services.posts import publish_post_edited
from campaigns.voices import voices
from rules.base import RulesError, ScriptedRandom


def set_roll_difficulty(user: Any, roll: Roll, *, difficulty: Any) -> Roll:
    """The GM sets the difficulty of a stored test after the roll (Clefs de l'Aube L903-L911).

    The stored draws are re-evaluated by ``rules`` (``RuleSystem.reevaluate``) without re-rolling;
    the original roll never changes: the re-evaluation is a new roll of the chain, in the same
    post, pointing at the one it re-reads. Setting the difficulty reveals it (``nd_hidden`` off).
    It belongs to no session, so a session's awards never count its dice twice.
    """
    if not access.can_see_roll(user, roll):
        raise Http404
    if not can_set_difficulty(user, roll, is_gm=access.is_gm(user, roll.campaign)):
        raise PermissionDenied(_("Only the GM and co-GMs can set the difficulty of this roll."))
    try:
        difficulty = int(difficulty)
    except (TypeError, ValueError):
        raise ValidationError({"difficulty": [_("The difficulty is a whole number.")]}) from None
    system = rules.get_system(roll.system)
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=roll.campaign_id).values_list("pk", flat=True).first()
        later = Roll.objects.filter(campaign=roll.campaign_id, request__reevaluate__sequence=roll.sequence).first()
        if later is not None:
            raise ValidationError(
                {"difficulty": [_("This roll was already re-read: use roll #%(n)d instead.") % {"n": later.sequence}]}
            )
        try:
            resolution = system.reevaluate(roll.resolution, difficulty, nd_hidden=False)
        except RulesError as exc:
            raise ValidationError({"difficulty": _rules_errors(exc)}) from None
        resolution["reevaluates"] = {"sequence": roll.sequence, "difficulty": difficulty}
        resolution.pop("odds", None)
        reread = dice.record_roll(
            roll.campaign,
            roller=user,
            kind="system",
            system=roll.system,
            request={"reevaluate": {"sequence": roll.sequence, "difficulty": difficulty}},
            resolution=resolution,
            derived_from=roll.sequence,
            label=roll.label,
            secret=roll.secret,
            post=roll.post,
            character=roll.character,
        )
        post = roll.post
        publish_post_edited(post)
    return reread


def add_gm_inputs(user: Any, roll: Roll, *, declared: dict[str, Any]) -> Roll:
    """The GM adds GM-only inputs (a difficulty, a modifier, the opposition) to a sheet roll, after it.

    The test is built again by the rules from the sheet version the roll read (not the current
    sheet), with the player's declared inputs plus the GM's, and resolved with the same stored
    draws (``ScriptedRandom``): nothing is re-rolled. The original roll never changes: the result is
    a new roll of the chain in the same post, pointing at it (``request.gm_inputs.sequence``). Inputs
    that would need other dice are refused. It belongs to no session (its dice are counted once).
    """
    if not access.can_see_roll(user, roll):
        raise Http404
    if not can_add_gm_inputs(user, roll, is_gm=access.is_gm(user, roll.campaign)):
        raise PermissionDenied(_("Only the GM and co-GMs can add their inputs to this roll."))
    if not isinstance(declared, dict) or not declared:
        raise ValidationError({"gm_inputs": [_("Give at least one of the GM's inputs.")]})
    source = dict(roll.request["from_sheet"])
    system = rules.get_system(roll.system)
    settings_ = system.settings(roll.campaign.system_settings)
    found = voices().sheet_at(source.get("character"), source.get("version"))
    if found is None:
        raise ValidationError({"gm_inputs": [_("The sheet version this roll read is missing.")]})
    stored, schema_version = found
    sheet = system.migrate_sheet(dict(stored), schema_version)
    merged = {**(source.get("declared") or {}), **declared}
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=roll.campaign_id).values_list("pk", flat=True).first()
        later = Roll.objects.filter(campaign=roll.campaign_id, request__gm_inputs__sequence=roll.sequence).first()
        if later is not None:
            raise ValidationError(
                {"gm_inputs": [_("This roll was already re-read: use roll #%(n)d instead.") % {"n": later.sequence}]}
            )
        replay = ScriptedRandom(roll.resolution["draws"])
        try:
            built = system.build_test(sheet, str(source.get("test") or ""), merged, settings_, None, gm=True)
            resolution = system.resolve(built.request, replay, settings_)
            if replay.remaining:
                raise ValueError("fewer dice")
        except RulesError as exc:
            raise ValidationError({"gm_inputs": _rules_errors(exc)}) from None
        except ValueError:  # the inputs ask for other dice than the ones rolled
            raise ValidationError({"gm_inputs": [_("These inputs would need other dice: roll a new test.")]}) from None
        data = resolution.to_dict()
        summary = resolution.summary
        data["summary"] = {
            "fr": f"Avec les données du MJ (jet n° {roll.sequence}) : {summary.fr}",
            "en": f"With the GM's inputs (roll #{roll.sequence}): {summary.en}",
        }
        source["declared"] = built.declared
        source["reads"] = [r.to_dict() for r in built.reads]
        reread = dice.record_roll(
            roll.campaign,
            roller=user,
            kind="system",
            system=roll.system,
            request={**built.request, "from_sheet": source, "gm_inputs": {"sequence": roll.sequence, **declared}},
            resolution=data,
            derived_from=roll.sequence,
            label=roll.label,
            secret=roll.secret,
            post=roll.post,
            character=roll.character,
        )
        post = roll.post
        publish_post_edited(post)
    return reread
