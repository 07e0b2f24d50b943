"""In a real browser: the post form's nonce, witnessed heads, and the verify page's WebCrypto check."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from conftest import make_table

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]


def _page(browser: Any, base: str, user: Any, width: int) -> Any:
    client = Client()
    client.force_login(user)
    context = browser.new_context(locale="fr-FR", viewport={"width": width, "height": 900}, accept_downloads=True)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])
    return context.new_page()


def _verify(page: Any, url: str) -> tuple[str, str]:
    page.goto(url)
    page.click("[data-verify-run]")
    page.wait_for_selector("[data-rolls-verifier][data-result]", timeout=20000)
    return page.get_attribute("[data-rolls-verifier]", "data-result"), page.inner_text("[data-verify-output]")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_browser_recomputes_the_chain_and_catches_a_rewrite(
    asgi_server: Any, browser: Any, screenshot_dir: Any, width: int, tmp_path: Path
) -> None:
    from campaigns import checkpoints, services
    from campaigns.models import Roll
    from campaigns.tests.test_fair_dice import _rewrite_from

    table = make_table("altaride", prefix=f"fb{width}")
    thread = services.create_thread(table.gm, table.campaign.boards.first(), title="Le gué", body="La rivière.")
    base = asgi_server.url
    page = _page(browser, base, table.player, width)
    page.goto(f"{base}/campaigns/threads/{thread.pk}/")
    page.click("details.dice > summary")
    page.fill("textarea[name=rolls]", "2d6 Saut")
    page.fill("textarea[name=body]", "Je saute le gué.")
    page.click("form.post-form button[type=submit]")
    page.wait_for_selector("#post-2")
    roll = Roll.objects.get(campaign=table.campaign)
    assert roll.fair["nonce_by"] == "client" and len(roll.fair["nonce"]) == 32  # crypto.getRandomValues
    # The page now shows (and the browser remembers) the head with this roll.
    assert page.get_attribute("[data-chain-head]", "data-hash") == roll.hash
    page.goto("about:blank")  # no live stream open while the test writes (SQLite has one writer)
    services.create_post(table.player2, thread, body="Moi aussi", roll_requests=[{"expression": "1d20"}])
    test = {"kind": "opposed_test", "target": 12, "defender_target": 9, "label": "Lutte « finale »"}
    # A test typed in full is the GM's (#15: a player's test is built from her sheet).
    services.create_post(table.gm, thread, body="Je lutte", roll_requests=[{"system_test": test}])
    secret = {"system_test": {"kind": "test", "target": 7}, "secret": True, "label": "Piège"}
    services.create_post(table.gm, thread, body="…", roll_requests=[secret], client_nonce="g" * 20)
    services.rotate_roll_seed(table.gm, table.campaign)
    page.goto(f"{base}/campaigns/threads/{thread.pk}/")  # witnesses head #4

    verify_url = f"{base}/campaigns/{table.campaign.slug}/rolls/verify/"
    result, text = _verify(page, verify_url)
    assert result == "ok", text
    # Rolls 1 to 4 were drawn from seed 1, whose commitment the thread page showed before roll 1.
    assert "Jets tirés d'une graine dont ce navigateur avait vu l'engagement auparavant : 4." in text
    assert "Vérifié par votre navigateur" in text and "Jets : 4 ; recalculés depuis une graine révélée : 4 ;" in text
    page.screenshot(path=str(screenshot_dir / f"fair-dice-verify-{width}.png"), full_page=True)
    with page.expect_download() as download:
        page.click("[data-verify-heads]")
    heads_file = tmp_path / "heads.json"
    download.value.save_as(str(heads_file))

    # Whoever holds the database rewrites roll 1 and recomputes every hash: the server's own check
    # passes on the rewritten chain's hashes, the browser's witnessed heads do not.
    page.goto("about:blank")
    _rewrite_from(table.campaign, 1, lambda r: {"label": "réécrit"})
    result, text = _verify(page, verify_url)
    assert result == "broken"
    assert "Première anomalie : jet n° 1 : la chaîne a été réécrite depuis que ce navigateur l'a vue." in text
    assert "jet n° 4 : la chaîne diffère du point de contrôle signé." in text  # kept by the first check
    page.screenshot(path=str(screenshot_dir / f"fair-dice-rewritten-{width}.png"), full_page=True)

    # The stand-alone script, given the heads the browser saved, catches it too.
    export = tmp_path / "export.json"
    export.write_text(json.dumps(checkpoints.export_document(table.player, table.campaign)), encoding="utf-8")
    script = [sys.executable, str(ROOT / "tools" / "verify_rolls.py"), str(export)]
    assert subprocess.run(script, capture_output=True, text=True).returncode == 0
    run = subprocess.run([*script, "--heads", str(heads_file)], capture_output=True, text=True)
    assert run.returncode == 1
    assert "FIRST DISCREPANCY: roll #1: the chain was rewritten since you saw this head" in run.stdout
    page.context.close()
