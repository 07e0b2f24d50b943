"""``{% include_pure %}`` (config.puretag): the fragment ``{% include ... only %}`` renders, kept per
process under the values, the language and the time zone, never served to a reader with other values."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.template import TemplateSyntaxError, engines
from django.test import override_settings
from django.utils import translation

from characters.tests.conftest import client_for, make_character
from config import puretag
from conftest import make_table

GROUPS = [
    {
        "key": "physique",
        "label": "Domaine physique",
        "rows": [{"label": "Force", "path": "talents.FOR", "value": 12, "provenance": "", "key": "talents.FOR"}],
        "lists": [{"label": "Armes", "path": "weapons", "items": [{"title": "Épée <longue>", "rows": []}]}],
    }
]


def _render(source: str, **context: Any) -> str:
    return engines["django"].from_string(source).render(context)


@pytest.fixture(autouse=True)
def _nothing_kept() -> Any:
    puretag.KEPT.clear()
    yield
    puretag.KEPT.clear()


def test_it_renders_what_include_only_renders_then_keeps_it() -> None:
    expected = _render('{% include "characters/_sheet_view.html" with groups=g only %}', g=GROUPS)
    assert "Épée &lt;longue&gt;" in expected and "Domaine physique" in expected
    assert _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=GROUPS) == expected
    assert len(puretag.KEPT.items) == 1
    # Equal values (another object): the kept fragment.
    again = [dict(GROUPS[0])]
    assert _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=again) == expected
    assert len(puretag.KEPT.items) == 1


def test_other_values_make_another_fragment() -> None:
    first = _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=GROUPS)
    changed = [{**GROUPS[0], "rows": [{**GROUPS[0]["rows"][0], "value": 13}]}]
    second = _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=changed)
    assert ">12<" in first and ">13<" in second and ">12<" not in second
    # 12 and 12.0 print the same today but are other values: never taken for one another.
    as_float = [{**GROUPS[0], "rows": [{**GROUPS[0]["rows"][0], "value": 12.0}]}]
    _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=as_float)
    assert len(puretag.KEPT.items) == 3


def test_each_language_has_its_own_fragment() -> None:
    derived = [{"key": "", "label": "", "rows": [{"key": "x", "label": "Vie", "kind": "scalar", "value": 3}]}]
    source = '{% include_pure "characters/_derived.html" derived_groups=d %}'
    with translation.override("fr"):
        french = _render(source, d=derived)
    with translation.override("en"):
        english = _render(source, d=derived)
    with translation.override("fr"):
        assert _render(source, d=derived) == french
    assert "Valeurs dérivées" in french and "Derived values" in english
    assert len(puretag.KEPT.items) == 2


def test_the_fragment_sees_only_the_values_it_is_given() -> None:
    html = _render('{% include_pure "characters/_sheet_view.html" %}', groups=GROUPS)
    assert "Domaine physique" not in html  # the page's own ``groups`` is not passed


def test_values_that_cannot_be_pickled_render_each_time() -> None:
    groups = [{**GROUPS[0], "lock": threading.Lock()}]
    html = _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=groups)
    assert "Domaine physique" in html
    assert len(puretag.KEPT.items) == 0


@override_settings(DEBUG=True)
def test_nothing_is_kept_while_templates_may_be_edited() -> None:
    _render('{% include_pure "characters/_sheet_view.html" groups=g %}', g=GROUPS)
    assert len(puretag.KEPT.items) == 0


@pytest.mark.parametrize(
    "source",
    [
        "{% include_pure %}",
        "{% include_pure name %}",
        '{% include_pure "characters/_sheet_view.html" groups %}',
        '{% include_pure "characters/_sheet_view.html" 1x=groups %}',
    ],
)
def test_a_malformed_tag_is_a_syntax_error(source: str) -> None:
    with pytest.raises(TemplateSyntaxError):
        engines["django"].from_string(source)


@pytest.mark.django_db
def test_a_player_is_never_served_the_gm_s_sheet_fragments() -> None:
    """The GM's sheet page lays out the creation groups (Identité for Altaride); the owner's does
    not. The GM's page is rendered first, so a fragment kept under the wrong key would show."""
    table = make_table("altaride", prefix="pt")
    sheet = table.campaign.rule_system.default_sheet()
    sheet["identity"] = {**sheet.get("identity", {}), "origin": "Port-Sable"}
    character = make_character(table, table.player, name="Maëlis", status="approved", sheet=sheet)
    url = f"/characters/{character.pk}/"
    gm_page = client_for(table.gm).get(url).content.decode()
    owner_page = client_for(table.player).get(url).content.decode()
    assert "<h2>Identité</h2>" in gm_page
    assert "<h2>Identité</h2>" not in owner_page
    assert "<h2>Domaine physique</h2>" in owner_page
    # Each reader again, from what is kept: the same pages.
    assert client_for(table.player).get(url).content.decode().count("<h2>Identité</h2>") == 0
    assert client_for(table.gm).get(url).content.decode().count("<h2>Identité</h2>") == 1


@pytest.mark.django_db
def test_each_member_sees_their_own_links_in_the_layout() -> None:
    """The layout's links are kept fragments too: a member's name, unread count and the staff and
    moderation links are never another member's, and a visitor gets none of them."""
    from django.urls import reverse

    from campaigns.models import Notification

    table = make_table("altaride", prefix="pl")
    Notification.objects.create(user=table.player, kind="post", text="n", campaign=table.campaign)
    table.moderator.is_staff = True
    table.moderator.save()
    names = ("moderator", "player", "player2")
    pages = {name: client_for(getattr(table, name)).get("/campaigns/").content.decode() for name in names}
    pages["visitor"] = client_for(None).get("/campaigns/").content.decode()
    assert 'class="badge"' in pages["player"]
    assert all('class="badge"' not in pages[name] for name in ("moderator", "player2", "visitor"))
    queue, admin = reverse("moderation:queue"), reverse("admin:index")
    assert f'href="{queue}"' in pages["moderator"] and f'href="{admin}"' in pages["moderator"]
    assert all(
        f'href="{queue}"' not in pages[name] and f'href="{admin}"' not in pages[name]
        for name in ("player", "player2", "visitor")
    )
    for name in names:
        user = getattr(table, name)
        assert f">{user.profile.name or user.username}</a>" in pages[name]
        others = [getattr(table, other) for other in names if other != name]
        assert all(f">{other.profile.name or other.username}</a>" not in pages[name] for other in others)
    mine, logout = reverse("characters:mine"), reverse("account_logout")
    assert f'href="{mine}"' in pages["player"] and f'href="{mine}"' not in pages["visitor"]
    assert logout not in pages["visitor"] and reverse("account_login") in pages["visitor"]


def test_the_fragments_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values without end (a page's path in the language form) never grow the process: the oldest go."""
    monkeypatch.setattr(puretag.KEPT, "size", 5)
    source = '{% include_pure "partials/language_fields.html" next=path current="fr" %}'
    for n in range(12):
        assert f'value="/page/{n}/"' in _render(source, path=f"/page/{n}/")
    assert len(puretag.KEPT.items) == 5
    assert 'value="/page/0/"' in _render(source, path="/page/0/")  # dropped, rendered again
