"""The language menu works for logged-in members too (their profile would otherwise win)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Profile
from conftest import make_user


@pytest.mark.django_db
def test_it_switches_a_member_to_english_from_the_menu() -> None:
    user = make_user("lectrice")
    client = Client()
    client.force_login(user)
    assert Profile.objects.get(user=user).language == "fr"
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/campaigns/"})
    assert response.status_code == 302
    assert Profile.objects.get(user=user).language == "en"
    page = client.get("/campaigns/")
    assert page.headers["Content-Language"] == "en"
    assert '<html lang="en">' in page.content.decode()


@pytest.mark.django_db
def test_it_ignores_an_unknown_language() -> None:
    user = make_user("lecteur")
    client = Client()
    client.force_login(user)
    client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert Profile.objects.get(user=user).language == "fr"
    assert client.get("/").headers["Content-Language"] == "fr"


@pytest.mark.django_db
def test_it_keeps_the_profile_page_title_plain_text() -> None:
    client = Client()
    client.force_login(make_user("titre"))
    html = client.get("/profile/").content.decode()
    title = html.split("<title>", 1)[1].split("</title>", 1)[0]
    assert title.startswith("Mon profil ·")
    assert "<" not in title
    assert html.count("Mes données") == 1
