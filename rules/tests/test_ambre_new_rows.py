"""Ambre: a new, not yet chosen power or ally row (issue #19 item 10)."""

from __future__ import annotations

import copy

from rules import get_system
from rules.ambre import costs
from rules.tests.test_ambre_characters import ariane

SYSTEM = get_system("ambre")


def _messages(errors, path):
    return [e.message.fr for e in errors if e.path == path]


def test_an_unchosen_power_is_only_required():
    sheet = copy.deepcopy(ariane())
    sheet["powers"].append({"power": None, "level": None})
    index = len(sheet["powers"]) - 1
    errors = SYSTEM.validate_sheet(sheet) + SYSTEM.creation_budget(sheet).errors
    assert _messages(errors, f"powers.{index}.power") == ["Ce champ est obligatoire."]
    assert costs.power_cost(None).errors == [] and costs.power_cost("nope").errors[0].code == "invalid_choice"


def test_an_unchosen_ally_is_only_required():
    sheet = copy.deepcopy(ariane())
    sheet.setdefault("allies", []).append({"type": None, "name": ""})
    index = len(sheet["allies"]) - 1
    errors = SYSTEM.validate_sheet(sheet) + SYSTEM.creation_budget(sheet).errors
    assert _messages(errors, f"allies.{index}.type") == ["Ce champ est obligatoire."]
    assert "None" not in " ".join(e.message.fr for e in errors)
