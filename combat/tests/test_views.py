"""The combat pages: thin views over the services, htmx fragments, forms."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from combat.models import Declaration, Encounter, LogEntry, Participant


def _client(user):
    client = Client()
    client.force_login(user)
    return client


def test_it_opens_an_encounter_from_a_thread(fight):
    t = fight.table
    url = reverse("combat:thread", args=[fight.thread.pk])
    gm = _client(t.gm)
    assert "Ouvrir une rencontre" in gm.get(url).content.decode()
    response = gm.post(url, {"title": "Second combat"})
    encounter = Encounter.objects.get(title="Second combat")
    assert response.status_code == 302 and response.url == reverse("combat:detail", args=[encounter.pk])
    assert gm.post(url, {"title": ""}).status_code == 200
    assert Encounter.objects.filter(thread=fight.thread).count() == 2
    player = _client(t.player)
    assert "Ouvrir une rencontre" not in player.get(url).content.decode()
    assert player.post(url, {"title": "Pirate"}).status_code == 403
    assert not Encounter.objects.filter(title="Pirate").exists()


def test_the_gm_runs_a_round_through_the_pages(fight):
    t = fight.table
    gm = _client(t.gm)
    pk = fight.encounter.pk
    assert gm.post(reverse("combat:start", args=[pk])).status_code == 302
    player = _client(t.player)
    page = player.get(reverse("combat:detail", args=[pk])).content.decode()
    assert "Déclarez vos actions" in page and f'name="p{fight.cendre.pk}-action"' in page
    assert f'name="p{fight.ariane.pk}-action"' not in page  # only the participants one controls
    response = player.post(
        reverse("combat:declare", args=[pk, fight.cendre.pk]),
        {
            f"p{fight.cendre.pk}-action": "melee",
            f"p{fight.cendre.pk}-target_mode": "melee",
            f"p{fight.cendre.pk}-target": fight.borel.pk,
            f"p{fight.cendre.pk}-weapon_class": "normal",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    declaration = Declaration.objects.get(participant=fight.cendre)
    assert declaration.data["action"] == "melee" and declaration.target == fight.borel
    # htmx: the GM's buttons answer with the refreshed live fragment.
    response = gm.post(reverse("combat:reveal", args=[pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and 'id="combat-live"' in response.content.decode()
    step = fight.encounter.rounds.get(number=1).step_index
    assert step == 1  # Ariane (Rapidité 20) declared nothing: Cendre (15) is the first to act
    response = gm.post(reverse("combat:resolve", args=[pk]), {"step": step}, HTTP_HX_REQUEST="true")
    assert 'role="alert"' not in response.content.decode(), response.content.decode()[:600]
    fight.borel.refresh_from_db()
    assert fight.borel.state["life"] == 5  # D4
    # A second click on the same step: a clear message, nothing resolved twice.
    response = gm.post(reverse("combat:resolve", args=[pk]), {"step": step}, HTTP_HX_REQUEST="true")
    assert "déjà été résolue" in response.content.decode()
    assert LogEntry.objects.filter(encounter=fight.encounter, kind="step").count() == 1
    assert gm.post(reverse("combat:undo", args=[pk])).status_code == 302
    fight.borel.refresh_from_db()
    assert fight.borel.state["life"] == 55
    assert gm.post(reverse("combat:end_round", args=[pk]), {"round": 1}).status_code == 302
    assert gm.post(reverse("combat:end", args=[pk])).status_code == 302
    fight.encounter.refresh_from_db()
    assert fight.encounter.status == "ended"


def test_the_declaration_form_reports_field_errors_in_french(fight):
    t = fight.table
    _client(t.gm).post(reverse("combat:start", args=[fight.encounter.pk]))
    response = _client(t.player).post(
        reverse("combat:declare", args=[fight.encounter.pk, fight.cendre.pk]),
        {f"p{fight.cendre.pk}-action": "laser", f"p{fight.cendre.pk}-modifications": "beaucoup"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "Sélectionnez un choix valide" in html and "Entrez un nombre entier" in html
    assert not Declaration.objects.exists()


@pytest.mark.parametrize("who", ["player", "spectator", "moderator"])
def test_gm_buttons_are_refused_to_others(fight, who):
    client = _client(getattr(fight.table, who))
    pk = fight.encounter.pk
    for name in ("start", "reveal", "resolve", "undo", "end_round", "end"):
        assert client.post(reverse(f"combat:{name}", args=[pk])).status_code == 403
    response = client.post(
        reverse("combat:adjust", args=[pk]), {"target": f"{fight.borel.pk}|life", "value": "1", "reason": "x"}
    )
    assert response.status_code == 403
    fight.encounter.refresh_from_db()
    assert fight.encounter.status == "preparing"
    fight.borel.refresh_from_db()
    assert fight.borel.state["life"] == 55


def test_outsiders_get_404_on_writes(fight):
    client = _client(fight.table.outsider)
    pk = fight.encounter.pk
    assert client.post(reverse("combat:start", args=[pk])).status_code == 404
    assert client.post(reverse("combat:declare", args=[pk, fight.cendre.pk]), {}).status_code == 404


def test_adding_participants_and_adjusting_through_forms(fight):
    t = fight.table
    gm = _client(t.gm)
    pk = fight.encounter.pk
    response = gm.post(
        reverse("combat:add_participant", args=[pk]),
        {"name": "Garde", "count": 2, "side": "opponents", "npc__characteristics__force": "20"},
    )
    assert response.status_code == 302
    guards = Participant.objects.filter(encounter=fight.encounter, name__startswith="Garde")
    assert guards.count() == 2 and all(g.sheet["characteristics"]["force"] == 20 for g in guards)
    response = gm.post(
        reverse("combat:add_participant", args=[pk]),
        {"name": "Garde", "count": 1, "side": "opponents", "npc__characteristics__force": "fort"},
    )
    assert response.status_code == 400 and "Entrez un nombre entier." in response.content.decode()
    response = gm.post(
        reverse("combat:adjust", args=[pk]), {"target": f"{fight.cendre.pk}|life", "value": "abc", "reason": "chute"}
    )
    assert response.status_code == 400 and "Entrez un nombre entier." in response.content.decode()
    response = gm.post(
        reverse("combat:adjust", args=[pk]), {"target": f"{fight.cendre.pk}|life", "value": "60", "reason": "chute"}
    )
    assert response.status_code == 302
    fight.cendre.refresh_from_db()
    assert fight.cendre.state["life"] == 60


def test_the_live_fragment_answers_204_when_nothing_changed(fight):
    client = _client(fight.table.player)
    url = reverse("combat:live", args=[fight.encounter.pk])
    fight.encounter.refresh_from_db()
    seq = fight.encounter.last_sequence
    assert client.get(url, {"since": seq}, HTTP_HX_REQUEST="true").status_code == 204
    assert client.get(url, {"since": seq - 1}, HTTP_HX_REQUEST="true").status_code == 200
    panel = reverse("combat:declare_panel", args=[fight.encounter.pk])
    assert client.get(panel, {"round": 0, "phase": "none"}, HTTP_HX_REQUEST="true").status_code == 204


def test_the_index_lists_my_fights(fight):
    html = _client(fight.table.player).get(reverse("combat:index")).content.decode()
    assert fight.encounter.title.replace("'", "&#x27;") in html
    assert fight.encounter.title not in _client(fight.table.outsider).get(reverse("combat:index")).content.decode()
