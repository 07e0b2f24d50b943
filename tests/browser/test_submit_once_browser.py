"""In a real browser: a double-clicked "Post" button sends one post, and is disabled while sending."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from conftest import make_table

pytestmark = pytest.mark.browser


def test_a_double_click_posts_once(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    from campaigns import services
    from campaigns.models import Post

    table = make_table("altaride", prefix="once")
    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="La taverne", body="Vous entrez.")
    base = asgi_server.url
    client = Client()
    client.force_login(table.player)
    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 900})
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/campaigns/threads/{thread.pk}/")
    page.fill("textarea[name=body]", "Une seule fois, même en double-cliquant.")
    # While the form is being sent, a second submit is stopped in the page.
    stopped = page.evaluate(
        """() => new Promise((resolve) => {
            const form = document.querySelector("form.post-form");
            const button = form.querySelector("button[type=submit]");
            const first = new SubmitEvent("submit", {bubbles: true, cancelable: true, submitter: button});
            const second = new SubmitEvent("submit", {bubbles: true, cancelable: true, submitter: button});
            form.addEventListener("submit", (event) => event.preventDefault(), {once: false});
            form.dispatchEvent(first);
            form.dispatchEvent(second);
            const busy = form.dataset.submitting === "1";
            resolve({first: first.defaultPrevented && busy, second: second.defaultPrevented});
        })"""
    )
    assert stopped == {"first": True, "second": True}
    page.reload()
    page.fill("textarea[name=body]", "Une seule fois, même en double-cliquant.")
    page.locator("form.post-form button[type=submit]").dblclick()
    page.wait_for_url("**#post-2", timeout=15000)
    page.screenshot(path=str(screenshot_dir / "submit-once-phone.png"), full_page=True)
    assert Post.objects.filter(thread=thread, body__startswith="Une seule fois").count() == 1
    context.close()
