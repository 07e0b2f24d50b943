"""The progression demo: a closed session with confirmed awards, idempotent."""

from __future__ import annotations

from typing import Any

import pytest

from characters import ledger
from characters.models import LedgerEntry
from conftest import make_user
from progression import demo
from progression.models import CharacterBalance, SessionAward, SessionReview

pytestmark = pytest.mark.django_db


def test_it_builds_a_closed_demo_session_with_awards(django_capture_on_commit_callbacks: Any) -> None:
    from campaigns import demo as campaigns_demo

    users = {name: make_user(name) for name in ("admin", "mj", "joueuse", "joueur")}
    context: dict[str, Any] = {"users": users}
    campaigns_demo.populate(context)
    with django_capture_on_commit_callbacks(execute=True):
        demo.populate(context)
    reviews = SessionReview.objects.filter(status="confirmed", session__title=demo.DEMO_TITLE)
    assert reviews.count() == 2
    altaride = context["campaigns"]["altaride"]
    balances = {b.character.name: b.balances for b in CharacterBalance.objects.filter(character__campaign=altaride)}
    assert balances == {"Ysolde": {"xp": 23}, "Garance": {"xp": 20}}
    counts = (SessionAward.objects.count(), LedgerEntry.objects.count())
    with django_capture_on_commit_callbacks(execute=True):
        demo.populate(context)
    assert (SessionAward.objects.count(), LedgerEntry.objects.count()) == counts
    llewella = altaride.characters.model.objects.get(name="Llewella")
    assert ledger.balances(llewella)["karma"] == 23
