"""Issue 18: what inline handlers used to do still works from static/js/tablee.js under the CSP
(quote into the reply form, confirm before removing a member), with no CSP violation."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from conftest import make_table
from tests.browser.test_csp_crawl import LISTEN
from tests.browser.test_xss_payloads import _logged_in

pytestmark = pytest.mark.browser


def test_quote_and_confirm_work_without_inline_handlers(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    from campaigns import services

    t = make_table("ambre", prefix="m")
    board = t.campaign.boards.first()
    thread = services.create_thread(t.player, board, title="Scène", body="Une phrase à citer.")
    context = _logged_in(browser, asgi_server.url, t.gm, "fr-FR")
    context.add_init_script(LISTEN)
    page = context.new_page()
    page.goto(f"{asgi_server.url}/campaigns/threads/{thread.pk}/")
    page.click("a[data-scroll-after=reply]")
    expect(page.locator("#reply-form textarea[name=body]")).to_have_value(re.compile("Une phrase"))
    assert page.evaluate("document.getElementById('reply').getBoundingClientRect().top") < 900
    page.goto(f"{asgi_server.url}/campaigns/{t.campaign.slug}/members/")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.locator("form[data-confirm][action*='/remove/'] button[type=submit]").first.click()
    page.wait_for_timeout(300)
    assert Membership.objects.filter(campaign=t.campaign).count() == 5  # dismissed: nobody removed
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("form[data-confirm][action*='/remove/'] button[type=submit]").first.click()
    page.wait_for_load_state("load")
    assert Membership.objects.filter(campaign=t.campaign).count() == 4
    assert page.evaluate("window.__csp") == []
    page.screenshot(path=str(screenshot_dir / "members-after-confirm.png"))
    context.close()
