"""Real browser on the demo site: sheet pages fit a 390 px phone for one
character of each system (French and English), and axe-core (vendored from
its npm package, tests/browser/vendor/axe.min.js) finds no serious or
critical violation on the main pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"


def _demo() -> dict[str, Any]:
    from campaigns.models import Thread
    from characters.models import Character
    from combat.models import Encounter
    from systems.ambre.models import Auction

    call_command("demo", stdout=open("/dev/null", "w"))
    approved = {
        c.system: c for c in Character.objects.filter(status="approved", is_npc=False, owner__username="joueuse")
    }
    draft = Character.objects.filter(status="draft", owner__username="joueuse").order_by("pk").first()
    return {
        "sheets": approved,
        "draft": draft,
        "thread": Thread.objects.filter(board__campaign__system="ambre").order_by("pk").first(),
        "auction": Auction.objects.order_by("pk").first(),
        "encounter": Encounter.objects.order_by("pk").first(),
    }


def _page(browser: Any, server: Any, username: str, width: int, lang: str) -> Any:
    # ``bypass_csp``: the site's strict CSP (#18) refuses the inline script Playwright injects axe-core with.
    context = browser.new_context(
        viewport={"width": width, "height": 900}, locale=f"{lang}-{lang.upper()}", bypass_csp=True
    )
    page = context.new_page()
    from django.contrib.auth import get_user_model

    profile = get_user_model().objects.get(username=username).profile
    profile.language = lang
    profile.save()
    login(page, server.url, username, "tablee-demo")
    return page


def _serious(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    out = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = ", ".join(str(n["target"]) for n in v["nodes"][:3])
            out.append(f"{v['id']} ({v['impact']}): {v['help']} — {targets}")
    return out


#: Terms and values of the sheet's lists whose text is wider than their box (drawn over the neighbour).
OVERLAPS = """() => {
  const out = [];
  document.querySelectorAll('.sheet dl dt, .sf-layout-sheet dl dt').forEach(dt => {
    const dd = dt.nextElementSibling;
    if (!dd || dd.tagName !== 'DD') return;
    const a = dt.getBoundingClientRect(), c = dd.getBoundingClientRect();
    if (dt.scrollWidth > a.width + 1 || dd.scrollWidth > c.width + 1) out.push(dt.textContent.trim());
  });
  return out;
}"""


def test_it_fits_every_system_sheet_on_a_phone_in_french_and_english(
    asgi_server: Any, browser: Any, screenshot_dir: Any
) -> None:
    demo = _demo()
    assert set(demo["sheets"]) == {"ambre", "clefs-de-l-aube", "sms", "altaride"}
    widths: dict[str, int] = {}
    for lang, username in (("fr", "mj"), ("en", "joueuse")):
        for width in (390, 1280):
            page = _page(browser, asgi_server, username, width, lang)
            for system, character in demo["sheets"].items():
                page.goto(f"{asgi_server.url}/characters/{character.pk}/")
                page.wait_for_selector(".sheet-hero h1")
                assert page.inner_text(".sheet-hero h1") == character.name
                assert page.locator(".sheet-headline .sheet-stat").count() >= 3, system
                if system == "clefs-de-l-aube":  # aspects raised by skills: the stored value on tap
                    page.locator(".sheet-headline .prov").first.focus()
                    assert page.locator(".sheet-headline .prov-tip").first.is_visible()
                widths[f"{system} {lang} {width}"] = page.evaluate("document.documentElement.scrollWidth")
                # No label or value spills over its neighbour in a narrow card (labels and values stay readable).
                spills = page.evaluate(OVERLAPS)
                assert not spills, (system, lang, width, spills)
                page.screenshot(path=str(screenshot_dir / f"sheet-{system}-{lang}-{width}.png"), full_page=True)
            page.context.close()
    too_wide = {k: w for k, w in widths.items() if w > int(k.rsplit(" ", 1)[1])}
    assert not too_wide, too_wide
    # The print view fits one A4 page for each system.
    page = _page(browser, asgi_server, "joueuse", 1280, "fr")
    pages = {}
    for system, character in demo["sheets"].items():
        page.goto(f"{asgi_server.url}/characters/{character.pk}/print/")
        pdf = page.pdf(format="A4")
        pages[system] = int(re.search(rb"/Count (\d+)", pdf).group(1))
    page.context.close()
    assert pages == dict.fromkeys(demo["sheets"], 1), pages


def test_axe_finds_no_serious_violation_on_the_main_pages(asgi_server: Any, browser: Any) -> None:
    demo = _demo()
    pages = {
        "thread": f"/campaigns/threads/{demo['thread'].pk}/",
        "sheet": f"/characters/{demo['sheets']['sms'].pk}/",
        "wizard": f"/characters/{demo['draft'].pk}/wizard/",
        "auction": f"/characters/auctions/{demo['auction'].pk}/",
        "encounter": f"/combat/{demo['encounter'].pk}/",
    }
    report: list[str] = []
    for width in (390, 1280):
        page = _page(browser, asgi_server, "joueuse", width, "fr")
        for name, path in pages.items():
            page.goto(asgi_server.url + path)
            page.wait_for_load_state("load")
            report += [f"{name} @{width}: {v}" for v in _serious(page)]
        page.context.close()
    assert not report, "\n".join(report)
