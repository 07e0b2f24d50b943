"""The demo fight: created once, in the Ambre demo campaign, mid-fight."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from combat.models import Encounter, LogEntry


def test_the_demo_shows_a_fight_and_is_idempotent(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("demo", stdout=StringIO())
    call_command("demo", stdout=StringIO())
    encounter = Encounter.objects.get()
    assert encounter.campaign.system == "ambre" and encounter.status == "active" and encounter.round_number == 2
    assert LogEntry.objects.filter(encounter=encounter, kind="step").count() == 3
    borel = encounter.participants.get(name="Borel")
    assert borel.state["life"] < borel.state["life_max"] and not borel.stats_visible  # hit, GM-only stats
    first = encounter.rounds.get(number=1)
    assert first.summary_post_id is not None
