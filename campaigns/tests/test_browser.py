"""In two real browsers: each player sees the other's posts appear live (SSE)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from conftest import make_table

pytestmark = pytest.mark.browser


def _logged_in_context(browser: Any, base: str, user: Any, width: int) -> Any:
    """A browser context carrying a Django session of ``user`` (no login form needed)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(locale="fr-FR", viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])
    return context


def _post(page: Any, text: str) -> None:
    page.fill("textarea[name=body]", text)
    page.click("form.post-form button[type=submit]")


def test_two_players_see_each_others_posts_live(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    from campaigns import services

    table = make_table("altaride", prefix="live")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="La taverne", body="Vous entrez dans la taverne.")
    base = asgi_server.url
    url = f"{base}/campaigns/threads/{thread.pk}/"

    iris = _logged_in_context(browser, base, table.player, 390).new_page()
    hugo = _logged_in_context(browser, base, table.player2, 1280).new_page()
    for page in (iris, hugo):
        page.goto(url)
        page.wait_for_selector("[data-live-indicator][data-state=open]", timeout=15000)

    _post(iris, "Je commande une **bière** et j'observe la salle.")
    # Hugo's page was not reloaded: the post arrives through the event stream.
    hugo.wait_for_selector("#post-2 >> text=j'observe la salle", timeout=10000)
    assert hugo.locator("#post-2 strong", has_text="bière").count() == 1
    # Into the thread's own list, announced by its status region (#23).
    assert hugo.locator("#posts > #post-2").count() == 1
    assert "nouveau message" in hugo.inner_text("#posts-announcer")

    _post(hugo, "Je m'assieds près du feu, la main sur mon épée.")
    iris.wait_for_selector("#post-3 >> text=la main sur mon épée", timeout=10000)
    assert iris.locator("#post-3").count() == 1
    assert hugo.locator("#post-2").count() == 1  # not duplicated

    iris.screenshot(path=str(screenshot_dir / "campaigns-live-phone.png"), full_page=True)
    hugo.screenshot(path=str(screenshot_dir / "campaigns-live-desktop.png"), full_page=True)
    iris.context.close()
    hugo.context.close()


def test_the_spell_builder_shows_difficulty_and_cost_before_rolling(
    asgi_server: Any, browser: Any, screenshot_dir: Any
) -> None:
    from campaigns import services

    table = make_table("sms", prefix="spell")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="Le rituel", body="La lune se lève.")
    base = asgi_server.url
    # The spell builder typed in full is the GM's (a player casts a known spell from the sheet).
    page = _logged_in_context(browser, base, table.gm, 390).new_page()
    page.goto(f"{base}/campaigns/threads/{thread.pk}/")
    page.click("details.dice > summary")
    page.select_option("select[name=test_kind]", "spell_builder")
    page.wait_for_selector("select[name=test__nature]")
    page.select_option("select[name=test__nature]", "misc")
    page.fill("input[name=test__power]", "3")
    page.wait_for_selector("#roll-preview:has-text('difficulté D8')", timeout=5000)
    page.select_option("select[name=test__duration]", "2")
    page.wait_for_selector("#roll-preview:has-text('malus au score 2')", timeout=5000)
    text = page.inner_text("#roll-preview")
    assert "coût en énergie : 1 fatigue durable" in text
    page.locator("#roll-preview").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "campaigns-spell-builder-preview-390.png"))
