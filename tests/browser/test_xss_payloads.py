"""Issue 18: the XSS payload list, written into every kind of user-writable field, rendered in
Chromium on the pages that show them. Nothing may execute, and (independently of the CSP,
which would block execution anyway) no payload may become markup: no element gains an
``on*`` attribute, an inline ``<script>``, a ``javascript:`` link or an ``<iframe>``.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import make_table

pytestmark = pytest.mark.browser

PAYLOADS = [
    "<script>window.__xss.push('script')</script>",
    "<img src=x onerror=\"window.__xss.push('img')\">",
    '"><svg onload="window.__xss.push(\'svg\')">',
    "'><iframe src=\"javascript:window.parent.__xss.push('iframe')\"></iframe>",
    "[lien](javascript:window.__xss.push('md'))",
    "<a href=\"javascript:window.__xss.push('a')\">a</a>",
    "<details open ontoggle=\"window.__xss.push('details')\">",
    "</textarea><script>window.__xss.push('ta')</script>",
    "{{ 7|add:7 }}{% now 'Y' %}",
    '<style>*{display:none}</style><math><mi xlink:href="javascript:1">m</mi></math>',
]
LONG = " ".join(PAYLOADS)
SHORT = '<img src=x onerror="window.__xss.push(\'s\')">"><b>x'

PROBE = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on')) bad.push(el.tagName + '[' + attr.name + ']');
    }
  }
  document.querySelectorAll('script:not([src])').forEach(() => bad.push('inline script'));
  document.querySelectorAll('iframe, object, embed, math mi[href]').forEach(e => bad.push(e.tagName));
  document.querySelectorAll('a[href^="javascript:" i]').forEach(() => bad.push('javascript: link'));
  return {bad, executed: window.__xss};
}"""


def _scene() -> dict[str, Any]:
    from accounts.models import Profile
    from campaigns import services
    from campaigns.models import Board, Campaign
    from characters import services as character_services
    from characters.models import Character
    from characters.tests.conftest import valid_ambre_sheet
    from combat import services as combat_services
    from moderation import services as moderation

    t = make_table("ambre", prefix="x")
    Profile.objects.filter(user=t.player).update(display_name=SHORT[:60])
    Campaign.objects.filter(pk=t.campaign.pk).update(title=SHORT, pitch=LONG)
    Board.objects.filter(campaign=t.campaign).update(name=SHORT[:60])
    board = t.campaign.boards.first()
    thread = services.create_thread(
        t.player, board, title=SHORT, body=LONG, roll_requests=[{"expression": "1d6", "label": SHORT}]
    )
    post = services.create_post(t.player, thread, body=LONG)
    session = services.open_session(t.gm, t.campaign, title=SHORT)
    sheet = valid_ambre_sheet(SHORT)
    sheet["background"] = LONG
    hero = character_services.create_character(t.player, t.campaign, name=SHORT, public_description=LONG)
    Character.objects.filter(pk=hero.pk).update(
        sheet=sheet, private_background=LONG, status="approved", gm_comment=LONG
    )
    hero.refresh_from_db()
    change = character_services.request_change(
        t.player, hero, sheet={**hero.sheet, "background": LONG + " 2"}, expected_version=hero.version, reason=LONG
    )
    character_services.comment_change(t.player, change, body=LONG)
    encounter = combat_services.create_encounter(t.gm, thread, title=SHORT)
    combat_services.add_participant(t.gm, encounter, character=hero)
    combat_services.add_participant(t.gm, encounter, name=SHORT[:60])
    moderation.report_target(t.player2, post=post, reason="spam", details=LONG)
    pages = [
        "/",
        "/campaigns/",
        f"/campaigns/{t.campaign.slug}/",
        f"/campaigns/{t.campaign.slug}/boards/{board.pk}/",
        f"/campaigns/threads/{thread.pk}/",
        f"/campaigns/sessions/{session.pk}/",
        f"/campaigns/{t.campaign.slug}/members/",
        f"/characters/campaign/{t.campaign.pk}/",
        f"/characters/{hero.pk}/",
        f"/characters/{hero.pk}/history/",
        f"/characters/changes/{change.pk}/",
        f"/combat/{encounter.pk}/",
    ]
    return {"table": t, "pages": pages}


def _logged_in(browser: Any, base: str, user: Any, locale: str) -> Any:
    """A browser context holding a session of ``user`` (made by Django's test client)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    context.add_init_script("window.__xss = [];")
    return context


def test_no_payload_executes_or_becomes_markup(asgi_server: Any, browser: Any) -> None:
    scene = _scene()
    context = _logged_in(browser, asgi_server.url, scene["table"].gm, "fr-FR")
    page = context.new_page()
    found: dict[str, Any] = {}
    for url in scene["pages"]:
        response = page.goto(asgi_server.url + url, wait_until="load")
        assert response is not None and response.status == 200, (url, response and response.status)
        page.wait_for_timeout(50)
        result = page.evaluate(PROBE)
        if result["bad"] or result["executed"]:
            found[url] = result
        # The payloads are shown as text (so the test really rendered them).
        if url.startswith("/campaigns/threads/"):
            assert "onerror" in page.locator("main").inner_text()
    context.close()
    moderator = _logged_in(browser, asgi_server.url, scene["table"].moderator, "en-GB")
    page = moderator.new_page()
    page.goto(asgi_server.url + "/moderation/", wait_until="load")
    result = page.evaluate(PROBE)
    if result["bad"] or result["executed"]:
        found["/moderation/"] = result
    moderator.close()
    assert found == {}
