"""In real browsers: the GM runs a step, the player's page (another browser
context) updates live through SSE, without reloading."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import login

pytestmark = pytest.mark.browser


def test_the_players_page_updates_live(asgi_server: Any, browser: Any, screenshot_dir: Any, table: Any, settings):
    from combat.tests.test_visibility import _make_fight

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from allauth.account.models import EmailAddress

    for user in (table.gm, table.player):
        user.set_password("pw-" + user.username + "-12345")
        user.save()
        EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})
    fight = _make_fight(table)
    url = f"{asgi_server.url}/combat/{fight.encounter.pk}/"

    gm_context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 900})
    player_context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
    gm_context.set_default_timeout(10000)
    player_context.set_default_timeout(10000)
    gm, player = gm_context.new_page(), player_context.new_page()
    login(gm, asgi_server.url, table.gm.username, "pw-gm-12345")
    login(player, asgi_server.url, table.player.username, "pw-player-12345")
    gm.goto(url)
    player.goto(url)
    player.wait_for_selector("[data-live-indicator][data-state=open]")
    player.evaluate("window.__notReloaded = true")

    # The GM starts the fight: the player's declaration form appears by itself.
    gm.click("text=Commencer le combat")
    player.wait_for_selector(f"select[name=p{fight.cendre.pk}-action]")
    assert "Borel" in player.locator("#combat-live").inner_text()
    player.select_option(f"select[name=p{fight.cendre.pk}-action]", "melee")
    player.select_option(f"select[name=p{fight.cendre.pk}-target]", str(fight.borel.pk))
    player.click("#combat-declare form button[type=submit]")
    player.wait_for_load_state("networkidle")
    player.wait_for_selector("[data-live-indicator][data-state=open]")
    player.evaluate("window.__notReloaded = true")

    # The GM sees the declaration arrive live, reveals, resolves one step.
    gm.wait_for_selector(f"[data-participant='{fight.cendre.pk}'] .declaration")
    gm.click("text=Révéler les déclarations et calculer l'initiative")
    player.wait_for_selector(".initiative")
    gm.click("text=Résoudre l'étape suivante")
    player.wait_for_selector(".combat-log li.log-step")
    log = player.locator(".combat-log").inner_text()
    # The player reads the outcome of her own action, in words, live (the rules' public sentence).
    assert "Cendre touche Borel : blessure" in log
    assert "dégâts bruts" not in log  # Borel is an NPC: the numbers stay with the GM
    assert player.evaluate("window.__notReloaded") is True
    gm.wait_for_selector(".combat-log li.log-step")
    gm.click(".combat-log li.log-step details summary")
    assert "dégâts bruts 70, nets 50" in gm.locator(".combat-log li.log-step table.details").inner_text()
    assert "Les joueurs lisent : Cendre touche Borel" in gm.locator(".combat-log").inner_text()

    # The GM adjusts Cendre's life: the player's gauge follows.
    gm.click("text=Ajuster une valeur")
    gm.select_option("#id_target", f"{fight.cendre.pk}|life")  # shown as "Vie = 75"
    gm.fill("#id_value", "42")
    gm.fill("#id_reason", "Chute de cheval")
    gm.click("form[action$='/adjust/'] button[type=submit]")
    player.wait_for_selector("text=42 / 75")
    assert player.evaluate("window.__notReloaded") is True

    player.screenshot(path=str(screenshot_dir / "combat-player-phone.png"), full_page=True)
    gm.screenshot(path=str(screenshot_dir / "combat-gm-desktop.png"), full_page=True)
    gm_context.close()
    player_context.close()
