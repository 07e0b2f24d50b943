"""Issue #19 in a real browser: the frozen budget card and the blank choice of a new power row (390 px)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from characters import ledger
from characters.models import SheetVersion
from characters.tests.conftest import make_character
from characters.tests.test_browser import _page, _verified
from conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_budget_card_and_new_power_row_at_390px(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    table = _verified(make_table("altaride", prefix="ib"))
    hero = make_character(table, table.player, name="Héros", sheet=None)
    sheet = copy.deepcopy(hero.sheet)
    sheet["talents"]["HAB"] = 12
    hero.sheet, hero.status = sheet, "approved"
    hero.save()
    SheetVersion.objects.create(
        character=hero,
        version=hero.version,
        name=hero.name,
        sheet=copy.deepcopy(sheet),
        schema_version=hero.schema_version,
        status="approved",
        reason="approved",
    )
    ledger.append_entry(hero, "xp", 194, "gm_award")
    for width in (390, 1200):
        # #23: once approved, the creation budget is the GM's (folded); the player reads the ledger balance.
        page = _page(browser, asgi_server, table.player.username, width)
        page.goto(f"{asgi_server.url}/characters/{hero.pk}/")
        assert page.locator("#budget-title").count() == 0 and "194" in page.inner_text("main")
        page.context.close()
        page = _page(browser, asgi_server, table.gm.username, width)
        page.goto(f"{asgi_server.url}/characters/{hero.pk}/")
        page.locator(".sheet-gm-budget > summary").click()
        card = page.locator("#budget-title").locator("xpath=..")
        assert "194" in card.inner_text() and "disponibles maintenant" in card.inner_text()
        card.screenshot(path=str(screenshot_dir / f"i19-budget-{width}.png"))
        page.context.close()
    ambre = _verified(make_table("ambre", prefix="ia"))
    draft = make_character(ambre, ambre.player, name="Julian", sheet=None)
    page = _page(browser, asgi_server, ambre.player.username, 390)
    page.goto(f"{asgi_server.url}/characters/{draft.pk}/wizard/powers/")
    page.get_by_role("button", name="Ajouter").first.click()
    select = page.locator("#f-powers-0-power")
    select.wait_for()
    assert select.input_value() == "" and select.locator("option:checked").inner_text() == "—"
    page.screenshot(path=str(screenshot_dir / "i19-new-power-390.png"), full_page=False)
    page.context.close()
