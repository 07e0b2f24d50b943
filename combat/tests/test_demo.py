"""The demo fight: created once, in the Ambre demo campaign, mid-fight."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from combat.models import Encounter, LogEntry


def test_the_demo_shows_a_fight_and_is_idempotent(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("demo", stdout=StringIO())
    call_command("demo", stdout=StringIO())
    encounter = Encounter.objects.get(campaign__system="ambre")
    assert encounter.campaign.system == "ambre" and encounter.status == "active" and encounter.round_number == 2
    assert LogEntry.objects.filter(encounter=encounter, kind="step").count() == 3
    borel = encounter.participants.get(name="Borel")
    assert borel.state["life"] < borel.state["life_max"] and not borel.stats_visible  # hit, GM-only stats
    first = encounter.rounds.get(number=1)
    assert first.summary_post_id is not None


def test_the_demo_has_a_fight_in_progress_in_every_campaign(db, settings):
    from campaigns.dice import verify_chain
    from characters.models import SheetVersion

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("demo", stdout=StringIO())
    call_command("demo", stdout=StringIO())
    encounters = list(Encounter.objects.all())
    assert sorted(e.campaign.system for e in encounters) == ["altaride", "ambre", "clefs-de-l-aube", "sms"]
    for encounter in encounters:
        assert encounter.status == "active" and encounter.round_number == 2
        assert encounter.participants.filter(is_npc=True).exists()
        assert encounter.participants.filter(is_npc=False, character__isnull=False).exists()
        steps = LogEntry.objects.filter(encounter=encounter, kind="step")
        assert steps.exists() and all(s.public["text"]["fr"] for s in steps)
        carried = LogEntry.objects.filter(encounter=encounter, kind="carried").first()
        if encounter.campaign.system == "clefs-de-l-aube" and carried is None:
            continue  # fair dice: the Keeper's handicap lands most of the time, not always
        assert carried is not None, encounter.campaign.system  # a wound carried to a sheet
        version = SheetVersion.objects.get(character_id=carried.detail["character"], version=carried.detail["version"])
        assert f"combat n° {encounter.pk}" in version.reason
        ok, problems = verify_chain(encounter.campaign)  # every combat die is a fair, chained roll
        assert ok, problems
