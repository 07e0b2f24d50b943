"""Sheet budgets after approval: creation frozen at approval, later spending from the ledger (issue #19 item 5)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from characters import ledger
from characters import services as character_services
from characters.models import SheetVersion
from progression import services
from progression.tests.conftest import make_character

pytestmark = pytest.mark.django_db


def test_an_approved_altaride_sheet_shows_its_creation_budget_as_approved_and_the_ledger(altaride_table: Any) -> None:
    t = altaride_table
    hero = make_character(t, t.player, "Héros")
    sheet = copy.deepcopy(hero.sheet)
    sheet["talents"]["HAB"] = 16  # 605 of the 4,000 talent points
    hero.sheet = sheet
    hero.save()
    SheetVersion.objects.create(
        character=hero,
        version=hero.version,
        name=hero.name,
        sheet=copy.deepcopy(sheet),
        schema_version=hero.schema_version,
        status="approved",
        reason="approved",
    )
    ledger.append_entry(hero, "xp", 500, "gm_award")
    purchase = services.request_purchase(t.player, hero, request={"kind": "talent", "talent": "HAB"})
    character_services.approve_change(t.gm, purchase.change_request)
    hero.refresh_from_db()
    assert hero.sheet["talents"]["HAB"] == 17
    balance = ledger.balances(hero)["xp"]
    assert 0 < balance < 500
    client = Client()
    client.force_login(t.player)
    page = client.get(f"/characters/{hero.pk}/").content.decode()
    # #23: once approved, the player no longer sees the creation budget, only the ledger balance.
    assert 'id="budget-title"' not in page and str(balance) in page
    client.force_login(t.gm)
    page = client.get(f"/characters/{hero.pk}/").content.decode()
    budget = page.split('id="budget-title"')[1].split("</section>")[0]  # the GM's folded creation budget
    assert re.search(rf"<strong>{balance}</strong> disponibles maintenant \(registre\)", budget)
    assert "Talents\u00a0: <strong>605</strong> / 4000" in budget  # the talents pool as approved
    today = hero.rule_system.creation_budget(hero.sheet).pools["talents"]["spent"]
    assert today > 605 and f"<strong>{today}</strong>" not in budget
    # A draft still shows the live creation budget.
    draft = make_character(t, t.player, "Brouillon", status="draft")
    page = client.get(f"/characters/{draft.pk}/").content.decode()
    assert "restants" in page.split('id="budget-title"')[1].split("</section>")[0]


def test_the_clefs_page_offers_a_skill_level_the_px_pay_for(db: Any) -> None:
    """Issue #19 item 5: 15 PX pays for Épée 14 → 15 (each level costs the new NC, L626-L667)."""
    from conftest import make_table

    t = make_table("clefs-de-l-aube", prefix="cp")
    sheet = {
        "aspects": {"PH": 12, "ME": 10, "MY": 10},
        "means": {"PU": 2, "RE": -2, "MA": 0, "PR": 0, "EX": 0, "PE": 0},
        "skills": [{"name": "Épée", "aspect": "PH", "default_means": "PU", "nc": 14}],
    }
    hero = make_character(t, t.player, "Aubin", sheet=sheet)
    ledger.append_entry(hero, "xp", 15, "gm_award")
    offers = hero.rule_system.purchase_offers(hero.current_sheet(), {"xp": 15})
    assert [(o["kind"], o["request"], o["cost"]) for o in offers if o["kind"] == "raise_skill"] == [
        ("raise_skill", {"skill": "Épée", "aspect": "PH", "to": 15}, 15)
    ]
    poorer = hero.rule_system.purchase_offers(hero.current_sheet(), {"xp": 14})
    assert not [o for o in poorer if o["kind"] == "raise_skill"]
    client = Client()
    client.force_login(t.player)
    url = reverse("progression:character", kwargs={"character_id": hero.pk})
    page = client.get(url).content.decode()
    assert "Rien de simple à acheter" not in page
    assert "Épée : NC 14 → 15" in page
    link = re.search(r'href="\?(kind=raise_skill[^"#]*)#purchase-form"', page)
    assert link and "p-to=15" in link.group(1)
    form = client.get(f"{url}?{link.group(1).replace('&amp;', '&')}").content.decode()
    assert 'value="15"' in form and 'value="Épée"' in form
