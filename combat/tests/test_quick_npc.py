"""Quick NPCs (issue #23): from a bestiary entry or the stat line each rule
system declares, GM only, outside the player-creation budget, no JSON."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

import rules
from characters.models import Character
from combat import services
from combat.models import Participant
from combat.tests.conftest import make_thread

SLUGS = ["ambre", "clefs-de-l-aube", "sms", "altaride"]

#: One stat line per system (values by ``quick_npc_fields`` path) and the form's posted values.
STAT_LINES: dict[str, dict[str, Any]] = {
    "ambre": {"attributes.psy": 40, "attributes.cbt": -25, "characteristics.hab_cac": 20},
    "clefs-de-l-aube": {
        "aspects.PH": 14,
        "means.PU": 3,
        "skill.name": "Épée",
        "skill.aspect": "PH",
        "skill.default_means": "PU",
        "skill.nc": 10,
    },
    "sms": {"npc.role": "boss", "npc.base_attack_die": 10, "size_factor": 7},
    "altaride": {"talents.VIG": 9, "talents.HAB": 7, "skill.key": "mains_nues", "skill.level": 4},
}
#: A value out of the declared range (field, posted value).
BAD: dict[str, tuple[str, str]] = {
    "ambre": ("attributes.psy", "5000"),
    "clefs-de-l-aube": ("means.PU", "9"),
    "sms": ("npc.base_attack_die", "31"),
    "altaride": ("talents.VIG", "-1"),
}


def _name(path: str) -> str:
    return "npc__" + path.replace(".", "__")


@pytest.fixture
def make(db: Any, settings: Any):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    def build(slug: str) -> Any:
        from conftest import make_table

        t = make_table(slug, prefix=slug[:3])
        t.campaign.system_settings = rules.get_system(slug).starter_settings()
        t.campaign.save(update_fields=["system_settings"])
        thread = make_thread(t.campaign, t.gm)
        t.encounter = services.create_encounter(t.gm, thread, title="Embuscade")
        return t

    return build


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _expected(slug: str, values: dict[str, Any], settings: dict[str, Any], entry: str = "") -> dict[str, Any]:
    sheet, errors = rules.get_system(slug).quick_npc_sheet(values, settings, entry=entry)
    assert errors == []
    return sheet


@pytest.mark.parametrize("slug", SLUGS)
def test_a_quick_npc_from_a_stat_line_through_the_page(make, slug):
    t = make(slug)
    system = rules.get_system(slug)
    settings = t.campaign.system_settings
    gm = _client(t.gm)
    page = gm.get(reverse("combat:detail", args=[t.encounter.pk])).content.decode()
    assert "JSON" not in page and 'name="stats"' not in page
    for f in system.quick_npc_fields(settings):
        assert f'name="{_name(f.path)}"' in page
    post = {"name": "Sbire", "count": 2, "side": "opponents"}
    post.update({_name(k): str(v) for k, v in STAT_LINES[slug].items()})
    response = gm.post(reverse("combat:add_participant", args=[t.encounter.pk]), post)
    assert response.status_code == 302, response.content.decode()[:3000]
    created = list(Participant.objects.filter(encounter=t.encounter).order_by("position"))
    assert [p.name for p in created] == ["Sbire 1", "Sbire 2"]
    sheet = _expected(slug, STAT_LINES[slug], settings)
    for p in created:
        assert p.is_npc and p.controller is None and p.character is None
        assert p.sheet == sheet
        assert p.state == system.combat_state(sheet, settings)
    # Outside the player-creation budget: the NPC rules accept it, a player character's may not.
    assert system.validate_npc(sheet, settings) == []


def test_the_values_are_what_the_rules_computed(make):
    t = make("sms")
    (wolf,) = services.add_participant(t.gm, t.encounter, name="Loup", npc={"npc.role": "disposable"})
    assert wolf.sheet["npc"]["base_defence_die"] == 2 and wolf.sheet["npc"]["is_minion"] is True
    (boss,) = services.add_participant(t.gm, t.encounter, name="Seigneur", npc={"npc.role": "boss"})
    assert boss.sheet["npc"]["base_attack_die"] == 12
    t2 = make("ambre")
    (borel,) = services.add_participant(t2.gm, t2.encounter, name="Borel", npc=STAT_LINES["ambre"])
    system = rules.get_system("ambre")
    assert borel.sheet["attributes"]["psy"] == 40 and borel.sheet["characteristics"]["hab_cac"] == 20
    # Its creation points would not pay for it as a player character (characteristic pools, powers).
    assert system.validate_sheet(borel.sheet) != [] and system.validate_npc(borel.sheet) == []
    t3 = make("altaride")
    (brute,) = services.add_participant(t3.gm, t3.encounter, name="Brute", npc=STAT_LINES["altaride"])
    assert brute.sheet["is_player_character"] is False
    assert brute.sheet["skills"] == [{"key": "mains_nues", "level": 4}] and brute.sheet["talents"]["VIG"] == 9


def test_a_quick_npc_from_a_bestiary_entry(make):
    t = make("sms")
    bestiary = [
        {"name": "Gnoll", "creature_class": "humanoide", "role": "disposable", "method": "simple"},
        {"name": "Alpha des gnolls", "creature_class": "humanoide", "role": "recurrent", "base_attack_die": 12},
    ]
    t.campaign.system_settings = {**t.campaign.system_settings, "bestiary": bestiary}
    t.campaign.save(update_fields=["system_settings"])
    gm = _client(t.gm)
    page = gm.get(reverse("combat:detail", args=[t.encounter.pk])).content.decode()
    assert '<option value="Alpha des gnolls">Alpha des gnolls</option>' in page
    url = reverse("combat:add_participant", args=[t.encounter.pk])
    response = gm.post(url, {"entry": "Alpha des gnolls", "count": 1, _name("size_factor"): "6"})
    assert response.status_code == 302
    alpha = Participant.objects.get(encounter=t.encounter, name="Alpha des gnolls")
    npc = alpha.sheet["npc"]
    assert (npc["role"], npc["creature_class"], npc["base_attack_die"], npc["base_defence_die"]) == (
        "recurrent",
        "humanoide",
        12,
        10,
    )
    assert alpha.sheet["size_factor"] == 6 and npc["is_minion"] is False
    response = gm.post(url, {"entry": "Licorne", "count": 1})
    assert response.status_code == 400 and "Licorne" not in [p.name for p in Participant.objects.all()]


#: One bestiary entry per system, as the settings list editor stores it.
ENTRIES: dict[str, dict[str, Any]] = {
    "ambre": {"name": "Loup d'Ombre", "attributes": {"phy": 10}, "characteristics": {"force": 20}},
    "clefs-de-l-aube": {
        "name": "Garde",
        "aspects": {"PH": 12},
        "skill": {"name": "Lance", "aspect": "PH", "default_means": "PU", "nc": 6},
    },
    "sms": {"name": "Gnoll", "role": "disposable"},
    "altaride": {"name": "Ours", "talents": {"VIG": 12}, "is_anthropoid": "no"},
}


@pytest.mark.parametrize("slug", SLUGS)
def test_every_system_makes_a_quick_npc_from_a_bestiary_entry_or_an_npc_of_the_campaign(make, slug):
    t = make(slug)
    system = rules.get_system(slug)
    settings = {**t.campaign.system_settings, "bestiary": [ENTRIES[slug]]}
    assert system.validate_settings(settings) == []
    t.campaign.system_settings = settings
    t.campaign.save(update_fields=["system_settings"])
    name = ENTRIES[slug]["name"]
    gm = _client(t.gm)
    response = gm.post(reverse("combat:add_participant", args=[t.encounter.pk]), {"entry": name, "count": 2})
    assert response.status_code == 302
    copies = list(Participant.objects.filter(encounter=t.encounter).order_by("position"))
    assert [c.name for c in copies] == [f"{name} 1", f"{name} 2"]
    expected = _expected(slug, {}, settings, name)
    assert all(c.sheet == expected for c in copies)
    assert expected != _expected(slug, {}, settings)  # the entry's values are on the sheet
    if slug == "altaride":
        assert expected["is_anthropoid"] is False and expected["talents"]["VIG"] == 12
    sheet = _expected(slug, STAT_LINES[slug], settings)
    model = Character.objects.create(
        campaign=t.campaign, owner=t.gm, system=slug, name="Modèle", sheet=sheet, is_npc=True
    )
    copies = services.add_participant(t.gm, t.encounter, template=model, count=2)
    assert all(c.sheet == model.current_sheet() for c in copies)


@pytest.mark.parametrize("slug", SLUGS)
def test_bad_input_gives_a_field_message_and_creates_nothing(make, slug):
    t = make(slug)
    gm = _client(t.gm)
    path, value = BAD[slug]
    url = reverse("combat:add_participant", args=[t.encounter.pk])
    response = gm.post(url, {"name": "Sbire", "count": 1, _name(path): value})
    assert response.status_code == 400
    html = response.content.decode()
    assert f'id="id_{_name(path)}_errors"' in html
    assert not Participant.objects.filter(encounter=t.encounter).exists()
    with pytest.raises(ValidationError) as exc:
        services.add_participant(t.gm, t.encounter, name="Sbire", npc={path: int(value)})
    assert f"npc.{path}" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.add_participant(t.gm, t.encounter, name="Sbire", npc={"creation_points": 3})
    assert "npc.creation_points" in exc.value.message_dict
    assert not Participant.objects.filter(encounter=t.encounter).exists()


def test_a_clefs_skill_needs_its_aspect_and_means(make):
    t = make("clefs-de-l-aube")
    response = _client(t.gm).post(
        reverse("combat:add_participant", args=[t.encounter.pk]),
        {"name": "Garde", "count": 1, _name("skill.name"): "Épée"},
    )
    html = response.content.decode()
    assert response.status_code == 400 and 'id="id_npc__skill__aspect_errors"' in html
    assert not Participant.objects.filter(encounter=t.encounter).exists()


@pytest.mark.parametrize("slug", ["sms", "altaride"])
def test_players_and_outsiders_cannot_make_npcs(make, slug):
    t = make(slug)
    url = reverse("combat:add_participant", args=[t.encounter.pk])
    post = {"name": "Intrus", "count": 1, **{_name(k): str(v) for k, v in STAT_LINES[slug].items()}}
    assert _client(t.player).post(url, post).status_code == 403
    assert _client(t.spectator).post(url, post).status_code == 403
    assert _client(t.outsider).post(url, post).status_code == 404
    page = _client(t.player).get(reverse("combat:detail", args=[t.encounter.pk])).content.decode()
    assert "npc__" not in page and "add_participant" not in page
    fragment = _client(t.player).get(reverse("combat:live", args=[t.encounter.pk]))
    assert "npc__" not in fragment.content.decode()
    with pytest.raises(PermissionDenied):
        services.add_participant(t.player, t.encounter, name="Intrus", npc=STAT_LINES[slug])
    api_url = f"/api/v1/encounters/{t.encounter.pk}/participants/"
    for user, codes in ((t.player, {403}), (t.outsider, {403, 404})):
        api = APIClient()
        api.force_authenticate(user)
        assert api.post(api_url, {"name": "Intrus", "npc": STAT_LINES[slug]}, format="json").status_code in codes
    assert not Participant.objects.filter(encounter=t.encounter).exists()


@pytest.mark.parametrize("slug", SLUGS)
def test_the_api_makes_a_quick_npc_with_the_same_validation(make, slug):
    t = make(slug)
    api = APIClient()
    api.force_authenticate(t.gm)
    url = f"/api/v1/encounters/{t.encounter.pk}/participants/"
    path, value = BAD[slug]
    bad = api.post(url, {"name": "Sbire", "npc": {path: int(value)}}, format="json")
    assert bad.status_code == 400 and f"npc.{path}" in str(bad.json())
    assert not Participant.objects.filter(encounter=t.encounter).exists()
    ok = api.post(url, {"name": "Sbire", "npc": STAT_LINES[slug], "side": "opponents"}, format="json")
    assert ok.status_code == 201, ok.json()
    created = Participant.objects.get(encounter=t.encounter)
    assert created.sheet == _expected(slug, STAT_LINES[slug], t.campaign.system_settings)
