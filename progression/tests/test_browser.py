"""In a real browser: the GM confirms awards, sees the progress, the recap; the player his balance."""

from __future__ import annotations

from typing import Any

import pytest

from characters import ledger
from conftest import make_table
from progression.tests.conftest import make_character, make_roll, make_session

pytestmark = pytest.mark.browser


def _login(page: Any, base: str, user: Any) -> None:
    from allauth.account.models import EmailAddress

    EmailAddress.objects.get_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})
    username = user.username
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", "pw-" + username + "-12345")
    page.click("main form button[type=submit]")
    page.wait_for_load_state("load")


def test_it_confirms_awards_and_shows_the_recap(
    asgi_server: Any, browser: Any, screenshot_dir: Any, monkeypatch: Any
) -> None:
    from django.db import connections

    # Server threads close their connections after each request (no lingering test-database sessions).
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    table = make_table("altaride", prefix="b")
    hero = make_character(table, table.player, "Ysolde")
    make_character(table, table.player2, "Garance")
    session = make_session(table)
    make_roll(table, hero, session, ["natural_1"])
    ledger.append_entry(hero, "xp", 30, "creation_budget")
    base = asgi_server.url
    for width, name in ((1280, "desktop"), (390, "phone")):
        context = browser.new_context(locale="fr-FR", viewport={"width": width, "height": 900})
        page = context.new_page()
        _login(page, base, table.gm)
        page.goto(f"{base}/progression/sessions/{session.pk}/awards/")
        page.wait_for_selector("#award-form")
        assert "1 naturels obtenus pendant cette séance : 1" in page.inner_text("main")
        page.screenshot(path=str(screenshot_dir / f"progression-awards-{name}.png"), full_page=True)
        if name == "desktop":
            page.fill(f"#fact-{hero.pk}-gm_award", "25")
            page.click("button[value=confirm]")
            page.wait_for_selector("#run-progress [data-status=done]", timeout=15000)
            assert "Rouvrir pour corriger" in page.inner_text("main")
            page.screenshot(path=str(screenshot_dir / "progression-awards-done-desktop.png"), full_page=True)
        page.goto(f"{base}/progression/sessions/{session.pk}/recap/")
        assert "Ysolde" in page.inner_text("main")
        page.screenshot(path=str(screenshot_dir / f"progression-recap-{name}.png"), full_page=True)
        context.close()
    assert ledger.balances(hero)["xp"] == 30 + 25 + 1

    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 900})
    page = context.new_page()
    _login(page, base, table.player)
    page.goto(f"{base}/progression/characters/{hero.pk}/")
    assert page.locator("[data-currency=xp]").inner_text() == "56"
    page.screenshot(path=str(screenshot_dir / "progression-character-phone.png"), full_page=True)
    context.close()
