"""The post form names the system tests in the reader's language (not ``spell_cost``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from conftest import make_table
from rules import get_system

pytestmark = pytest.mark.django_db

SYSTEMS = ("ambre", "clefs-de-l-aube", "sms", "altaride")


@pytest.mark.parametrize("slug", SYSTEMS)
def test_it_has_a_name_for_every_test_kind(slug: str) -> None:
    assert set(get_system(slug).test_kinds()) <= set(get_system(slug).test_kind_labels())


def _thread_page(table: Any, language: str) -> str:
    from campaigns import services

    board = table.campaign.boards.first()
    thread = services.create_thread(table.gm, board, title="Le bal", body="Musique.")
    client = Client()
    # The test kinds typed in full are the GM's (a player's tests come from the sheet).
    client.force_login(table.gm)
    profile = table.gm.profile
    profile.language = language
    profile.save()
    return client.get(f"/campaigns/threads/{thread.pk}/").content.decode()


def test_it_lists_the_test_kinds_in_french() -> None:
    html = _thread_page(make_table("ambre", prefix="lk"), "fr")
    assert '<option value="spell_cost">Coût d&#x27;un sort</option>' in html
    assert '<option value="comparison">Comparaison</option>' in html
    assert ">spell cost<" not in html


def test_it_lists_the_test_kinds_in_english() -> None:
    html = _thread_page(make_table("ambre", prefix="le"), "en")
    assert '<option value="spell_cost">Spell cost</option>' in html


def test_it_says_closed_on_a_date_and_a_plain_closed_pill() -> None:
    from campaigns import services

    table = make_table("ambre", prefix="cs")
    session = services.open_session(table.gm, table.campaign, title="Première")
    services.close_session(table.gm, session)
    client = Client()
    client.force_login(table.player)
    html = client.get(f"/campaigns/sessions/{session.pk}/").content.decode()
    assert '<span class="pill">fermée</span>' in html
    assert "· fermée le " in html


def test_it_names_every_admin_model_in_french() -> None:
    from conftest import make_user

    admin = make_user("gestion", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    html = client.get("/admin/").content.decode()
    assert "Versions de messages" in html and "Versions de fiches" in html
    assert "Post versions" not in html and "Sheet versions" not in html
    assert ">Profils<" in html


def test_it_offers_mark_all_as_read_only_with_notifications() -> None:
    from conftest import make_user

    client = Client()
    client.force_login(make_user("calme"))
    html = client.get("/campaigns/notifications/").content.decode()
    assert "Tout marquer comme lu" not in html and "Aucune notification." in html


def test_it_invites_an_anonymous_reader_of_a_public_thread_to_log_in() -> None:
    from campaigns import services

    table = make_table("altaride", is_public=True, prefix="an")
    thread = services.create_thread(table.gm, table.campaign.boards.first(), title="Ouverture", body="Bienvenue.")
    html = Client().get(f"/campaigns/threads/{thread.pk}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f'href="/accounts/login/?next=/campaigns/threads/{thread.pk}/"' in html
    assert "Connectez-vous pour participer." in html
    client = Client()
    client.force_login(table.spectator)
    assert "Connectez-vous pour participer." not in client.get(f"/campaigns/threads/{thread.pk}/").content.decode()


def test_it_gives_the_dice_example_in_the_readers_language() -> None:
    fr = _thread_page(make_table("ambre", prefix="pf"), "fr")
    en = _thread_page(make_table("ambre", prefix="pe"), "en")
    assert 'placeholder="2d6+3 Épée\n1d20"' in fr
    assert 'placeholder="2d6+3 Sword\n1d20"' in en


def test_it_numbers_rolls_in_the_readers_language() -> None:
    from campaigns import services

    for language, expected in (("fr", "jet n° 1"), ("en", "roll #1")):
        table = make_table("ambre", prefix="r" + language)
        thread = services.create_thread(table.gm, table.campaign.boards.first(), title="Dés", body="Allez.")
        services.create_post(table.player, thread, body="Je lance.", roll_requests=[{"expression": "1d6"}])
        profile = table.player.profile
        profile.language = language
        profile.save()
        client = Client()
        client.force_login(table.player)
        html = client.get(f"/campaigns/threads/{thread.pk}/").content.decode()
        assert expected in html
