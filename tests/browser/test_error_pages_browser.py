"""In a real browser, with DEBUG off under the ASGI server: the site's 404 and 500 pages, FR and EN."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("locale", "lang", "missing", "broken"),
    [
        ("fr-FR", "fr", "Page introuvable", "Une erreur est survenue"),
        ("en-GB", "en", "Page not found", "Something went wrong"),
    ],
)
def test_error_pages_are_the_site_s_in_both_languages(
    asgi_server: Any,
    browser: Any,
    screenshot_dir: Any,
    settings: Any,
    locale: str,
    lang: str,
    missing: str,
    broken: str,
) -> None:
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.test_production"  # the site's URLs plus /boom/ that raises
    for width, label in ((390, "phone"), (1280, "desktop")):
        context = browser.new_context(locale=locale, viewport={"width": width, "height": 800})
        page = context.new_page()
        response = page.goto(f"{asgi_server.url}/nulle-part/")
        assert response is not None and response.status == 404
        assert page.locator("html").get_attribute("lang") == lang
        assert page.locator("h1").inner_text() == missing
        assert page.locator(".site-header .brand").is_visible()
        page.screenshot(path=str(screenshot_dir / f"error-404-{lang}-{label}.png"), full_page=True)
        response = page.goto(f"{asgi_server.url}/boom/")
        assert response is not None and response.status == 500
        assert page.locator("html").get_attribute("lang") == lang
        assert page.locator("h1").inner_text() == broken
        assert page.get_by_role("link", name="Tablée").is_visible()
        page.screenshot(path=str(screenshot_dir / f"error-500-{lang}-{label}.png"), full_page=True)
        context.close()
