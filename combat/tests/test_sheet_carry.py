"""Results reach the sheet: a PC's wound or pool loss is a recorded sheet version naming the log entry;
a PC the fight kills is marked dead, cannot post in character, and only a GM brings it back, with a reason."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from campaigns.services import create_post
from characters.models import Character, SheetVersion
from characters.outcomes import revive_character
from combat import services
from combat.models import LogEntry


def _exchange(fight):
    t = fight.table
    services.start_encounter(t.gm, fight.encounter)
    # Ariane (Cbt 30) attacks Cendre (Cbt 35): Cendre wins the touch and Ariane is hurt (L418).
    services.declare_action(t.player2, fight.ariane, data={"action": "melee"}, target=fight.cendre)
    services.reveal_declarations(t.gm, fight.encounter)
    return services.resolve_next_step(t.gm, fight.encounter)


def test_a_pc_wound_reaches_its_sheet_and_history(fight):
    step = _exchange(fight)
    ariane = Character.objects.get(pk=fight.ariane.character_id)
    fight.ariane.refresh_from_db()
    state = fight.ariane.state
    lost = state["life_max"] - state["life"]
    assert lost > 0
    condition = ariane.sheet["condition"]
    assert condition["life_damage"] == lost
    assert sum(condition["wounds"].values()) == sum(state["wounds"].values()) >= 1
    version = SheetVersion.objects.filter(character=ariane).latest("version")
    assert version.version == ariane.version
    assert f"combat n° {fight.encounter.pk}" in version.reason and f"entrée {step.sequence}" in version.reason
    carried = LogEntry.objects.get(encounter=fight.encounter, kind=LogEntry.Kind.CARRIED)
    assert carried.detail["from_entry"] == step.sequence and carried.detail["version"] == ariane.version
    # Undone: the sheet takes the marks back, in a new version (history is append-only).
    services.undo_last_step(fight.table.gm, fight.encounter)
    ariane.refresh_from_db()
    assert ariane.sheet["condition"]["life_damage"] == 0 and ariane.version == version.version + 1


def test_a_dead_pc_is_marked_dead_cannot_post_and_the_gm_brings_it_back(fight):
    t = fight.table
    services.adjust_value(t.gm, fight.ariane, path="dead", value=True, reason="Coup de grâce")
    ariane = Character.objects.get(pk=fight.ariane.character_id)
    assert ariane.status == Character.Status.DEAD and ariane.sheet["condition"]["dead"] is True
    public = LogEntry.objects.filter(encounter=fight.encounter, gm_only=False).order_by("-sequence")
    assert any("Ariane meurt." in (e.public.get("text") or {}).get("fr", "") for e in public)
    with pytest.raises(ValidationError) as exc:
        create_post(t.player2, fight.thread, body="Je me relève !", character=ariane)
    assert "n'est plus de ce monde" in str(exc.value.message_dict["character"])
    # A dead participant declares nothing more.
    services.start_encounter(t.gm, fight.encounter)
    with pytest.raises(ValidationError):
        services.declare_action(t.player2, fight.ariane, data={"action": "melee"}, target=fight.borel)
    with pytest.raises(PermissionDenied):
        revive_character(t.player2, ariane, reason="Je triche")
    with pytest.raises(ValidationError):
        revive_character(t.gm, ariane, reason="")
    revive_character(t.gm, ariane, reason="Erreur de calcul du MJ")
    ariane.refresh_from_db()
    assert ariane.status == Character.Status.APPROVED
    assert "Erreur de calcul du MJ" in SheetVersion.objects.filter(character=ariane).latest("version").reason
    create_post(t.player2, fight.thread, body="Je me relève !", character=ariane)


def test_the_gm_brings_a_dead_pc_back_from_the_encounter_page(fight):
    from django.test import Client
    from django.urls import reverse

    t = fight.table
    services.adjust_value(t.gm, fight.ariane, path="dead", value=True, reason="Coup de grâce")
    url = reverse("combat:revive", args=[fight.encounter.pk, fight.ariane.pk])
    player = Client()
    player.force_login(t.player2)
    assert player.post(url, {"reason": "Je triche"}).status_code == 403
    gm = Client()
    gm.force_login(t.gm)
    page = gm.get(reverse("combat:detail", args=[fight.encounter.pk])).content.decode()
    assert url in page
    gm.post(url, {"reason": ""})
    assert Character.objects.get(pk=fight.ariane.character_id).status == Character.Status.DEAD
    gm.post(url, {"reason": "Erreur du MJ"})
    assert Character.objects.get(pk=fight.ariane.character_id).status == Character.Status.APPROVED
