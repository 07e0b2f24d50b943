"""In a real browser: the GM sees a run a killed worker left as "interrompu — relancé", then done."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from characters import ledger
from conftest import make_table
from progression import services
from progression.models import RecalculationRun
from progression.tests.conftest import make_character, make_session
from progression.tests.test_browser import _login

pytestmark = pytest.mark.browser


def test_the_gm_sees_the_interrupted_run_resume(
    asgi_server: Any, browser: Any, screenshot_dir: Any, monkeypatch: Any
) -> None:
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    table = make_table("ambre", prefix="i")
    hero = make_character(table, table.player, "Ysolde")
    ledger.append_entry(hero, "karma", 20, "creation_budget")
    session = make_session(table)
    entries = {hero.pk: {"present": True, "facts": {}, "amounts": {}, "suggested": {}, "extra": 3}}
    with monkeypatch.context() as m:
        m.setattr(services.runs, "enqueue", lambda run_id: True)
        run = services.confirm_session_awards(table.gm, session, entries=entries)
        old = timezone.now() - timedelta(minutes=10)
        RecalculationRun.objects.filter(pk=run.pk).update(
            status="running", heartbeat_at=old, enqueued_at=old, lease="x"
        )
        services.sweep_stale_runs()  # found dead, re-sent (the message is held back here)
    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
    page = context.new_page()
    _login(page, asgi_server.url, table.gm)
    page.goto(f"{asgi_server.url}/progression/sessions/{session.pk}/awards/")
    pill = page.locator("#run-progress [data-status=interrupted]")
    assert pill.inner_text() == "interrompu — relancé"
    page.screenshot(path=str(screenshot_dir / "progression-run-interrupted-phone.png"), full_page=False)
    services.run_recalculation(run.pk)  # the worker picks it up
    page.wait_for_selector("#run-progress [data-status=done]", timeout=15000)
    assert "Terminé après une interruption." in page.inner_text("#run-progress")
    assert ledger.balances(hero)["karma"] == 23
    context.close()
