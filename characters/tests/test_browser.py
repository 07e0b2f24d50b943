"""Real browsers: the wizard's live validation (the live auction: systems/ambre/tests/test_browser.py)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from characters.tests.conftest import make_character
from conftest import login, make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _verified(table: Any) -> Any:
    """Logging in requires a verified address."""
    from allauth.account.models import EmailAddress

    for user in table.users().values():
        EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})
    return table


def _page(browser: Any, server: Any, username: str, width: int = 1200) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="fr-FR")
    page = context.new_page()
    login(page, server.url, username, "pw-" + username + "-12345")
    return page


def test_it_updates_budget_and_errors_while_the_player_types(
    asgi_server: Any, browser: Any, screenshot_dir: Any
) -> None:
    table = _verified(make_table("altaride", prefix="w"))
    character = make_character(table, table.player, name="Mythe")
    page = _page(browser, asgi_server, table.player.username)
    page.goto(f"{asgi_server.url}/characters/{character.pk}/wizard/talents/")
    page.fill("#f-talents-HAB", "12")
    expect(page.locator("#sheet-status")).to_contain_text("/ 4000", timeout=10000)
    spent = character.rule_system.creation_budget(
        {**character.sheet, "talents": {**character.sheet["talents"], "HAB": 12}}
    ).pools["talents"]["spent"]
    page.wait_for_selector(f"#sheet-status >> text={spent}", timeout=10000)
    page.fill("#f-talents-PER", "30")
    page.wait_for_selector("#e-f-talents-PER li", timeout=10000)
    assert "entre 5 et 15" in page.inner_text("#e-f-talents-PER")
    page.screenshot(path=str(screenshot_dir / "characters-wizard-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshot_dir / "characters-wizard-phone.png"), full_page=False)
    page.goto(f"{asgi_server.url}/characters/{character.pk}/")
    page.screenshot(path=str(screenshot_dir / "characters-sheet-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1200, "height": 900})
    page.screenshot(path=str(screenshot_dir / "characters-sheet-desktop.png"), full_page=True)
    page.context.close()
