"""The SMS settings on a phone (#23): the GM finds no text area holding JSON and nothing wider than
the screen, on the settings page and in the archetype editor filled with its example."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from campaigns.tests.test_settings_editors import PENDING
from conftest import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Text areas whose value starts like JSON (an object or a list), by name.
JSON_TEXTAREAS = (
    "Array.from(document.querySelectorAll('textarea')).filter(t => /^\\s*[\\[{]/.test(t.value)).map(t => t.name)"
)


def test_the_sms_settings_hold_no_json_and_fit_a_phone(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    table = make_table("sms")
    client = Client()
    client.force_login(table.gm)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-FR")
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": asgi_server.url}])
    page = context.new_page()
    base = f"{asgi_server.url}/campaigns/{table.campaign.slug}/settings/"
    page.goto(base)
    assert page.locator("input[type=checkbox][name=system__allowed_races]").count() > 1
    json_areas = [n for n in page.evaluate(JSON_TEXTAREAS) if not any(n.endswith(p) for p in PENDING)]
    assert json_areas == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(screenshot_dir / "settings-sms-390.png"), full_page=True)
    page.get_by_role("link", name="Modules des archétypes (MJ)").click()
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Remplir avec l’exemple").click()
    page.wait_for_load_state("networkidle")
    page.locator("input[value='Pouvoir des arcanes']").wait_for()
    assert page.evaluate(JSON_TEXTAREAS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(screenshot_dir / "settings-sms-archetypes-390.png"), full_page=True)
    page.locator("#sheet-form .toolbar button[type=submit]").click()
    page.wait_for_load_state("networkidle")
    table.campaign.refresh_from_db()
    assert "Pouvoir des arcanes" in str(table.campaign.system_settings["archetype_modules"])
    context.close()
