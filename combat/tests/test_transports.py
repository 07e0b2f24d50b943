"""What a player may see of an encounter, checked against every transport from one table of cases:
the page, its live fragment, the encounter API, the log API and the SSE stream.

A case fails if any transport leaks another player character's karma (Ambre: karma and gauges
give the secret attribute points away, L18), an NPC's stats, a GM-only input or the GM's notes.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from api.tests.conftest import token_client
from combat import services

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
KARMA = 4321
GM_MODIFIER = 613
NOTE = "NOTE-MJ-9911"


def _fight(fight):
    t = fight.table
    services.set_gm_notes(t.gm, fight.encounter, notes=NOTE)
    services.adjust_value(t.gm, fight.ariane, path="karma", value=KARMA, reason="karma du registre")
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(
        t.gm, fight.ariane, data={"action": "melee", "actor_modifier": GM_MODIFIER}, target=fight.borel
    )
    services.declare_action(t.gm, fight.borel, data={"action": "melee"}, target=fight.cendre)
    services.declare_action(t.player, fight.cendre, data={"action": "melee"}, target=fight.borel)
    services.reveal_declarations(t.gm, fight.encounter)
    services.resolve_round(t.gm, fight.encounter)
    return t


def _transports(user, fight) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    pk = fight.encounter.pk
    api = token_client(user)
    views = {
        "page": html.unescape(client.get(reverse("combat:detail", args=[pk])).content.decode()),
        "fragment": html.unescape(client.get(reverse("combat:live", args=[pk])).content.decode()),
        "api": json.dumps(api.get(f"/api/v1/encounters/{pk}/").json(), ensure_ascii=False),
        "api_log": json.dumps(api.get(f"/api/v1/encounters/{pk}/log/").json(), ensure_ascii=False),
    }
    # Timestamps hold any digits: they are not what a case looks for.
    return {name: TIMESTAMP.sub("", body) for name, body in views.items()}


#: (viewer, what they must not see, what they must see): one table for every transport.
CASES = [
    ("player", [str(KARMA), str(GM_MODIFIER), NOTE, "karma du registre"], ["Cendre", "Ariane", "Borel"]),
    ("spectator", [str(KARMA), str(GM_MODIFIER), NOTE], ["Cendre"]),
    ("player2", [str(GM_MODIFIER), NOTE], [str(KARMA)]),  # her own karma; not the GM's modifier
    ("gm", [], [str(KARMA), str(GM_MODIFIER), NOTE]),
]


@pytest.mark.parametrize(("who", "hidden", "shown"), CASES)
def test_every_transport_shows_a_viewer_the_same_things(fight, who, hidden, shown):
    t = _fight(fight)
    views = _transports(getattr(t, who), fight)
    for name, body in views.items():
        for secret in hidden:
            assert secret not in body, f"{name} shows {secret} to {who}"
    for transport in ("page", "api"):
        for text in shown:
            assert text in views[transport], f"{transport} hides {text} from {who}"


def test_another_pc_shows_no_karma_and_no_gauge_and_an_npc_no_stats(fight):
    t = _fight(fight)
    data = token_client(t.player).get(f"/api/v1/encounters/{fight.encounter.pk}/").json()
    by_name = {p["name"]: p for p in data["participants"]}
    assert "karma" not in by_name["Ariane"]["state"]
    assert "life_max" not in by_name["Ariane"]["state"] and "energy_max" not in by_name["Ariane"]["state"]
    assert by_name["Cendre"]["state"]["life_max"] == 75  # one's own character
    assert by_name["Borel"]["state"] is None and by_name["Borel"]["state_rows"] is None
    page = _transports(t.player, fight)["page"]
    assert "Ariane" in page and "65 / 65" in page  # Cendre's energy gauge, not Ariane's


def test_the_page_and_the_api_give_a_player_the_same_log(fight):
    t = _fight(fight)
    views = _transports(t.player, fight)
    log = json.loads(views["api_log"])["results"]
    assert log
    for entry in log:
        assert entry["sentence"] in views["page"]
        assert not entry["details"]  # the GMs' table
    assert views["page"].count("data-sequence=") - 1 == len(log)  # one line per entry (+ the panel)


def test_an_english_reader_reads_the_outcomes_in_english(fight):
    from accounts.models import Profile

    t = _fight(fight)
    Profile.objects.update_or_create(user=t.player, defaults={"language": "en"})
    views = _transports(t.player, fight)
    page = views["page"]
    assert "Cendre hits Borel:" in page or "Borel hits Cendre:" in page or "stalemate" in page
    for french in ("touche", "Règles", "blessure", "se neutralisent", "Déclarations révélées"):
        assert french not in page, french
