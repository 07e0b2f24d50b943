"""The frozen creation budget of an approved sheet is computed once per version (services.shown_budget)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from characters.models import Character, SheetVersion
from characters.services import evaluation
from conftest import make_table

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("slug", ["ambre", "clefs-de-l-aube", "sms", "altaride"])
def test_the_kept_budget_is_the_approved_sheet_s_and_a_change_to_it_stays_with_the_caller(slug: str) -> None:
    table = make_table(slug, prefix=f"kb{slug[:3]}")
    system = table.campaign.rule_system
    sheet = system.default_sheet()
    hero = Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Iris", system=slug, status="approved", sheet=sheet
    )
    SheetVersion.objects.create(
        character=hero, version=1, name=hero.name, sheet=copy.deepcopy(sheet), status="approved"
    )
    evaluation._APPROVED_BUDGETS.clear()
    result = evaluation.evaluate_character(hero)
    expected = evaluation.evaluate_character(hero, system.migrate_sheet(copy.deepcopy(sheet), 1)).budget
    first, frozen = evaluation.shown_budget(hero, result)
    assert frozen and first == expected
    if first is not None:
        first.lines.clear()
        first.spent += 1000
    with CaptureQueriesContext(connection) as queries:
        again, _ = evaluation.shown_budget(hero, result)
    assert again == expected  # what a caller did with its copy is its own
    # A kept budget reads the version's identity only, not its sheet (a JSON document).
    assert len(queries) == 1 and '."sheet"' not in queries[0]["sql"], queries.captured_queries
    # Today's sheet may change (a raise paid with experience): the frozen budget is still the approved one.
    hero.sheet = {**hero.sheet, "name": "Iris la Grande"}
    hero.save()
    assert evaluation.shown_budget(hero, evaluation.evaluate_character(hero))[0] == expected
    # Another campaign setting is another key: computed afresh, not taken from the first.
    table.campaign.system_settings = {**(table.campaign.system_settings or {}), "tablee_test_marker": 1}
    table.campaign.save()
    hero.campaign.refresh_from_db()
    kept = len(evaluation._APPROVED_BUDGETS)
    evaluation.shown_budget(hero, result)
    assert len(evaluation._APPROVED_BUDGETS) == kept + 1


def test_a_character_not_approved_shows_today_s_budget(db: Any) -> None:
    table = make_table("altaride", prefix="kbd")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.player,
        name="Iris",
        system="altaride",
        status="draft",
        sheet=table.campaign.rule_system.default_sheet(),
    )
    result = evaluation.evaluate_character(hero)
    assert evaluation.shown_budget(hero, result) == (result.budget, False)
