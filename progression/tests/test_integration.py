"""With the campaigns app: closing a session starts the job; per-session limits reset."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from campaigns import services as campaign_services
from characters import ledger
from progression import services
from progression.models import CharacterBalance, RecalculationRun, SessionReview
from progression.tests.conftest import make_character

pytestmark = pytest.mark.django_db


def test_it_starts_the_job_when_the_gm_closes_a_session(table: Any, django_capture_on_commit_callbacks: Any) -> None:
    alice = make_character(table, table.player, "Alice")
    ledger.append_entry(alice, "karma", 12, "gm_award")
    session = campaign_services.open_session(table.gm, table.campaign, title="Prologue")
    with django_capture_on_commit_callbacks(execute=True):
        campaign_services.close_session(table.gm, session)
    review = SessionReview.objects.get(session=session)
    assert review.status == "pending"
    run = RecalculationRun.objects.get(session=session)
    assert (run.status, run.reason, run.done) == ("done", "session_closed", 1)
    assert CharacterBalance.objects.get(character=alice).balances == {"karma": 12}


def test_it_resets_altaride_per_session_limits_with_a_new_session(
    altaride_table: Any, django_capture_on_commit_callbacks: Any
) -> None:
    table = altaride_table
    hero = make_character(table, table.player, "Héros")
    ledger.append_entry(hero, "xp", 200, "gm_award")
    first = campaign_services.open_session(table.gm, table.campaign)
    request = {"kind": "talent", "talent": "HAB"}
    purchase = services.request_purchase(table.player, hero, request=request)
    services.decide_purchase(table.gm, purchase, approve=True)
    assert ledger.balances(hero)["xp"] == 170
    with pytest.raises(ValidationError) as info:
        services.request_purchase(table.player, hero, request=request)
    assert "une fois par séance" in info.value.message_dict["talent"][0]
    with django_capture_on_commit_callbacks(execute=True):
        campaign_services.close_session(table.gm, first)
    campaign_services.open_session(table.gm, table.campaign)
    again = services.request_purchase(table.player, hero, request=request)
    services.decide_purchase(table.gm, again, approve=True)
    hero.refresh_from_db()
    assert hero.sheet["talents"]["HAB"] == 7
    assert ledger.balances(hero)["xp"] < 170


def test_it_refuses_purchases_beyond_the_balance_and_by_others(altaride_table: Any) -> None:
    from django.http import Http404

    table = altaride_table
    hero = make_character(table, table.player, "Héros")
    ledger.append_entry(hero, "xp", 5, "gm_award")
    with pytest.raises(ValidationError):
        services.request_purchase(table.player, hero, request={"kind": "talent", "talent": "HAB"})
    with pytest.raises(Http404):
        services.request_purchase(table.player2, hero, request={"kind": "talent", "talent": "HAB"})
    assert hero.purchase_requests.count() == 0
