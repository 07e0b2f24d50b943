"""Combat state and log changes read in the viewer's language, not as raw keys or Python dicts."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from combat.presenters import _readable_changes, state_rows
from rules import get_system

pytestmark = pytest.mark.django_db


def _ambre(lang: str) -> dict[str, str]:
    """Ambre's words for its combat values (what ``presenters._labels`` reads from the system)."""
    return {key: label.get(lang) for key, label in get_system("ambre").combat_value_labels().items()}


def test_it_names_the_ambre_state_in_french(fight):
    client = Client()
    client.force_login(fight.table.gm)
    html = client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert ">Clés mineures<" in html and ">keys<" not in html  # the system's word (L440)
    assert "éterminé" in html and ">determined<" not in html


def test_it_writes_log_changes_readably():
    changes = [
        {"name": "Borel", "path": "wounds", "before": {"light": 0, "serious": 0}, "after": {"light": 1, "serious": 0}},
        {"name": "Borel", "path": "wounds.light", "before": 0, "after": 1},
        {"name": "Borel", "path": "dead", "before": False, "after": True},
    ]
    with translation.override("fr"):
        rows = _readable_changes(_ambre("fr"), changes)
    assert [(r["path"], r["before"], r["after"]) for r in rows] == [
        ("Blessures", "légères 0, sérieuses 0", "légères 1, sérieuses 0"),
        ("Blessures légères", "0", "1"),
        ("Mort", "—", "✓"),
    ]
    with translation.override("fr"):
        assert _readable_changes({}, changes[2:])[0]["path"] == "mort"  # the combat app's own word
    with translation.override("en"):
        assert _readable_changes(_ambre("en"), changes[:1])[0]["after"] == "light 1, serious 0"


def test_it_names_ambre_wounds_as_the_text_does():
    """Issue #19 item 4: L425–L428 "légère / sérieuse / grave / mortelle", not "graves / critiques"."""
    state = {"wounds": {"light": 1, "serious": 1, "grave": 1, "mortal": 1}}
    with translation.override("fr"):
        (row,) = state_rows(state, _ambre("fr"))
    assert row["value"] == "légères 1, sérieuses 1, graves 1, mortelles 1"
    with translation.override("en"):
        assert state_rows(state, _ambre("en"))[0]["value"] == "light 1, serious 1, grave 1, mortal 1"


def test_it_keeps_unknown_keys_humanized_and_declared_labels_first():
    with translation.override("fr"):
        rows = state_rows({"life": 3, "life_max": 5, "odd_counter": 2, "keys": 4}, {"life": "Vie", "keys": "Clés"})
    assert [r["label"] for r in rows] == ["Vie", "odd counter", "Clés"]


def test_it_marks_a_players_own_participant_in_the_masculine(fight):
    client = Client()
    client.force_login(fight.table.player)
    html = client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert "· le vôtre" in html and "la vôtre" not in html


def test_the_gms_details_are_labelled_values_not_engine_tags(fight):
    from combat import services
    from combat.models import LogEntry

    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(t.gm, fight.borel, data={"action": "psychic", "target_mode": "melee"}, target=fight.ariane)
    services.declare_action(
        t.player, fight.cendre, data={"action": "melee", "target_mode": "melee"}, target=fight.borel
    )
    services.declare_action(
        t.player2, fight.ariane, data={"action": "melee", "target_mode": "melee"}, target=fight.cendre
    )
    services.reveal_declarations(t.gm, fight.encounter)
    services.resolve_next_step(t.gm, fight.encounter, expected_step=0)
    tags = [
        tag
        for e in LogEntry.objects.filter(encounter=fight.encounter)
        for tag in (e.detail.get("result") or {}).get("tags", [])
    ]
    assert tags  # the engine tagged the step
    url = reverse("combat:detail", args=[fight.encounter.pk])
    player, gm = Client(), Client()
    player.force_login(t.player)
    gm.force_login(t.gm)
    assert 'class="tag"' not in player.get(url).content.decode()
    gm_html = gm.get(url).content.decode()
    # The GMs' details are a table of labelled values: no engine tag, no dict dump.
    assert f'<code class="tag">{tags[0]}</code>' not in gm_html and "{&#x27;" not in gm_html
    assert '<table class="details">' in gm_html and '<th scope="row">Règles</th>' in gm_html


def test_it_links_the_campaign_in_the_breadcrumbs(fight):
    client = Client()
    client.force_login(fight.table.player)
    link = f'<a href="/campaigns/{fight.table.campaign.slug}/">'
    assert link in client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert link in client.get(reverse("combat:thread", args=[fight.thread.pk])).content.decode()


def test_it_names_a_state_value_in_the_system_s_words():
    """Issue #23 item 4: "État : active" read "État : Actif" (SMS ``status.active``), in each language."""
    labels = {key: label.get("fr") for key, label in get_system("sms").combat_value_labels().items()}
    with translation.override("fr"):
        (row,) = state_rows({"status": "active"}, labels)
        assert (row["label"], row["value"]) == ("État", "Actif")
        change = {"name": "Brock", "path": "status", "before": "active", "after": "dying"}
        assert _readable_changes(labels, [change])[0]["after"] == "Mourant"
    labels = {key: label.get("en") for key, label in get_system("sms").combat_value_labels().items()}
    with translation.override("en"):
        assert state_rows({"status": "out_of_combat"}, labels)[0]["value"] == "Out of combat"


def test_a_side_reads_in_each_language_in_the_log():
    from combat.services.common import _side_label, both

    text = both("%(n)s joins the fight (%(s)s).", n="Brock", s=_side_label("allies"))
    assert text["fr"].endswith("(alliés).") and text["en"] == "Brock joins the fight (allies)."
