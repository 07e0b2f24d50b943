"""Players never receive NPC stats, hidden declarations or GM-only notes:
not in the HTML pages, not in the fragments, not in the SSE stream."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import AsyncClient, Client
from django.urls import reverse

from combat import services
from combat.models import LogEntry

SECRET_NOTE = "NOTE-SECRETE-DU-MJ-4242"
SECRET_PLAN = "PLAN-SECRET-ARIANE-77"
GM_MODIFIER = 613


def _setup(fight):
    t = fight.table
    services.set_gm_notes(t.gm, fight.encounter, notes=SECRET_NOTE)
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(t.player2, fight.ariane, data={"action": "melee", "note": SECRET_PLAN}, target=fight.cendre)
    # The GM modifier is the GM's input (Field.audience "gm"), added to Ariane's declaration.
    services.declare_action(
        t.gm,
        fight.ariane,
        data={"action": "melee", "note": SECRET_PLAN, "actor_modifier": GM_MODIFIER},
        target=fight.cendre,
    )
    services.declare_action(
        t.gm, fight.borel, data={"action": "psychic", "note": "Borel vise Ariane"}, target=fight.ariane
    )
    services.declare_action(t.player, fight.cendre, data={"action": "melee"}, target=fight.borel)


def _page(client, user, fight, name="combat:detail"):
    client.force_login(user)
    response = client.get(reverse(name, args=[fight.encounter.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_players_do_not_see_hidden_declarations_or_gm_notes(fight):
    _setup(fight)
    t = fight.table
    html = _page(Client(), t.player, fight)
    assert SECRET_PLAN not in html and SECRET_NOTE not in html and "Borel vise Ariane" not in html
    # The owner sees their own declaration; the GM sees everything.
    assert SECRET_PLAN in _page(Client(), t.player2, fight)
    gm_html = _page(Client(), t.gm, fight)
    assert SECRET_PLAN in gm_html and SECRET_NOTE in gm_html and "Borel vise Ariane" in gm_html


def test_revealed_declarations_show_without_gm_numbers(fight):
    _setup(fight)
    t = fight.table
    services.reveal_declarations(t.gm, fight.encounter)
    html = _page(Client(), t.player, fight)
    assert SECRET_PLAN in html  # revealed, as at the table
    assert str(GM_MODIFIER) not in html
    assert SECRET_NOTE not in html


def test_players_never_get_npc_stats(fight):
    _setup(fight)
    t = fight.table
    services.reveal_declarations(t.gm, fight.encounter)
    services.resolve_round(t.gm, fight.encounter)
    for user in (t.player, t.player2, t.spectator):
        for name in ("combat:detail", "combat:live"):
            html = _page(Client(), user, fight, name)
            # Borel's Concentration (25) as initiative score, his life gauge (5 / 55), the
            # rules' numbers of his exchanges and his derived levels are GM-only.
            assert "5 / 55" not in html
            assert "(25)" not in html
            assert "dégâts bruts 70" not in html
            assert "attack_level" not in html and "melee_level" not in html
            assert "État connu du MJ seul." in html
    gm_html = _page(Client(), t.gm, fight)
    assert "5 / 55" in gm_html and "dégâts bruts 70" in gm_html


def test_the_public_log_keeps_npc_values_out(fight):
    _setup(fight)
    t = fight.table
    services.reveal_declarations(t.gm, fight.encounter)
    services.resolve_round(t.gm, fight.encounter)
    borel = str(fight.borel.pk)
    npc_steps = 0
    for entry in LogEntry.objects.filter(encounter=fight.encounter, gm_only=False):
        for change in entry.public.get("changes", []):
            assert change["participant_id"] != borel
        if entry.kind == "step" and (
            entry.participant_id == fight.borel.pk or entry.detail["target"] == fight.borel.pk
        ):
            npc_steps += 1
            dumped = json.dumps(entry.public)
            assert "outcome" not in entry.public and "attack_level" not in dumped and "resistance" not in dumped
            assert entry.detail["result"]["outcome"]["winner"]  # the GMs keep the full record
    assert npc_steps == 2


def test_showing_an_npc_state_opens_it(fight):
    t = fight.table
    services.set_stats_visible(t.gm, fight.borel, visible=True)
    html = _page(Client(), t.player, fight)
    assert "55 / 55" in html


def _read_stream(user, fight, last_event_id: int) -> str:
    async def run() -> str:
        client = AsyncClient()
        await client.aforce_login(user)
        response = await client.get(
            reverse("live:stream", args=["encounter", fight.encounter.pk]), {"last_event_id": str(last_event_id)}
        )
        assert response.status_code == 200
        chunks = []
        iterator = response.streaming_content.__aiter__()
        while True:
            chunk = await asyncio.wait_for(iterator.__anext__(), timeout=5)
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith(": keep-alive"):
                break  # the catch-up is over
            chunks.append(text)
        await iterator.aclose()
        return "".join(chunks)

    # In a thread of its own: a session-wide Playwright loop may be running in this one.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result(timeout=60)


@pytest.mark.django_db(transaction=True)
def test_the_sse_stream_carries_nothing_a_player_may_not_see(table, settings):
    from combat.tests.conftest import Fight

    settings.LIVE_KEEPALIVE_SECONDS = 0.3
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    fight = _make_fight(table)
    _setup(fight)
    t = fight.table
    services.adjust_value(t.gm, fight.borel, path="life", value=50, reason="Blessure ancienne")  # GM-only entry
    services.reveal_declarations(t.gm, fight.encounter)
    services.resolve_round(t.gm, fight.encounter)
    player_stream = _read_stream(t.player, fight, 1)
    gm_stream = _read_stream(t.gm, fight, 1)
    for secret in (SECRET_PLAN, SECRET_NOTE, "Borel vise Ariane", "Blessure ancienne", "dégâts", "life", "energy"):
        assert secret not in player_stream
    events = [json.loads(line[6:]) for line in player_stream.splitlines() if line.startswith("data: ")]
    assert events and all(set(e) <= {"id", "sequence", "round"} for e in events)
    gm_only = LogEntry.objects.get(encounter=fight.encounter, gm_only=True, kind="adjust")
    player_sequences = {e["sequence"] for e in events if "sequence" in e}
    gm_sequences = {
        json.loads(line[6:]).get("sequence") for line in gm_stream.splitlines() if line.startswith("data: ")
    }
    assert gm_only.sequence in gm_sequences and gm_only.sequence not in player_sequences
    assert isinstance(Fight, type)


def _make_fight(table):
    from combat.tests.conftest import Fight, ambre_sheet, make_character, make_thread

    thread = make_thread(table.campaign, table.gm)
    encounter = services.create_encounter(table.gm, thread, title="Embuscade")
    c_char = make_character(table.campaign, table.player, "Cendre", ambre_sheet("Cendre"))
    a_char = make_character(table.campaign, table.player2, "Ariane", ambre_sheet("Ariane"))
    (cendre,) = services.add_participant(table.gm, encounter, character=c_char, side="allies")
    (ariane,) = services.add_participant(table.gm, encounter, character=a_char, side="allies")
    sheet = ambre_sheet("Borel")
    (borel,) = services.add_participant(
        table.gm,
        encounter,
        name="Borel",
        side="opponents",
        sheet={"attributes": sheet["attributes"], "characteristics": sheet["characteristics"]},
    )
    encounter.refresh_from_db()
    return Fight(table, thread, encounter, cendre, ariane, borel)


def test_the_stream_and_pages_answer_404_to_outsiders(fight):
    client = Client()
    client.force_login(fight.table.outsider)
    for url in (
        reverse("combat:detail", args=[fight.encounter.pk]),
        reverse("combat:live", args=[fight.encounter.pk]),
        reverse("live:stream", args=["encounter", fight.encounter.pk]),
        reverse("combat:thread", args=[fight.thread.pk]),
    ):
        assert client.get(url).status_code == 404
    anonymous = Client()
    assert anonymous.get(reverse("combat:detail", args=[fight.encounter.pk])).status_code == 404


def test_karma_stays_with_its_owner_and_the_gms(fight):
    t = fight.table
    entry = services.adjust_value(t.gm, fight.ariane, path="karma", value=-3, reason="Pacte avec Brand")
    assert entry.gm_only
    fight.ariane.refresh_from_db()
    assert fight.ariane.state["karma"] == -3
    html = _page(Client(), t.player, fight)
    assert "Pacte avec Brand" not in html
    assert html.count("<dt>Karma</dt>") == 1  # Cendre's own, not Ariane's
    assert "-3" not in html
    assert html.count("<dt>Karma</dt>") < _page(Client(), t.gm, fight).count("<dt>Karma</dt>")
    assert "-3" in _page(Client(), t.player2, fight)
