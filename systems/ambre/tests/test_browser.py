"""Real browsers: the live auction (GM + two players)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from characters.tests.conftest import make_character, valid_ambre_sheet
from conftest import login, make_table
from systems.ambre import services

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


def test_it_shows_a_bid_live_to_the_gm_and_the_other_player(
    asgi_server: Any, browser: Any, screenshot_dir: Any
) -> None:
    table = _verified(make_table("ambre", prefix="b"))
    corwin = make_character(table, table.player, name="Corwin", sheet=valid_ambre_sheet("Corwin"))
    eric = make_character(table, table.player2, name="Eric", sheet=valid_ambre_sheet("Eric"))
    auction = services.open_auction(table.gm, table.campaign, characters=[corwin, eric])
    url = f"{asgi_server.url}/characters/auctions/{auction.pk}/"
    gm = _page(browser, asgi_server, table.gm.username)
    p1 = _page(browser, asgi_server, table.player.username, width=390)
    p2 = _page(browser, asgi_server, table.player2.username)
    for page in (gm, p1, p2):
        page.goto(url)
        page.wait_for_selector("[data-live-indicator][data-state=open]", timeout=10000)
    p1.fill("#bid-amount", "12")
    p1.click("button[name=type][value=bid]")
    for page in (gm, p2, p1):
        # Locator waits, not wait_for_function: the Content-Security-Policy forbids its eval.
        expect(page.locator("tr[data-attr=psy] .high-bid")).to_contain_text("12", timeout=10000)
        assert "Corwin" in page.inner_text("tr[data-attr=psy] .high-bid")
    # The other player outbids, and the first one sees it without reloading.
    p2.fill("#bid-amount", "20")
    p2.click("button[name=type][value=bid]")
    expect(p1.locator("tr[data-attr=psy] .high-bid")).to_contain_text("20", timeout=10000)
    assert "Eric" in p1.inner_text("tr[data-attr=psy] .high-bid")
    # A too-low bid answers with the engine's message in French.
    p1.fill("#bid-amount", "5")
    p1.click("button[name=type][value=bid]")
    p1.wait_for_selector("text=L'enchère doit dépasser 20.", timeout=10000)
    gm.screenshot(path=str(screenshot_dir / "characters-auction-gm.png"), full_page=True)
    p1.screenshot(path=str(screenshot_dir / "characters-auction-player-phone.png"), full_page=True)
    # The GM pauses: the players' pages show it live.
    gm.click("button[name=action][value=pause]")
    p2.wait_for_selector(".auction-me .message-warning", timeout=10000)
    for page in (gm, p1, p2):
        page.context.close()
