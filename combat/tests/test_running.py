"""Running an encounter is forgiving: sides change, participants leave (recorded) and come back,
PCs join the players' side by default, the dead and unconscious are passed over, and the adjust
menu names values in the system's words."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from combat import services
from combat.models import Declaration, LogEntry
from combat.tests.conftest import ambre_sheet, make_character


def test_pcs_join_the_players_side_and_npcs_face_them_by_default(fight):
    t = fight.table
    hero = make_character(t.campaign, t.player, "Brand", ambre_sheet("Cendre"))
    (brand,) = services.add_participant(t.gm, fight.encounter, character=hero)
    (garde,) = services.add_participant(t.gm, fight.encounter, name="Garde")
    assert brand.side == "allies" and garde.side == "opponents"


def test_the_gm_changes_sides_removes_and_re_adds_with_a_record(fight):
    t = fight.table
    with pytest.raises(PermissionDenied):
        services.set_side(t.player, fight.ariane, side="opponents")
    services.set_side(t.gm, fight.ariane, side="opponents")
    fight.ariane.refresh_from_db()
    assert fight.ariane.side == "opponents"
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(t.player2, fight.ariane, data={"action": "melee"}, target=fight.cendre)
    services.remove_participant(t.gm, fight.ariane, reason="Fuit par la fenêtre")
    fight.ariane.refresh_from_db()
    assert not fight.ariane.active
    assert Declaration.objects.get(participant=fight.ariane).status == "skipped"
    kinds = list(LogEntry.objects.filter(encounter=fight.encounter).values_list("kind", flat=True))
    assert "side" in kinds and "removed" in kinds
    again = services.add_participant(t.gm, fight.encounter, character=fight.ariane.character, side="allies")
    assert [p.pk for p in again] == [fight.ariane.pk]  # she comes back with the state she left with
    fight.ariane.refresh_from_db()
    assert fight.ariane.active and fight.ariane.side == "allies"


def test_a_dead_or_unconscious_participant_is_skipped(fight):
    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    services.declare_action(t.gm, fight.borel, data={"action": "melee"}, target=fight.cendre)
    services.declare_action(t.player2, fight.ariane, data={"action": "melee"}, target=fight.cendre)
    services.declare_action(t.player, fight.cendre, data={"action": "melee"}, target=fight.ariane)
    services.reveal_declarations(t.gm, fight.encounter)
    services.adjust_value(t.gm, fight.borel, path="coma", value=True, reason="Assommé")
    entries = services.resolve_round(t.gm, fight.encounter)
    assert fight.borel.pk not in {e.participant_id for e in entries}
    assert Declaration.objects.get(participant=fight.borel).status == "skipped"


def test_the_adjust_menu_names_values_in_the_systems_words(fight):
    client = Client()
    client.force_login(fight.table.gm)
    html = client.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert f'value="{fight.cendre.pk}|wounds.serious">Blessures sérieuses\u00a0: 0</option>' in html
    assert f'value="{fight.cendre.pk}|dead">Mort\u00a0: ' in html
    assert ">wounds.serious" not in html and ">dead " not in html
