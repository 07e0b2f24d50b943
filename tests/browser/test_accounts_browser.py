"""In a real browser: sign up, confirm the e-mail, log in, switch language."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from conftest import login

pytestmark = pytest.mark.browser


def test_it_signs_up_logs_in_and_switches_language(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
    page = context.new_page()
    base = asgi_server.url

    # Bad input first: field-level errors in French, nothing created.
    page.goto(f"{base}/accounts/signup/")
    assert page.locator("html").get_attribute("lang") == "fr"
    # Server-side validation is what we test: skip the browser's own checks.
    page.evaluate("document.querySelectorAll('form').forEach(f => f.noValidate = true)")
    page.fill("input[name=email]", "pas-une-adresse")
    page.fill("input[name=username]", "iris")
    page.fill("input[name=password1]", "court")
    page.fill("input[name=password2]", "court")
    page.click("main form button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert page.locator(".has-error #id_email").count() == 1
    assert "Saisissez une adresse e-mail valide" in page.locator(".errorlist").first.inner_text()
    page.screenshot(path=str(screenshot_dir / "signup-errors-phone.png"), full_page=True)

    # A good sign-up sends a confirmation e-mail.
    page.fill("input[name=email]", "iris@example.test")
    page.fill("input[name=password1]", "une-phrase-longue-42")
    page.fill("input[name=password2]", "une-phrase-longue-42")
    page.click("main form button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert len(mail.outbox) == 1
    link = re.search(r"http://\S+/accounts/confirm-email/\S+/", mail.outbox[0].body).group(0)
    page.goto(base + "/accounts/" + link.split("/accounts/", 1)[1])
    page.click("main form button[type=submit]")
    page.wait_for_load_state("networkidle")

    # Log out, then log in through the form.
    page.goto(f"{base}/accounts/logout/")
    page.click("main form button[type=submit]")
    page.wait_for_load_state("networkidle")
    login(page, base, "iris", "une-phrase-longue-42")
    page.goto(f"{base}/profile/")
    assert page.locator("h1").inner_text() == "Mon profil"

    # Switch the interface to English from the profile.
    page.select_option("main select[name=language]", "en")
    page.click("main form.form button[type=submit]")
    page.wait_for_load_state("networkidle")
    assert page.locator("h1").inner_text() == "My profile"
    assert page.locator("html").get_attribute("lang") == "en"
    page.goto(f"{base}/")
    assert "Welcome to Tablée" in page.content()
    context.set_default_timeout(5000)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(screenshot_dir / "home-en-desktop.png"), full_page=True)
    context.close()


def test_anonymous_visitors_can_switch_language_from_the_header(
    asgi_server: Any, browser: Any, screenshot_dir: Any
) -> None:
    context = browser.new_context(locale="fr-FR")
    page = context.new_page()
    page.goto(f"{asgi_server.url}/")
    assert "Bienvenue sur Tablée" in page.content()
    page.screenshot(path=str(screenshot_dir / "home-fr-desktop.png"), full_page=True)
    with page.expect_navigation():
        page.select_option("#lang-select", "en")
    page.wait_for_load_state("networkidle")
    assert "Welcome to Tablée" in page.content()
    context.close()


def test_the_demo_site_works_in_a_browser(asgi_server: Any, browser: Any, screenshot_dir: Any) -> None:
    from django.core.management import call_command

    call_command("demo", stdout=open("/dev/null", "w"))
    context = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    login(page, asgi_server.url, "mj", "tablee-demo")
    page.goto(f"{asgi_server.url}/")
    text = page.locator("main").inner_text()
    for title in ("Les Ombres de Rebma", "La Porte d'Orient", "Les Chemins de Loreval", "Le Mythe éveillé"):
        assert title in text
    page.screenshot(path=str(screenshot_dir / "demo-home-gm.png"), full_page=True)
    context.close()
