"""Issue 18: the authorization table. Every URL pattern (pages and API), for every role of one
campaign, filled with the ids of *another* private campaign's objects.

* 0 leaks: no GET answers 200 with the other campaign's things;
* 0 unauthorized writes: after a POST/PUT/PATCH/DELETE sweep, not a row has changed;
* 0 server errors.

Roles come from table A (GM and player of A; a member of no table; anonymous); the
ids come from table B, a private Ambre table with one object of every kind.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from typing import Any

import pytest
from django.apps import apps
from django.core import serializers
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from conftest import make_table

pytestmark = pytest.mark.django_db

#: Not walked: the admin and allauth (their own permission systems), live streams (long-lived
#: responses; their access check is in live/tests), the join-by-token page (the token is the grant),
#: the API's catch-all and rule system descriptions (public, no campaign id).
SKIP = re.compile(r"^(admin/|accounts/|live/|api/\^|api/v1/systems/|campaigns/<slug:slug>/join/<str:token>/)")
APPS = (
    "campaigns",
    "characters",
    "combat",
    "progression",
    "moderation",
    "api",
    "accounts",
    "rhythm",
    *(config.label for config in apps.get_app_configs() if config.name.startswith("systems.")),  # plug-ins
)
#: Models a refused request may legitimately touch (none expected; kept empty on purpose).
VOLATILE: set[str] = set()


def _routes() -> list[str]:
    out: list[str] = []

    def walk(patterns: Any, prefix: str) -> None:
        for p in patterns:
            text = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, text)
            elif isinstance(p, URLPattern) and "<" in text and not SKIP.match(text):
                out.append(text)

    walk(get_resolver().url_patterns, "")
    return sorted(set(out))


def _victim() -> dict[str, Any]:
    """Table B: a private campaign with one object of every kind the URLs name."""
    from api import services as api_services
    from campaigns import services
    from campaigns.models import Invitation, JoinRequest, Notification
    from characters import services as character_services
    from characters.models import Character
    from characters.tests.conftest import valid_ambre_sheet
    from combat import services as combat_services
    from combat.models import Declaration, Round
    from moderation import services as moderation
    from moderation.models import TableBan
    from rhythm.models import Absence
    from systems.ambre import services as auction_services

    b = make_table("ambre", prefix="b-")
    board = b.campaign.boards.first()
    thread = services.create_thread(b.gm, board, title="Secret", body="Privé.", roll_requests=[{"expression": "1d6"}])
    post = services.create_post(b.player, thread, body="Chut.")
    session = services.open_session(b.gm, b.campaign, title="S1")
    hero = character_services.create_character(b.player, b.campaign, name="Caine")
    auction = auction_services.open_auction(b.gm, b.campaign, characters=[hero])
    approved = character_services.create_character(b.player2, b.campaign, name="Bleys")
    Character.objects.filter(pk=approved.pk).update(status="approved", sheet=valid_ambre_sheet("Bleys"))
    approved.refresh_from_db()
    change = character_services.request_change(
        b.player2, approved, sheet={**approved.sheet, "background": "x"}, expected_version=1
    )
    encounter = combat_services.create_encounter(b.gm, thread, title="Duel")
    participant = combat_services.add_participant(b.gm, encounter, character=hero)[0]
    combat_services.start_encounter(b.gm, encounter)
    declaration = Declaration.objects.create(
        round=Round.objects.filter(encounter=encounter).first(), participant=participant, declared_by=b.player
    )
    invitation = Invitation.objects.filter(campaign=b.campaign).first() or services.invite_member(
        b.gm, b.campaign, username=b.outsider.username
    )
    join = JoinRequest.objects.create(campaign=b.campaign, user=b.moderator, message="?")
    report = moderation.report_target(b.player, post=post, reason="spam")
    ban = TableBan.objects.create(campaign=b.campaign, user=b.outsider, banned_by=b.gm, reason="x")
    token, _key = api_services.create_token(b.gm, name="b")
    notification = Notification.objects.filter(user=b.gm).first()
    absence = Absence.objects.create(
        user=b.player, campaign=b.campaign, starts=datetime.date.today(), ends=datetime.date.today(), message="x"
    )
    ids = {
        "slug": b.campaign.slug,
        "campaign": str(b.campaign.pk),
        "campaign_id": b.campaign.pk,
        "board_id": board.pk,
        "thread_id": thread.pk,
        "post_id": post.pk,
        "roll_id": thread.posts.order_by("number").first().rolls.first().pk,
        "session_id": session.pk,
        "character_id": hero.pk,
        "encounter_id": encounter.pk,
        "participant_id": participant.pk,
        "auction_id": auction.pk,
        "change_id": change.pk,
        "user_id": b.player.pk,
        "invitation_id": invitation.pk,
        "join_request_id": join.pk,
        "request_id": join.pk,
        "report_id": report.pk,
        "ban_id": ban.pk,
        "token_id": token.pk,
        "absence_id": absence.pk,
        "declaration_id": declaration.pk,
        "path": "x",
        "notification_id": notification.pk if notification else 10**9,
        "purchase_id": 10**9,
        "target_id": post.pk,
        "kind": "post",
        "action": "approve",
        "step": "identity",
        "name": "portraits/none.jpg",
    }
    pk_by_prefix = {
        "characters/changes/": change.pk,
        "characters/auctions/": auction.pk,
        "characters/": hero.pk,
        "combat/": encounter.pk,
    }
    return {"ids": ids, "pk": pk_by_prefix, "table": b}


def _fill(route: str, victim: dict[str, Any]) -> str | None:
    def value(match: re.Match[str]) -> str:
        name = match.group(2)
        if name == "pk":
            return str(next(v for prefix, v in victim["pk"].items() if route.startswith(prefix)))
        return str(victim["ids"][name])

    try:
        return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", value, route)
    except (KeyError, StopIteration):
        return None


def _fingerprint() -> dict[str, str]:
    out = {}
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            name = model._meta.label
            if name in VOLATILE:
                continue
            rows = serializers.serialize("json", model.objects.order_by("pk"))
            out[name] = hashlib.sha256(rows.encode()).hexdigest()
    return out


def test_no_role_of_another_table_reads_or_writes_anything(table: Any, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_CLASSES": [],
    }
    victim = _victim()
    routes = _routes()
    urls = [(route, _fill(route, victim)) for route in routes]
    unfilled = [route for route, url in urls if url is None]
    assert unfilled == [], unfilled
    assert len(urls) >= 150, len(urls)
    # The ids are right: B's own GM reads B's things through the same URLs (the test can fail).
    owner = Client()
    owner.force_login(victim["table"].gm)
    controls = [
        u
        for r, u in urls
        if r
        in ("campaigns/threads/<id:thread_id>/", "api/v1/posts/<id:post_id>/", "characters/<id:pk>/", "combat/<id:pk>/")
    ]
    assert len(controls) == 4 and all(owner.get(u).status_code == 200 for u in controls), controls
    roles = {"anonymous": None, "outsider": table.outsider, "player": table.player, "gm": table.gm}
    clients = {}
    for role, user in roles.items():
        client = Client(raise_request_exception=False)
        if user is not None:
            client.force_login(user)
        clients[role] = client
    before = _fingerprint()
    leaks: list[str] = []
    errors: list[str] = []
    requests = 0
    for role, client in clients.items():
        for _route, url in urls:
            for method in ("get", "post"):
                if method == "post":
                    response = client.post(url, data=json.dumps({}), content_type="application/json")
                else:
                    response = client.get(url)
                requests += 1
                if response.status_code >= 500:
                    errors.append(f"{role} {method.upper()} {url}: {response.status_code}")
                elif method == "get" and response.status_code == 200:
                    leaks.append(f"{role} GET {url}")
        for url in [u for r, u in urls if r.startswith("api/v1/") and role in ("anonymous", "gm")]:
            for method in ("put", "patch", "delete"):
                response = getattr(client, method)(url, data="{}", content_type="application/json")
                requests += 1
                if response.status_code >= 500:
                    errors.append(f"{role} {method.upper()} {url}: {response.status_code}")
    after = _fingerprint()
    changed = sorted(name for name in before if before[name] != after[name])
    assert errors == [], "\n".join(errors)
    assert leaks == [], "\n".join(leaks)
    assert changed == [], changed
    assert requests > 1200
