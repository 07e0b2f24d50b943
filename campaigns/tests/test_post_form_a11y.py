"""The post form's errors are reachable (#23): a test error opens the folded
"Dice and tests" section, a summary comes first (focused on load, links to
the fields), the title says so, and every aria-describedby id exists."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from campaigns.models import Roll

pytestmark = pytest.mark.django_db


def _reply(client: Any, table: Any, thread: Any, data: dict[str, str], user: Any = None) -> str:
    client.force_login(user or table.player)
    response = client.post(reverse("campaigns:thread_reply", args=[thread.pk]), data)
    assert response.status_code == 400
    return response.content.decode()


def test_a_test_error_opens_the_dice_section_with_a_focused_summary(client: Any, table: Any, thread: Any) -> None:
    # A test typed in full is the GM's (issue 15).
    html = _reply(client, table, thread, {"body": "Je tente.", "visibility": "public", "test_kind": "nope"}, table.gm)
    assert re.search(r'<details class="dice" open>', html)
    summary = html.split('id="post-form-errors"', 1)[1].split("</div>", 1)[0]
    assert 'role="alert"' in html and "data-focus-on-load" in summary
    assert "Le message n’a pas été envoyé : 1 problème à corriger." in summary
    assert 'href="#id_test_kind"' in summary
    assert re.search(r"<title>Erreur · ", html)
    assert Roll.objects.count() == 0 and thread.posts.count() == 1


def test_every_aria_describedby_id_exists(client: Any, table: Any, thread: Any) -> None:
    html = _reply(client, table, thread, {"body": "", "visibility": "public", "rolls": "2d6+"})
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    described = {i for value in re.findall(r'aria-describedby="([^"]+)"', html) for i in value.split()}
    assert described, "the invalid fields point at their messages"
    assert described <= ids, described - ids


def test_a_valid_form_opens_nothing(client: Any, table: Any, thread: Any) -> None:
    client.force_login(table.player)
    html = client.get(reverse("campaigns:thread", args=[thread.pk])).content.decode()
    assert '<details class="dice">' in html and 'id="post-form-errors"' not in html
