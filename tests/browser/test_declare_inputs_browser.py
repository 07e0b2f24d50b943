"""Real browser on the demo site: a combat declaration shows the inputs the rules read for the
chosen action only (``Field.when``): an SMS attack shows its armour and weapon, not the spell's
range; choosing "spell" swaps them. Without script every input shows (the server reads them all)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_sheet_and_axe_browser import _demo, _page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_sms_declaration_shows_the_inputs_of_the_chosen_action(asgi_server: Any, browser: Any) -> None:
    from characters.models import Character
    from combat.models import Encounter, Participant

    _demo()
    encounter = Encounter.objects.get(campaign__system="sms")
    mine = Participant.objects.filter(
        encounter=encounter, character__in=Character.objects.filter(owner__username="joueur")
    ).first()
    assert mine is not None
    page = _page(browser, asgi_server, "joueur", 390, "en")
    page.goto(f"{asgi_server.url}/combat/{encounter.pk}/")
    action = f"select[name=p{mine.pk}-action]"
    page.wait_for_selector(action)
    form = page.locator("form", has=page.locator(action))
    weapon = form.locator(f"[name=p{mine.pk}-weapon]")
    spell_range = form.locator(f"[name='p{mine.pk}-spell__range']")
    score = form.locator(f"[name=p{mine.pk}-score]")

    page.select_option(action, "attack")
    assert weapon.is_visible() and score.is_visible()
    assert not spell_range.is_visible()
    page.select_option(action, "spell")
    assert spell_range.is_visible() and score.is_visible()
    assert not weapon.is_visible()
    page.select_option(action, "catch_breath")
    assert not spell_range.is_visible() and not weapon.is_visible() and score.is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.context.close()
