"""Ambre gauges that are sums of secret attribute points stay with their owner and the GMs (issue #19 item 1).

Life = Endurance + Physique + 50 (L402), energy = Psyché + Endurance + 50 (L404), minor keys =
(Mental + Volonté) / 4 (L440): another player seeing them would learn the true points (L18).
"""

from __future__ import annotations

from django.test import Client
from django.urls import reverse

from rules import get_system


def _page(user, fight):
    client = Client()
    client.force_login(user)
    response = client.get(reverse("combat:detail", args=[fight.encounter.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _api(user, fight):
    client = Client()
    client.force_login(user)
    response = client.get(f"/api/v1/encounters/{fight.encounter.pk}/")
    assert response.status_code == 200
    return {p["name"]: p for p in response.json()["participants"]}


def test_ambre_declares_its_gauges_private():
    assert {"life", "life_max", "energy", "energy_max", "keys", "karma"} <= get_system("ambre").private_state_keys()
    assert get_system("clefs-de-l-aube").private_state_keys() == frozenset(get_system("clefs-de-l-aube").currencies)


def test_another_player_sees_wounds_but_not_life_or_energy(fight):
    t = fight.table
    fight.ariane.refresh_from_db()
    assert fight.ariane.stats_visible
    seen = _api(t.player, fight)  # Cendre's player looks at Ariane
    assert set(seen["Ariane"]["state"]) & {"life", "life_max", "energy", "energy_max", "keys", "karma"} == set()
    assert "wounds" in seen["Ariane"]["state"]
    assert seen["Cendre"]["state"]["life"] == 75 and seen["Cendre"]["state"]["energy_max"] == 65
    assert _api(t.gm, fight)["Ariane"]["state"]["energy_max"] == fight.ariane.state["energy_max"]
    html, gm_html = _page(t.player, fight), _page(t.gm, fight)
    assert html.count("<dt>Énergie</dt>") == 1 and gm_html.count("<dt>Énergie</dt>") >= 3  # Cendre's own; GM: all


def test_the_public_log_keeps_ambre_gauges_out(fight):
    """Ariane's energy 40 → 20 would tell the table her Psyché + Endurance (L404)."""
    from combat import services
    from combat.models import LogEntry
    from combat.tests.test_ambre_fight import _declare_round_one

    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    _declare_round_one(fight)
    services.reveal_declarations(t.gm, fight.encounter)
    step = services.resolve_next_step(t.gm, fight.encounter, expected_step=0)
    assert [c["path"] for c in step.detail["changes"] if c["participant_id"] == str(fight.ariane.pk)] == ["energy"]
    for entry in LogEntry.objects.filter(encounter=fight.encounter):
        assert not [c for c in entry.public.get("changes", []) if c["path"].split(".")[0] in {"life", "energy"}]


def test_only_the_order_of_an_ambre_initiative_is_public(fight):
    """L416: the score is the Rapidité (or the Concentration) itself, a secret sheet value."""
    from combat import services
    from combat.tests.test_ambre_fight import _declare_round_one

    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    _declare_round_one(fight)
    services.reveal_declarations(t.gm, fight.encounter)
    client = Client()
    client.force_login(t.player)  # Cendre's player
    rows = client.get(f"/api/v1/encounters/{fight.encounter.pk}/").json()["round"]["initiative"]
    scores = {row["participant"]: row["score"] for row in rows}
    assert scores[fight.cendre.pk] == 15 and scores[fight.ariane.pk] is None and scores[fight.borel.pk] is None
    assert [row["participant"] for row in rows] == [fight.borel.pk, fight.ariane.pk, fight.cendre.pk]
    gm = Client()
    gm.force_login(t.gm)
    gm_rows = gm.get(f"/api/v1/encounters/{fight.encounter.pk}/").json()["round"]["initiative"]
    assert [row["score"] for row in gm_rows] == [25, 20, 15]
