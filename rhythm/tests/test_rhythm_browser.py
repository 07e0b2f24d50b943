"""A player on a phone sees "à vous de jouer" on the home page and in the scene, and posts from it;
a draft typed before a reload comes back."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import expect

from campaigns import services as campaign_services
from campaigns.models import Board
from conftest import make_table
from rhythm import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_shows_the_turn_on_a_phone_and_the_player_posts_from_it(
    asgi_server: Any, browser: Any, screenshot_dir: Any
) -> None:
    table = make_table("ambre")
    board = Board.objects.filter(campaign=table.campaign).first()
    thread = campaign_services.create_thread(table.gm, board, title="Le pont de Kolvir", body="La brume monte.")
    services.set_scene_rhythm(
        table.gm, thread, mode="order", order=[table.player.pk, table.player2.pk], deadline_hours=48
    )
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-FR")
    client = Client()
    client.force_login(table.player)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": asgi_server.url}])
    page = context.new_page()
    page.goto(asgi_server.url + "/")
    waiting = page.locator("section.waiting")
    assert "Ce qui vous attend" in waiting.inner_text()
    assert "À votre tour dans « Le pont de Kolvir »" in waiting.inner_text()
    page.screenshot(path=str(screenshot_dir / "rhythm-home-390.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    waiting.get_by_role("link", name="À votre tour dans « Le pont de Kolvir »").click()
    page.wait_for_load_state("networkidle")
    assert "À vous de jouer !" in page.locator("#scene-header").inner_text()
    # A draft typed, then the page reloaded: it comes back.
    page.fill("textarea[name=body]", "Je m'avance sur le pont, l'épée au clair.")
    page.wait_for_timeout(1800)
    page.reload()
    page.wait_for_load_state("networkidle")
    expect(page.locator("textarea[name=body]")).not_to_have_value("")  # no wait_for_function: CSP forbids eval
    assert page.input_value("textarea[name=body]") == "Je m'avance sur le pont, l'épée au clair."
    page.screenshot(path=str(screenshot_dir / "rhythm-thread-390.png"), full_page=True)
    page.locator("form.post-form button[type=submit]").last.click()
    page.wait_for_load_state("networkidle")
    header = page.locator("#scene-header").inner_text()
    assert "À vous de jouer !" not in header
    assert "Ont déjà posté ce tour-ci" in header
    context.close()
    # The second player now has the turn.
    assert services.turn_state(services.scene_for(thread)).current == table.player2.pk
