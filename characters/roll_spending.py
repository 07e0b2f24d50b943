"""Spending experience on a stored roll: lowering the die of one's own test (Altaride L217, spec A13).

It writes the experience ledger, which the characters app owns, so it lives here, above the
campaigns app whose roll chain it extends (issue #16: "roll-changing services that write the
ledger move to the app that owns the ledger"). Whether a roll offers it at all is a question of
the roll and the rules only (:func:`campaigns.services.can_lower_die`, which the thread page asks).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import rules
from campaigns import access, dice
from campaigns.models import Roll
from campaigns.services import can_lower_die, publish_post_edited
from characters import ledger
from characters.models import Character
from rules.base import Msg, RulesError

__all__ = ["can_lower_die", "lower_roll_die"]


def lower_roll_die(user: Any, roll: Roll, *, points: Any) -> Roll:
    """Spend experience to lower the die of one's own stored test (Altaride L217, spec A13).

    The stored roll never changes: the lowering is a NEW roll of the chain, in the same post,
    carrying the re-evaluated outcome computed by ``rules`` (``RuleSystem.lower_die``) and a
    reference to the roll it lowers; the experience spent is a ledger entry written in the same
    transaction. Readings (A13): player characters only, by their roller; a lowering roll belongs
    to no session and counts no natural 1 (the dice were already counted once).
    """
    if not access.can_see_roll(user, roll):
        raise Http404
    if not can_lower_die(user, roll):
        raise PermissionDenied(_("You cannot spend experience on this roll."))
    character = Character.objects.filter(pk=roll.character_id, owner=user, is_npc=False).first()
    if character is None:
        raise PermissionDenied(_("You cannot spend experience on this roll."))
    try:
        points = int(points)
    except (TypeError, ValueError):
        raise ValidationError({"points": [_("Enter a whole number of points.")]}) from None
    lang = get_language() or "fr"
    system = rules.get_system(roll.system)
    settings_ = system.settings(roll.campaign.system_settings)
    with transaction.atomic():
        Character.objects.select_for_update().filter(pk=character.pk).values_list("pk", flat=True).first()
        later = Roll.objects.filter(campaign=roll.campaign_id, request__lower_die__sequence=roll.sequence).first()
        if later is not None:
            raise ValidationError(
                {"points": [_("This roll was already lowered: lower roll #%(n)d instead.") % {"n": later.sequence}]}
            )
        balance = ledger.balances(character).get("xp", 0)
        try:
            judged, draft = system.lower_die(roll.resolution, points, balance, settings=settings_)
        except RulesError as exc:
            raise ValidationError({"points": [e.message.get(lang) for e in exc.errors]}) from None
        outcome = judged["outcome"]
        for key in ("natural_ones", "defender_natural_ones"):
            if key in outcome:
                outcome[key] = 0
        note = draft.note.get(lang)
        succeeded = outcome.get("success")
        verdict = Msg("réussite", "success") if succeeded else Msg("échec", "failure")
        summary = Msg(
            f"{draft.note.fr} (jet n° {roll.sequence}) : dé {outcome.get('die', '?')}, {verdict.fr}",
            f"{draft.note.en} (roll #{roll.sequence}): die {outcome.get('die', '?')}, {verdict.en}",
        )
        resolution = {
            **judged,
            "outcome": outcome,
            "summary": summary.to_dict(),
            "tags": [],
            "lowers": {"sequence": roll.sequence, "points": points, "xp": -draft.amount},
        }
        resolution.pop("odds", None)
        lowered = dice.record_roll(
            roll.campaign,
            roller=user,
            kind="system",
            system=roll.system,
            request={"lower_die": {"sequence": roll.sequence, "points": points}},
            resolution=resolution,
            derived_from=roll.sequence,
            label=roll.label,
            secret=roll.secret,
            post=roll.post,
            character=character,
        )
        ledger.append_entry(
            character,
            draft.currency,
            draft.amount,
            draft.kind,
            created_by=user,
            note=note,
            data={**draft.data, "roll": lowered.sequence, "lowers": roll.sequence},
            key=f"lower-die:{roll.campaign_id}:{lowered.sequence}",
        )
        publish_post_edited(roll.post)
    return lowered
