"""In a real browser at 390 px: roll from a sheet line, land on the thread's post form prefilled, see the odds."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.tests.test_browser import _logged_in_context
from campaigns.tests.test_play_from_sheet import _scene

pytestmark = pytest.mark.browser


def test_a_player_rolls_from_a_sheet_line_on_a_phone(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    from campaigns.models import Roll

    table, thread, hero = _scene("clefs-de-l-aube")
    base = asgi_server.url
    page = _logged_in_context(browser, base, table.player, 390).new_page()
    page.goto(f"{base}/characters/{hero.pk}/")
    panel = page.locator("#what-you-can-roll")
    panel.scroll_into_view_if_needed()
    assert "Épée (Physique (Ph))" in panel.inner_text()
    page.screenshot(path=str(screenshot_dir / "play-sheet-panel-390.png"), full_page=False)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the sheet page scrolls sideways at 390 px ({width})"
    panel.locator("button[value='skill:0']").click()
    page.wait_for_url(f"**/campaigns/threads/{thread.pk}/**")
    assert page.locator("select[name=sheet_test]").input_value() == "skill:0"
    assert page.locator("select[name=sheet_character]").input_value() == str(hero.pk)
    page.select_option("select[name=declared__means_code]", "PU")
    # Physique 10 + Puissance 2 + Épée NC 5 (bonus -5): CA 7, 35 % (L703-L727).
    page.wait_for_selector("#sheet-preview:has-text('35 % de réussir')", timeout=5000)
    assert "Valeurs lues sur la feuille" in page.inner_text("#sheet-test")
    page.locator("#sheet-test").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "play-post-form-prefilled-390.png"))
    page.fill("textarea[name=body]", "En garde !")
    page.click("form.post-form button[type=submit]")
    page.wait_for_selector(".roll-sheet", timeout=5000)
    assert "Épée (NC) 5 (feuille v1) + Physique (Ph) 10 + Puissance (Pu) 2" in page.inner_text(".roll-sheet")
    assert Roll.objects.get().request["from_sheet"]["version"] == 1
    page.locator(".roll-sheet").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "play-roll-read-390.png"))
