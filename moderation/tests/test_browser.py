"""Browser checks of the moderation pages (phone and desktop screenshots)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_renders_the_moderation_pages(asgi_server: Any, browser: Any, screenshot_dir: Any, table: Any) -> None:
    from campaigns import services as campaign_services
    from moderation import services
    from moderation.tests.conftest import verify_email

    board = table.campaign.boards.first()
    thread = campaign_services.create_thread(table.gm, board, title="La cour de Rebma", body="Le rideau se lève.")
    post = campaign_services.create_post(
        table.player, thread, body="Un message qui dérape.", roll_requests=[{"expression": "2d6"}]
    )
    report = services.report_target(table.player2, post=post, reason="harassment", details="Propos blessants.")
    services.lock_thread(table.gm, thread, reason="Pause de la scène")
    services.suspend_user(table.moderator, table.outsider, reason="Spam", days=3)
    for user in (table.moderator, table.outsider, table.player2):
        verify_email(user)
    base = asgi_server.url
    for width, label in ((390, "phone"), (1280, "desktop")):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        login(page, base, "moderator", "pw-moderator-12345")
        page.goto(f"{base}/moderation/")
        assert "File de modération" in page.content()
        page.screenshot(path=str(screenshot_dir / f"moderation-queue-{label}.png"), full_page=True)
        page.goto(f"{base}/moderation/reports/{report.pk}/")
        assert "Masquer le message" in page.content()
        page.screenshot(path=str(screenshot_dir / f"moderation-report-{label}.png"), full_page=True)
        page.goto(f"{base}/moderation/log/")
        assert "Pause de la scène" in page.content()
        page.screenshot(path=str(screenshot_dir / f"moderation-log-{label}.png"), full_page=True)
        page.goto(f"{base}/moderation/users/{table.outsider.pk}/")
        page.screenshot(path=str(screenshot_dir / f"moderation-user-{label}.png"), full_page=True)
        context.close()
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        login(page, base, "outsider", "pw-outsider-12345")
        assert "/moderation/suspended/" in page.url
        assert "Compte suspendu" in page.content()
        page.screenshot(path=str(screenshot_dir / f"moderation-suspended-{label}.png"), full_page=True)
        context.close()
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        login(page, base, "player2", "pw-player2-12345")
        page.goto(f"{base}/moderation/my-data/")
        page.screenshot(path=str(screenshot_dir / f"moderation-my-data-{label}.png"), full_page=True)
        page.goto(f"{base}/moderation/report/campaign/{table.campaign.pk}/")
        page.check("input[value=other]")
        page.click("#report-form button[type=submit]")
        page.wait_for_selector("#report-form .errorlist-box, #report-form .errorlist")
        assert "Dites ce qui ne va pas." in page.content()
        page.screenshot(path=str(screenshot_dir / f"moderation-report-form-{label}.png"), full_page=True)
        context.close()
