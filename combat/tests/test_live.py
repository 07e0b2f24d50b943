"""Live events: published inside the service's transaction, sent after
commit, carrying only ids; with Redis down, actions still save."""

from __future__ import annotations

import pytest

from combat import services
from combat.models import LogEntry
from live.hub import hub
from live.models import LiveEvent


def test_each_write_publishes_an_id_only_event_after_commit(fight, django_capture_on_commit_callbacks):
    t = fight.table
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        entry = services.adjust_value(t.gm, fight.cendre, path="determined", value=False, reason="Chute")
    assert len(callbacks) == 1  # the notification waits for the commit
    event = LiveEvent.objects.filter(channel=f"encounter:{fight.encounter.pk}").latest("id")
    assert event.kind == "combat-updated" and event.data == {"sequence": entry.sequence, "round": 0}
    assert event.audience == {}


def test_gm_only_entries_publish_gm_only_events(fight):
    entry = services.adjust_value(fight.table.gm, fight.borel, path="life", value=50, reason="x")
    event = LiveEvent.objects.filter(channel=f"encounter:{fight.encounter.pk}").latest("id")
    assert entry.gm_only and event.audience == {"gms_only": True}


def test_round_changes_also_refresh_the_declaration_panels(fight):
    services.start_encounter(fight.table.gm, fight.encounter)
    kinds = list(LiveEvent.objects.filter(channel=f"encounter:{fight.encounter.pk}").values_list("kind", flat=True))
    assert kinds[-1] == "combat-round" and "combat-updated" in kinds


@pytest.mark.django_db(transaction=True)
def test_actions_still_save_when_redis_is_down(table, settings):
    from combat.tests.test_visibility import _make_fight

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    fight = _make_fight(table)
    settings.LIVE_BACKEND = "redis"
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    hub._redis_sync = None
    try:
        services.start_encounter(table.gm, fight.encounter)
        services.declare_action(table.player, fight.cendre, data={"action": "melee"}, target=fight.borel)
        services.reveal_declarations(table.gm, fight.encounter)
        entry = services.resolve_next_step(table.gm, fight.encounter)
    finally:
        hub._redis_sync = None
    assert LogEntry.objects.filter(pk=entry.pk).exists()
    fight.borel.refresh_from_db()
    assert fight.borel.state["life"] == 5
    # Reconnecting browsers catch up from the stored events (Last-Event-ID).
    assert LiveEvent.objects.filter(channel=f"encounter:{fight.encounter.pk}", data__sequence=entry.sequence).exists()


def test_the_page_polls_when_the_stream_is_unavailable(fight):
    from django.test import Client
    from django.urls import reverse

    client = Client()
    client.force_login(fight.table.player)
    html = client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert f'sse-connect="/live/encounter/{fight.encounter.pk}/"' in html
    assert 'hx-trigger="sse:combat-updated, every 15s"' in html
    assert 'hx-trigger="sse:combat-round, every 30s"' in html
