"""The token page in a real browser (phone and desktop widths)."""

from __future__ import annotations

from typing import Any

import pytest

from api.models import ApiToken
from conftest import login, make_user


@pytest.mark.browser
def test_it_creates_and_revokes_a_token_in_the_browser(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    from allauth.account.models import EmailAddress

    user = make_user("alice")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        login(page, asgi_server.url, "alice", "pw-alice-12345")
        page.goto(f"{asgi_server.url}/profile/")
        page.click("a[href='/api/tokens/']")
        page.fill("input[name=name]", f"bot {name}")
        page.click("form.form button[type=submit]")
        key = page.inner_text("#new-key")
        assert key.startswith("tbl_")
        page.screenshot(path=str(screenshot_dir / f"api-tokens-{name}.png"), full_page=True)
        page.click(f"button[aria-label='Révoquer le jeton bot {name}']")
        page.wait_for_load_state("networkidle")
        assert "révoqué le" in page.content()
        context.close()
    assert ApiToken.objects.filter(revoked_at__isnull=False).count() == 2
