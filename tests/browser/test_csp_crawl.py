"""Issue 18: the strict Content-Security-Policy holds on every page of the demo site.

A GM and a player crawl the demo in Chromium (every same-origin link, one page per
URL pattern and query shape), plus the API docs; the browser must report zero
``securitypolicyviolation`` events and zero CSP console errors, every HTML page must
carry the policy, and none may answer a server error.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.urls import Resolver404, resolve

from conftest import login

pytestmark = pytest.mark.browser

LISTEN = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  var where = " [" + (e.sample || "") + "] @" + e.sourceFile + ":" + e.lineNumber;
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + where);
});
"""
SKIP = re.compile(r"^/(accounts/logout|live/|media/|static/|admin/|api/v1/|api/schema/)|\.json$|/print/$")
MAX_PAGES = 60


def _shape(path: str, query: str) -> str:
    try:
        route = resolve(path).route
    except Resolver404:
        route = path
    keys = sorted(part.split("=")[0] for part in query.split("&") if part)
    return route + "?" + "&".join(keys)


def crawl(page: Any, base: str, starts: list[str], budget: int = MAX_PAGES) -> tuple[int, list[str], list[str]]:
    problems: list[str] = []
    console: list[str] = []
    page.on(
        "console",
        lambda msg: console.append(msg.text) if msg.type == "error" and "Content Security Policy" in msg.text else None,
    )
    seen_shapes: set[str] = set()
    queue = deque(starts)
    visited = 0
    while queue and visited < budget:
        url = queue.popleft()
        parts = urlsplit(url)
        shape = _shape(parts.path, parts.query)
        if shape in seen_shapes:
            continue
        seen_shapes.add(shape)
        try:
            response = page.goto(base + url, wait_until="load")
        except Exception as exc:  # a download (an export) is no page
            if "Download is starting" in str(exc):
                continue
            raise
        visited += 1
        if response is None:
            continue
        if response.status >= 500:
            problems.append(f"{url}: HTTP {response.status}")
        if "text/html" in (response.headers.get("content-type") or ""):
            if "script-src 'self'" not in (response.headers.get("content-security-policy") or ""):
                problems.append(f"{url}: no Content-Security-Policy")
        page.wait_for_timeout(400 if "/api/" in url else 60)  # violation events are dispatched asynchronously
        for violation in page.evaluate("window.__csp || []"):
            problems.append(f"{url}: {violation}")
        hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
        for href in hrefs:
            if not href or href.startswith(("#", "mailto:", "javascript:")):
                continue
            if href.startswith(base):
                href = href[len(base) :]
            if not href.startswith("/") or href.startswith("//"):
                continue
            href = href.split("#")[0]
            if SKIP.search(urlsplit(href).path):
                continue
            queue.append(href)
    return visited, problems, console


def test_the_demo_site_reports_no_csp_violation(asgi_server: Any, browser: Any) -> None:
    from django.core.management import call_command

    call_command("demo", stdout=open("/dev/null", "w"))
    total = 0
    for username, locale, budget in (("mj", "fr-FR", MAX_PAGES), ("joueur", "en-GB", 15)):
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
        context.add_init_script(LISTEN)
        page = context.new_page()
        login(page, asgi_server.url, username, "tablee-demo")
        visited, problems, console = crawl(
            page,
            asgi_server.url,
            ["/", "/campaigns/", "/characters/", "/api/docs/", "/api/redoc/", "/api/tokens/"],
            budget,
        )
        total += visited
        assert problems == [], (username, "\n".join(problems))
        assert console == [], (username, console)
        context.close()
    assert total >= 40
