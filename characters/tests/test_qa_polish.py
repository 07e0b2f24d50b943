"""QA tour fixes: no bare codes or English group keys on French pages."""

from __future__ import annotations

import re

import pytest

from characters.tests.conftest import client_for, make_character
from conftest import make_table

pytestmark = pytest.mark.django_db


def test_it_names_the_clefs_roll_methods_and_groups_in_french() -> None:
    table = make_table("clefs-de-l-aube", prefix="qc")
    character = make_character(table, table.player, name="Aube")
    html = client_for(table.player).get(f"/characters/{character.pk}/wizard/aspects/").content.decode()
    assert '<option value="ROLL_STANDARD">Tirage : 2 × (2d6+3), le 3e = 30 − somme</option>' in html
    assert ">ROLL_STANDARD<" not in html and ">ZERO<" not in html
    assert "Échanges d&#x27;aspects" in html or "Échanges d'aspects" in html
    assert "Aspect exchanges" not in html and "Skill levels" not in html
    # Rolled: the record names the methods too.
    client_for(table.player).post(
        f"/characters/{character.pk}/clefs-roll/",
        {"aspect_method": "ROLL_STANDARD", "means_method": "ROLL", "version": character.version},
    )
    html = client_for(table.player).get(f"/characters/{character.pk}/wizard/aspects/").content.decode()
    assert "(Tirage : 2 × (2d6+3), le 3e = 30 − somme, Tirage : 3 × (2d6−7) et leurs inverses)" in html


def test_it_names_the_system_for_visitors_without_a_dangling_dot() -> None:
    table = make_table("altaride", is_public=True, prefix="qv")
    character = make_character(table, table.player, name="Maëlis", status="approved")
    html = client_for(None).get(f"/characters/{character.pk}/").content.decode()
    assert "Mythe d&#x27;Altaride" in html or "Mythe d'Altaride" in html
    assert "altaride ·" not in html
    header = html.split('<header class="sheet-hero card">', 1)[1].split("</header>", 1)[0]
    assert not re.search(r"·\s*</p>", header)


def test_it_points_a_newcomer_without_campaign_to_the_directory() -> None:
    from conftest import make_user

    html = client_for(make_user("nouvelle")).get("/characters/").content.decode()
    assert "rejoignez-en une d’abord" in html and 'href="/campaigns/"' in html
    table = make_table("ambre", prefix="qn")
    html = client_for(table.player).get("/characters/").content.decode()
    assert "rejoignez-en une" not in html  # a member sees the rosters of their campaigns instead


def test_it_explains_the_portrait_in_the_readers_language() -> None:
    from django.utils import translation

    from characters.forms import PortraitForm

    with translation.override("en"):
        assert PortraitForm().fields["portrait"].help_text.startswith("JPEG, PNG, GIF or WebP, at most ")
    with translation.override("fr"):
        assert "ou WebP" in PortraitForm().fields["portrait"].help_text


def test_it_uses_english_punctuation_on_english_pages() -> None:
    table = make_table("clefs-de-l-aube", prefix="qp")
    character = make_character(table, table.player, name="Aube")
    client = client_for(table.player)
    client.post(
        f"/characters/{character.pk}/clefs-roll/",
        {"aspect_method": "ROLL_STANDARD", "means_method": "ROLL", "version": character.version},
    )
    fr = client.get(f"/characters/{character.pk}/wizard/aspects/").content.decode()
    assert "Aspects tirés : <strong>" in fr
    profile = table.player.profile
    profile.language = "en"
    profile.save()
    en = client.get(f"/characters/{character.pk}/wizard/aspects/").content.decode()
    assert "Aspects rolled: <strong>" in en and "Aspects rolled :" not in en
