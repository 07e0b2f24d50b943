"""The GM's rules reference: seed line references, in words, behind a small
"§" disclosure on GM tools (campaign settings, the test typed in full, a
sheet test's inputs); players never see it, on a page or in a fragment."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from conftest import make_table
from tests.leftovers import REF_ATTR, page_text

pytestmark = pytest.mark.django_db


def _client(user: Any, lang: str = "fr") -> Client:
    profile = user.profile
    profile.language = lang
    profile.save()
    client = Client()
    client.force_login(user)
    return client


def _roll_fields(client: Client, slug: str, kind: str) -> str:
    response = client.get(f"/campaigns/{slug}/roll-fields/", {"test_kind": kind}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode()


def test_the_gm_and_co_gm_see_the_rules_reference_of_a_test_typed_in_full() -> None:
    table = make_table("sms", prefix="rr")
    for user in (table.gm, table.cogm):
        html = _roll_fields(_client(user), table.campaign.slug, "action")
        page = page_text(html)
        assert page.refs >= 2  # the score (L95) and the circumstances (L246–258)
        in_ref = [c.text for c in page.chunks if c.in_ref]
        assert "Texte source, ligne 95" in in_ref
        assert "Texte source, lignes 246 à 258" in in_ref
        assert "Référence des règles" in in_ref  # the disclosure's accessible name
        assert '<details class="rules-ref" data-rules-ref>' in html
        # The references are never in the label or the help text themselves.
        assert not any("L95" in c.text or "L246" in c.text for c in page.chunks)


def test_the_rules_reference_speaks_english_to_an_english_gm() -> None:
    table = make_table("sms", prefix="re")
    page = page_text(_roll_fields(_client(table.gm, "en"), table.campaign.slug, "action"))
    in_ref = [c.text for c in page.chunks if c.in_ref]
    assert "Source text, line 95" in in_ref and "Source text, lines 246–258" in in_ref
    assert "Rules reference" in in_ref


def test_a_player_never_sees_the_rules_reference_in_the_fragment_or_on_a_page() -> None:
    table = make_table("sms", prefix="rp")
    for user in (table.player, table.spectator):
        client = _client(user)
        # The fragment a GM gets the references in: a player asking it gets no test input at all.
        html = client.get(
            f"/campaigns/{table.campaign.slug}/roll-fields/", {"test_kind": "action"}, headers={"HX-Request": "true"}
        ).content.decode()
        assert REF_ATTR not in html and "Texte source" not in html
        # The settings page, where the GM meets most references, is refused.
        response = client.get(f"/campaigns/{table.campaign.slug}/settings/")
        assert response.status_code in (403, 404)
        assert REF_ATTR not in response.content.decode()
        assert REF_ATTR not in client.get(f"/campaigns/{table.campaign.slug}/").content.decode()


def test_the_campaign_settings_show_the_gm_the_references_of_the_options() -> None:
    table = make_table("clefs-de-l-aube", prefix="rs")
    response = _client(table.gm).get(f"/campaigns/{table.campaign.slug}/settings/")
    assert response.status_code == 200
    in_ref = [c.text for c in page_text(response.content.decode()).chunks if c.in_ref]
    # The default critical die (L1002-L1003, L1052-L1058).
    assert "Texte source, lignes 1002 à 1003, 1052 à 1058" in in_ref


def test_a_sheet_test_s_inputs_carry_the_reference_for_the_gm_only() -> None:
    from characters.models import Character, SheetVersion

    table = make_table("sms", prefix="rt")
    system = table.campaign.rule_system
    sheet = system.default_sheet()
    module = {"name": "Grande agilité", "kind": "positive", "scope": 5, "rank": 2, "free_rank": 1}
    sheet["modules"] = [module]
    character = Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Brock", system="sms", sheet=sheet, status="approved"
    )
    SheetVersion.objects.create(character=character, version=1, name="Brock", sheet=sheet, status="approved")
    tests = system.sheet_tests(sheet, table.campaign.system_settings)
    key = next(t.key for t in tests if any(f.path == "circumstances" for f in t.declared))
    params = {"sheet_character": str(character.pk), "sheet_test": key}
    url = f"/campaigns/{table.campaign.slug}/sheet-test-fields/"
    gm_html = _client(table.gm).get(url, params, headers={"HX-Request": "true"}).content.decode()
    assert "Texte source, lignes 246 à 258" in [c.text for c in page_text(gm_html).chunks if c.in_ref]
    player_html = _client(table.player).get(url, params, headers={"HX-Request": "true"}).content.decode()
    assert f'value="{key}" selected' in player_html  # the player has the same test chosen ...
    assert REF_ATTR not in player_html and "Texte source" not in player_html  # ... and no reference


def test_the_sheet_editor_shows_the_gm_the_references_and_the_owner_none() -> None:
    from characters.models import Character, SheetVersion

    table = make_table("ambre", prefix="re2")
    sheet = table.campaign.rule_system.default_sheet()
    character = Character.objects.create(
        campaign=table.campaign, owner=table.player, name="Fiona", system="ambre", sheet=sheet, status="draft"
    )
    SheetVersion.objects.create(character=character, version=1, name="Fiona", sheet=sheet, status="draft")
    url = f"/characters/{character.pk}/edit/"
    gm = _client(table.gm).get(url)
    assert gm.status_code == 200
    in_ref = [c.text for c in page_text(gm.content.decode()).chunks if c.in_ref]
    assert "Texte source, ligne 18" in in_ref  # the attributes (L18)
    owner = _client(table.player).get(url)
    assert owner.status_code == 200 and 'name="s:attributes.psy"' in owner.content.decode()
    assert REF_ATTR not in owner.content.decode() and "Texte source" not in owner.content.decode()
