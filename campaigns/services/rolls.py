"""The rolls of a post: validated and rolled before anything is written, tests built from the sheet."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

import rules
from campaigns import access, dice
from campaigns.models import (
    Campaign,
)
from campaigns.play import sheet_test_characters
from campaigns.services.common import _lang, _rules_errors
from campaigns.voices import DEAD, voices
from rules.base import RulesError

MAX_ROLLS_PER_POST = 10


def _check_character(user: Any, campaign: Campaign, character: Any) -> Any:
    if character is None or character == "":
        return None
    character = voices().get(character)
    if character is None or character.campaign_id != campaign.pk:
        raise ValidationError({"character": [_("Choose one of your characters in this campaign.")]})
    own = character.owner_id == user.pk and not character.is_npc
    if not (own or access.is_gm(user, campaign)):
        raise ValidationError({"character": [_("Choose one of your characters in this campaign.")]})
    if character.status == DEAD:
        raise ValidationError({"character": [_("%(name)s is dead and cannot speak.") % {"name": character.name}]})
    return character


def build_sheet_test(
    user: Any, campaign: Campaign, character: Any, test: str, declared: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request of the sheet test ``test`` of ``character``, built by the rules, and its sheet record.

    Nothing here computes a number: the rules read the character's current sheet
    (``RuleSystem.build_test``). A player may declare only the player inputs of the
    test; a GM-only one (difficulty, GM modifier, opposition) from a player is refused
    by the rules, so a player's request never carries it. Raises ``RulesError``.
    ``character`` must be one of :func:`sheet_test_characters`.
    """
    system = rules.get_system(campaign.system)
    settings_ = system.settings(campaign.system_settings)
    sheet = character.current_sheet()
    built = system.build_test(sheet, test, declared or {}, settings_, None, gm=access.is_gm(user, campaign))
    source = {
        "character": character.pk,
        "name": character.name,
        "version": character.version,
        "test": built.key,
        "label": built.label.to_dict(),
        "reads": [r.to_dict() for r in built.reads],
        "declared": built.declared,
        # What the GM may still add after the roll (see add_gm_inputs).
        "gm_fields": [f.to_dict() for f in built.declarable if f.audience == "gm"],
    }
    return built.request, source


def _prepare_rolls(user: Any, campaign: Campaign, roll_requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Validate and roll every request before anything is written.

    A system test is built by the rules from the chosen character's sheet
    (``{"sheet_test": {"test": key, "declared": {...}}, "character_id": ...}``);
    a test typed in full (``system_test``) is the GM's only: a player's numbers are never rolled.
    """
    if len(roll_requests) > MAX_ROLLS_PER_POST:
        raise ValidationError({"rolls": [_("At most %(n)d rolls per post.") % {"n": MAX_ROLLS_PER_POST}]})
    prepared: list[dict[str, Any]] = []
    errors: list[str] = []
    is_gm = access.is_gm(user, campaign)
    for index, request in enumerate(roll_requests, start=1):
        if not isinstance(request, dict) or not (
            request.get("expression") or request.get("system_test") or request.get("sheet_test")
        ):
            errors.append(_("Roll %(n)d: give a dice expression or a test.") % {"n": index})
            continue
        character = None
        if request.get("character_id"):
            try:
                character = _check_character(user, campaign, request["character_id"])
            except ValidationError:
                errors.append(_("Roll %(n)d: choose one of your characters.") % {"n": index})
                continue
        source = None
        try:
            if request.get("sheet_test") is not None:
                sheet_test = request["sheet_test"]
                if not isinstance(sheet_test, dict) or not isinstance(sheet_test.get("declared") or {}, dict):
                    raise RulesError([])
                if character is None or not sheet_test_characters(user, campaign).filter(pk=character.pk).exists():
                    errors.append(
                        _("Roll %(n)d: choose one of your characters whose sheet is approved.") % {"n": index}
                    )
                    continue
                test, source = build_sheet_test(
                    user, campaign, character, str(sheet_test.get("test") or ""), sheet_test.get("declared") or {}
                )
                label = request.get("label") or source["label"].get(_lang(), "")
                request = {"system_test": test, "label": label, "secret": request.get("secret")}
            elif request.get("system_test") is not None:
                if not is_gm:
                    errors.append(
                        _(
                            "Roll %(n)d: a test is built from your character's sheet: choose the character and "
                            "what to roll (the numbers are never typed in)."
                        )
                        % {"n": index}
                    )
                    continue
                if not isinstance(request["system_test"], dict):
                    raise RulesError([])
                request = _with_character_sheet(campaign, request, character)
            rolled = dice.resolve_request(campaign, request)
            if isinstance(rolled.get("request"), dict):
                rolled["request"].pop("sheet", None)  # read from the character, not stored with the roll
        except RulesError as exc:
            messages = _rules_errors(exc) or [_("invalid test.")]
            errors.extend(_("Roll %(n)d: %(error)s") % {"n": index, "error": m} for m in messages)
            continue
        if source is not None:
            rolled["request"] = {**rolled["request"], "from_sheet": source}
        rolled["secret"] = bool(request.get("secret"))
        rolled["character"] = character
        rolled["source_request"] = request
        prepared.append(rolled)
    if errors:
        raise ValidationError({"rolls": errors})
    return prepared


def _with_character_sheet(campaign: Campaign, request: dict[str, Any], character: Any) -> dict[str, Any]:
    """A system test whose kind reads a ``sheet`` (an Altaride skill test) gets
    the chosen character's current sheet from the server; a posted one is
    never trusted."""
    test = request.get("system_test")
    if not isinstance(test, dict):
        return request
    test = {k: v for k, v in test.items() if k != "sheet"}
    fields = rules.get_system(campaign.system).test_kinds().get(str(test.get("kind", "")), ())
    if character is not None and any(f.path == "sheet" for f in fields):
        test["sheet"] = character.current_sheet()
    return {**request, "system_test": test}
