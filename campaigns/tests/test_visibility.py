"""One table of visibility cases, run against every transport (issue #16 item 3).

Each role reads the same thread through the page (HTML), the API (JSON) and the live stream
(which post-created events reach them): the three must show exactly what the table says, so a
transport that leaks, or hides differently, fails. All of them render the read model of
:mod:`campaigns.reads`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from rest_framework.test import APIClient

from campaigns import services
from campaigns.models import Campaign
from conftest import make_table
from live import registry
from live.events import audience_allows
from live.models import LiveEvent
from moderation import services as moderation

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "spectator", "player", "other_player", "cogm", "gm", "moderator")
EVERYONE = frozenset(ROLES)
GMS = frozenset({"cogm", "gm"})

#: item -> who reads it (the text of a post, the label of a roll). ``player`` writes the GM-only
#: post and the secret roll; the GM whispers to ``other_player``; ``other_player``'s post is hidden.
TABLE: dict[str, frozenset[str]] = {
    "PUBLIC-TEXT": EVERYONE,
    "GMONLY-TEXT": GMS | {"player"},
    "WHISPER-TEXT": GMS | {"other_player"},
    "HIDDEN-TEXT": GMS | {"moderator"},
    "HIDDEN-ROLL": EVERYONE,  # a moderated post keeps its place and its rolls
    "SECRET-ROLL": GMS | {"player"},
}
#: Posts whose creation is announced live only to some (the others: to everyone who reads the thread).
LIVE = {"GMONLY-TEXT": TABLE["GMONLY-TEXT"], "WHISPER-TEXT": TABLE["WHISPER-TEXT"]}


def _user(table: Any, role: str) -> Any:
    return {
        "anonymous": None,
        "outsider": table.outsider,
        "spectator": table.spectator,
        "player": table.player,
        "other_player": table.player2,
        "cogm": table.cogm,
        "gm": table.gm,
        "moderator": table.moderator,
    }[role]


def _scene(public: bool) -> tuple[Any, Any, dict[str, int]]:
    table = make_table("ambre", is_public=public, prefix="pub" if public else "priv")
    thread = services.create_thread(table.gm, table.campaign.boards.first(), title="Scène", body="PUBLIC-TEXT")
    numbers = {"PUBLIC-TEXT": 1}
    numbers["GMONLY-TEXT"] = services.create_post(table.player, thread, body="GMONLY-TEXT", visibility="gm").number
    whisper = services.create_post(
        table.gm, thread, body="WHISPER-TEXT", visibility="whisper", recipients=[table.player2]
    )
    numbers["WHISPER-TEXT"] = whisper.number
    hidden = services.create_post(
        table.player2, thread, body="HIDDEN-TEXT", roll_requests=[{"expression": "1d6", "label": "HIDDEN-ROLL"}]
    )
    moderation.hide_post(table.gm, hidden, reason="Hors charte")
    services.create_post(
        table.player,
        thread,
        body="Je jette.",
        roll_requests=[{"expression": "1d6", "label": "SECRET-ROLL", "secret": True}],
    )
    return table, thread, numbers


def _page(user: Any, thread: Any) -> tuple[int, str]:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(f"/campaigns/threads/{thread.pk}/")
    return response.status_code, response.content.decode()


def _api(user: Any, thread: Any) -> tuple[int, str]:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    response = client.get(f"/api/v1/threads/{thread.pk}/posts/")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def _live(user: Any, thread: Any) -> set[int] | None:
    """The numbers of the posts whose creation the live stream of the thread sends to ``user``."""
    viewer = registry.authorize("thread", user or AnonymousUser(), thread.pk)
    if viewer is None:
        return None
    events = LiveEvent.objects.filter(channel=f"thread:{thread.pk}", kind="post-created")
    return {e.data["number"] for e in events if audience_allows(e.audience, viewer.user_id, viewer.is_gm)}


@pytest.mark.parametrize("public", [True, False], ids=["public", "private"])
def test_every_transport_shows_each_role_what_the_table_says(public: bool) -> None:
    table, thread, numbers = _scene(public)
    assert Campaign.objects.get(pk=table.campaign.pk).is_public is public
    for role in ROLES:
        user = _user(table, role)
        page_status, html = _page(user, thread)
        api_status, payload = _api(user, thread)
        live = _live(user, thread)
        if not public and role in ("anonymous", "outsider"):
            assert (page_status, api_status, live) == (404, 404, None), role
            continue
        assert (page_status, api_status) == (200, 200), role
        for item, readers in TABLE.items():
            expected = role in readers
            assert (item in html) is expected, f"page: {role} {'misses' if expected else 'sees'} {item}"
            assert (item in payload) is expected, f"API: {role} {'misses' if expected else 'sees'} {item}"
        # The hidden post's place is on both, numbered, for everyone who reads the thread.
        hidden_number = numbers["WHISPER-TEXT"] + 1
        assert f'id="post-{hidden_number}"' in html and f'"number": {hidden_number}' in payload, role
        assert live is not None, role
        for item, number in numbers.items():
            expected = role in LIVE.get(item, EVERYONE)
            assert (number in live) is expected, f"live: {role} {'misses' if expected else 'hears of'} {item}"
