"""Structured editors of the keyed-map and multiple-choice settings (#23 items 2 and 3): a GM never
writes JSON. Good input saves the stored shape the rules read; bad input gets a field message, a 400
and saves nothing; only the GMs open or change them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

import rules
from campaigns import records
from campaigns.forms import OptionalJSONField, build_rules_field, structured_lists
from conftest import make_table
from rules.base import Field

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _url(table: Any, path: str) -> str:
    return f"/campaigns/{table.campaign.slug}/settings/list/{path}/"


def _stored(table: Any) -> dict[str, Any]:
    table.campaign.refresh_from_db()
    return dict(table.campaign.system_settings or {})


def _field(slug: str, path: str) -> Field:
    return next(f for f in rules.get_system(slug).campaign_settings_fields() if f.path == path)


def _json_textareas(html: str) -> list[str]:
    """Text areas whose content looks like JSON (an object or a list)."""
    found = re.findall(r"<textarea([^>]*)>(.*?)</textarea>", html, re.S)
    return [
        text
        for attrs, text in found
        if text.strip()[:1] in ("{", "[") and not any(f"__{p}" in attrs or f":{p}" in attrs for p in PENDING)
    ]


# ---- the SMS allowed races: a multiple choice on the main settings page ---------------------------
def _settings_post(table: Any, **extra: Any) -> dict[str, Any]:
    return {"title": table.campaign.title, "language": "fr", "is_public": "", **extra}


def test_the_allowed_races_are_checkboxes_drawn_from_the_rules_and_save_a_list() -> None:
    table = make_table("sms")
    client = _client(table.gm)
    html = client.get(f"/campaigns/{table.campaign.slug}/settings/").content.decode()
    assert html.count('type="checkbox" name="system__allowed_races"') == len(_field("sms", "allowed_races").choices)
    assert not _json_textareas(html)
    response = client.post(
        f"/campaigns/{table.campaign.slug}/settings/", _settings_post(table, system__allowed_races=["humain", "tifin"])
    )
    assert response.status_code == 302
    assert sorted(_stored(table)["allowed_races"]) == ["humain", "tifin"]


def test_an_unknown_race_is_refused_at_its_field_and_nothing_is_saved() -> None:
    table = make_table("sms")
    table.campaign.system_settings = {"allowed_races": ["humain"]}
    table.campaign.save()
    response = _client(table.gm).post(
        f"/campaigns/{table.campaign.slug}/settings/",
        _settings_post(table, title="Changé", system__allowed_races=["humain", "dragon"]),
    )
    assert response.status_code == 400
    assert "dragon" in response.content.decode() and "errorlist" in response.content.decode()
    table.campaign.refresh_from_db()
    assert table.campaign.title != "Changé" and table.campaign.system_settings == {"allowed_races": ["humain"]}


def test_no_race_ticked_means_every_race() -> None:
    table = make_table("sms")
    table.campaign.system_settings = {"allowed_races": ["humain"]}
    table.campaign.save()
    assert (
        _client(table.gm).post(f"/campaigns/{table.campaign.slug}/settings/", _settings_post(table)).status_code == 302
    )
    assert _stored(table)["allowed_races"] == []


# ---- SMS archetype modules: archetype → module rows -----------------------------------------------
def _archetype(index: int, key: str, modules: list[dict[str, str]]) -> dict[str, str]:
    data = {f"s:archetype_modules.{index}.key": key, f"n:archetype_modules.{index}.value": str(len(modules))}
    for j, module in enumerate(modules):
        for name, value in module.items():
            data[f"s:archetype_modules.{index}.value.{j}.{name}"] = value
    return data


def _module(**values: str) -> dict[str, str]:
    return {"name": "Escrime", "kind": "positive", "scope": "2", "rank": "3", "predefined": "", **values}


def test_the_archetype_editor_offers_the_rules_choices_and_no_json() -> None:
    table = make_table("sms")
    client = _client(table.gm)
    settings_page = client.get(f"/campaigns/{table.campaign.slug}/settings/").content.decode()
    assert _url(table, "archetype_modules") in settings_page and _url(table, "weapon_base_damage") in settings_page
    assert 'name="system__archetype_modules"' not in settings_page
    html = client.post(
        _url(table, "archetype_modules"), {"n:archetype_modules": "0", "_add": "archetype_modules"}
    ).content.decode()
    assert '<select id="f-archetype_modules-0-key" name="s:archetype_modules.0.key"' in html
    assert ">Guerrier<" in html  # an archetype named by the text
    assert 'name="_add" value="archetype_modules.0.value"' in html  # its modules are rows too
    assert not _json_textareas(html) and "Ce champ est obligatoire" not in html  # adding is not saving


def test_good_archetype_modules_save_the_stored_map() -> None:
    table = make_table("sms")
    data = {
        "n:archetype_modules": "1",
        **_archetype(0, "guerrier", [_module(), _module(name="Lâche", kind="negative", scope="1", rank="1")]),
    }
    response = _client(table.gm).post(_url(table, "archetype_modules"), data)
    assert response.status_code == 302
    assert _stored(table)["archetype_modules"] == {
        "guerrier": [
            {"name": "Escrime", "kind": "positive", "scope": 2, "rank": 3, "predefined": ""},
            {"name": "Lâche", "kind": "negative", "scope": 1, "rank": 1, "predefined": ""},
        ]
    }
    # The rules read it: the archetype now brings that module set.
    from rules.sms.creation import archetype_modules

    assert [m["name"] for m in archetype_modules("guerrier", _stored(table))] == ["Escrime", "Lâche"]
    # and the editor shows it again, with the archetype's name as the row's title
    html = _client(table.gm).get(_url(table, "archetype_modules")).content.decode()
    assert 'value="Escrime"' in html and "<strong>Guerrier</strong>" in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"n:archetype_modules": "1", **_archetype(0, "guerrier", [_module(scope="9")])}, "Doit être au plus 5."),
        ({"n:archetype_modules": "1", **_archetype(0, "guerrier", [_module(name="")])}, "Ce champ est obligatoire."),
        ({"n:archetype_modules": "1", **_archetype(0, "guerrier", [_module(rank="x")])}, "Entrez un nombre entier."),
        ({"n:archetype_modules": "1", **_archetype(0, "", [_module()])}, "Ce champ est obligatoire."),
        ({"n:archetype_modules": "1", **_archetype(0, "dragon", [_module()])}, "Choix invalide : dragon."),
        (
            {
                "n:archetype_modules": "2",
                **_archetype(0, "guerrier", [_module()]),
                **_archetype(1, "guerrier", [_module()]),
            },
            "Déjà dans la liste.",
        ),
        (
            {"n:archetype_modules": "1", **_archetype(0, "guerrier", [_module(scope="5", rank="7")])},
            "Un archétype ne dépasse jamais 33 XP : 35.",
        ),
    ],
)
def test_bad_archetype_modules_are_refused_at_their_field_and_nothing_is_saved(
    data: dict[str, str], message: str
) -> None:
    table = make_table("sms")
    before = {
        "archetype_modules": {
            "baroudeur": [{"name": "Survie", "kind": "positive", "scope": 1, "rank": 1, "predefined": ""}]
        }
    }
    table.campaign.system_settings = before
    table.campaign.save()
    response = _client(table.gm).post(_url(table, "archetype_modules"), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html and "Rien n’a été enregistré" in html
    assert re.search(r'<ul class="errorlist sf-errors" id="e-f-archetype_modules-\d[^"]*"><li>', html)  # at its row
    assert _stored(table) == before


def test_the_archetype_example_fills_the_form_and_saves_only_when_asked() -> None:
    table = make_table("sms")
    client = _client(table.gm)
    html = client.post(
        _url(table, "archetype_modules"), {"n:archetype_modules": "0", "_example": "archetype_modules"}
    ).content.decode()
    assert 'value="Baroudeur"' in html and 'value="Pouvoir des arcanes"' in html
    assert _stored(table).get("archetype_modules") in (None, {})
    example = next(
        f for f in rules.get_system("sms").campaign_settings_fields() if f.path == "archetype_modules"
    ).example
    assert rules.get_system("sms").validate_settings({"archetype_modules": example}) == []


# ---- SMS weapon base damage: weapon → -1|0|1 -------------------------------------------------------
def _weapon(index: int, name: str, damage: str) -> dict[str, str]:
    return {f"s:weapon_base_damage.{index}.key": name, f"s:weapon_base_damage.{index}.value": damage}


def test_good_weapon_damage_saves_the_stored_map() -> None:
    table = make_table("sms")
    data = {"n:weapon_base_damage": "2", **_weapon(0, "Hache", "1"), **_weapon(1, " Dague ", "-1")}
    assert _client(table.gm).post(_url(table, "weapon_base_damage"), data).status_code == 302
    assert _stored(table)["weapon_base_damage"] == {"Hache": 1, "Dague": -1}


@pytest.mark.parametrize(
    ("damage", "message"),
    [("2", "Doit être au plus 1."), ("", "Ce champ est obligatoire."), ("lourd", "Entrez un nombre entier.")],
)
def test_bad_weapon_damage_is_refused_and_nothing_is_saved(damage: str, message: str) -> None:
    table = make_table("sms")
    table.campaign.system_settings = {"weapon_base_damage": {"Épée": 0}}
    table.campaign.save()
    response = _client(table.gm).post(
        _url(table, "weapon_base_damage"), {"n:weapon_base_damage": "1", **_weapon(0, "Épée", damage)}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'id="e-f-weapon_base_damage-0-value"><li>' + re.escape(message), html)
    assert _stored(table) == {"weapon_base_damage": {"Épée": 0}}


def test_the_weapon_example_names_the_texts_weapons_and_leaves_the_damage_blank() -> None:
    table = make_table("sms")
    html = (
        _client(table.gm)
        .post(_url(table, "weapon_base_damage"), {"n:weapon_base_damage": "0", "_example": "weapon_base_damage"})
        .content.decode()
    )
    assert 'value="Hache"' in html and 'name="s:weapon_base_damage.0.value" value=""' in html


# ---- Ambre power tables and rank names -------------------------------------------------------------
def _level(power_index: int, row: int, **values: str) -> dict[str, str]:
    return {f"s:power_tables.{power_index}.value.{row}.{k}": v for k, v in values.items()}


def test_good_power_tables_save_the_stored_map_the_costs_read() -> None:
    table = make_table("ambre")
    data = {
        "n:power_tables": "1",
        "s:power_tables.0.key": "atouts",
        "n:power_tables.0.value": "2",
        **_level(0, 0, level="5", cost="40", rank="", description=""),
        "n:power_tables.0.value.0.items": "0",
        **_level(0, 1, level="6", cost="46", rank="", description="Un atout de plus"),
        "n:power_tables.0.value.1.items": "1",
        "s:power_tables.0.value.1.items.0.value": "Atout de Kolvir",
    }
    response = _client(table.gm).post(_url(table, "power_tables"), data)
    assert response.status_code == 302
    stored = _stored(table)["power_tables"]
    assert stored == {
        "atouts": [
            {"level": 5, "cost": 40, "rank": "", "description": "", "items": []},
            {"level": 6, "cost": 46, "rank": "", "description": "Un atout de plus", "items": ["Atout de Kolvir"]},
        ]
    }
    cost = rules.get_system("ambre").settings({"power_tables": stored})
    from rules.ambre import costs

    assert costs.power_cost("atouts", 6, cost).amount == 46
    assert costs.available_selections("atouts", 6, cost) == ["Atout de Kolvir"]


def test_a_power_table_row_without_its_cost_is_refused_at_the_cost() -> None:
    table = make_table("ambre")
    data = {
        "n:power_tables": "1",
        "s:power_tables.0.key": "atouts",
        "n:power_tables.0.value": "1",
        **_level(0, 0, level="6", cost="", rank="", description=""),
    }
    response = _client(table.gm).post(_url(table, "power_tables"), data)
    assert response.status_code == 400
    assert re.search(r'id="e-f-power_tables-0-value-0-cost"><li>Ce champ est obligatoire', response.content.decode())
    assert not _stored(table).get("power_tables")


def test_the_power_tables_example_gives_only_the_texts_starting_rows() -> None:
    field = next(f for f in rules.get_system("ambre").campaign_settings_fields() if f.path == "power_tables")
    assert field.example["atouts"] == [{"level": 5, "cost": 40, "rank": "", "description": "", "items": []}]
    assert all(len(rows) == 1 for rows in field.example.values())
    assert rules.get_system("ambre").validate_settings({"power_tables": field.example}) == []


def test_rank_names_save_as_the_stored_map_and_refuse_a_named_rank() -> None:
    table = make_table("ambre")
    client = _client(table.gm)
    good = {"n:power_rank_names": "1", "s:power_rank_names.0.key": "3", "s:power_rank_names.0.value": "Maître"}
    assert client.post(_url(table, "power_rank_names"), good).status_code == 302
    assert _stored(table)["power_rank_names"] == {"3": "Maître"}
    for key, value, message in (
        ("2", "Seigneur", "Doit être au moins 3."),
        ("trois", "X", "Entrez un nombre entier."),
        ("4", "", "Ce champ est obligatoire."),
    ):
        bad = {"n:power_rank_names": "1", "s:power_rank_names.0.key": key, "s:power_rank_names.0.value": value}
        response = client.post(_url(table, "power_rank_names"), bad)
        assert response.status_code == 400 and message in response.content.decode()
        assert _stored(table)["power_rank_names"] == {"3": "Maître"}


def test_messages_are_in_english_for_an_english_gm() -> None:
    table = make_table("sms")
    table.gm.profile.language = "en"
    table.gm.profile.save()
    client = _client(table.gm)
    client.cookies["django_language"] = "en"
    response = client.post(
        _url(table, "weapon_base_damage"),
        {"n:weapon_base_damage": "1", **_weapon(0, "Axe", "3")},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400 and "Must be at most 1." in response.content.decode()


# ---- who may open them --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("system", "path"),
    [
        ("sms", "archetype_modules"),
        ("sms", "weapon_base_damage"),
        ("ambre", "power_tables"),
        ("ambre", "power_rank_names"),
    ],
)
@pytest.mark.parametrize("role", ["player", "spectator", "outsider"])
def test_only_the_gms_open_or_change_an_editor(system: str, path: str, role: str) -> None:
    table = make_table(system)
    client = _client(getattr(table, role))
    assert client.get(_url(table, path)).status_code in (403, 404)
    response = client.post(_url(table, path), {f"n:{path}": "1", f"s:{path}.0.key": "3", f"s:{path}.0.value": "1"})
    assert response.status_code in (403, 404)
    assert _stored(table) == {}


def test_an_anonymous_visitor_is_sent_to_log_in_or_refused() -> None:
    table = make_table("sms", is_public=True)
    response = Client().get(_url(table, "archetype_modules"))
    assert response.status_code in (302, 403, 404)
    assert _stored(table) == {}


def test_a_cogm_may_edit_the_archetypes() -> None:
    table = make_table("sms")
    data = {"n:archetype_modules": "1", **_archetype(0, "guerrier", [_module()])}
    assert _client(table.cogm).post(_url(table, "archetype_modules"), data).status_code == 302
    assert list(_stored(table)["archetype_modules"]) == ["guerrier"]


# ---- the guard: no settings field of any system falls back to a JSON text area ----------------------
#: Settings exempted from the guard: none (the bestiary is a structured list since the quick NPCs landed).
PENDING: set[str] = set()


def _editable(f: Field) -> bool:
    """A field the generic editors render with inputs (no JSON)."""
    if f.kind == "list":
        return bool(f.item_fields) or f.multiple or f.value_field is not None
    if f.kind == "dict":
        return f.keyed
    return True


def _walk(fields: tuple[Field, ...]) -> list[Field]:
    out = []
    for f in fields:
        out.append(f)
        out += _walk(f.item_fields)
        if f.value_field is not None:
            out += _walk((f.value_field,))
    return out


@pytest.mark.parametrize("system", rules.available_systems(), ids=lambda s: s.slug)
def test_no_campaign_setting_falls_back_to_a_json_text_area(system: Any) -> None:
    specs = system.campaign_settings_fields()
    lists = {f.path for f in structured_lists(specs)}
    for f in specs:
        if f.path in PENDING:
            continue
        if f.path not in lists:
            assert not isinstance(build_rules_field(f), OptionalJSONField), f.path
        for inner in _walk((f,)):
            assert _editable(inner), f"{f.path}: {inner.path}"


@pytest.mark.parametrize("system", rules.available_systems(), ids=lambda s: s.slug)
def test_every_list_on_a_sheet_has_a_structured_editor(system: Any) -> None:
    """Nested lists inside list items (Ambre artefacts' transfers, constructs' manifestations...) are
    rows of inputs too: every list declares its items."""
    for f in _walk(system.sheet_fields()):
        if f.kind == "list":
            assert _editable(f), f.path


def test_a_nested_list_renders_inputs_not_json() -> None:
    system = rules.get_system("ambre")
    artefacts = next(f for f in system.sheet_fields() if f.path == "artefacts")
    sheet = {"artefacts": [{"name": "Grayswandir", "transfers": [{}]}]}
    nodes = records.build_nodes([artefacts], sheet, {})
    transfers = next(c for c in nodes[0]["items"][0]["children"] if c["path"] == "artefacts.0.transfers")
    assert transfers["kind"] == "list" and transfers["items"][0]["children"]
    assert all(c["kind"] != "dict" for c in transfers["items"][0]["children"])


def test_a_wrong_stored_list_is_named_when_the_main_settings_are_refused() -> None:
    """A rank name stored before the editor checked it ("2" is Adept, named by the text): the main form
    says which list to open, and saves nothing."""
    table = make_table("ambre")
    table.campaign.system_settings = {"power_rank_names": {"2": "Seigneur"}}
    table.campaign.save()
    response = _client(table.gm).post(
        f"/campaigns/{table.campaign.slug}/settings/", _settings_post(table, title="Changé")
    )
    assert response.status_code == 400
    assert "Noms des rangs au-delà d&#x27;Adepte : Doit être au moins 3." in response.content.decode()
    table.campaign.refresh_from_db()
    assert table.campaign.title != "Changé"
    assert table.campaign.system_settings == {"power_rank_names": {"2": "Seigneur"}}
    # The editor shows the stored row with its message on the first save attempt.
    html = (
        _client(table.gm)
        .post(
            _url(table, "power_rank_names"),
            {"n:power_rank_names": "1", "s:power_rank_names.0.key": "2", "s:power_rank_names.0.value": "Seigneur"},
        )
        .content.decode()
    )
    assert 'id="e-f-power_rank_names-0-key"><li>Doit être au moins 3.' in html


def test_the_api_accepts_and_returns_the_same_stored_shapes() -> None:
    from api.tests.conftest import token_client

    table = make_table("sms")
    settings = {
        "allowed_races": ["humain"],
        "archetype_modules": {
            "guerrier": [{"name": "Escrime", "kind": "positive", "scope": 2, "rank": 3, "predefined": ""}]
        },
        "weapon_base_damage": {"Hache": 1},
    }
    url = f"/api/v1/campaigns/{table.campaign.pk}/"
    response = token_client(table.gm).patch(url, {"system_settings": settings}, format="json")
    assert response.status_code == 200
    assert {k: response.json()["system_settings"][k] for k in settings} == settings
    bad = {**settings, "weapon_base_damage": {"Hache": 3}}
    response = token_client(table.gm).patch(url, {"system_settings": bad}, format="json")
    assert response.status_code == 400 and "system_settings.weapon_base_damage.Hache" in response.content.decode()
    assert _stored(table)["weapon_base_damage"] == {"Hache": 1}


def test_the_generic_editor_parses_a_multiple_choice_and_a_list_of_plain_values() -> None:
    from django.http import QueryDict

    from rules.base import Msg

    colours = Field(
        "colours", "list", Msg("Couleurs", "Colours"), choices=(("r", Msg("Rouge", "Red")), ("b", Msg("Bleu", "Blue")))
    )
    words = Field(
        "words", "list", Msg("Mots", "Words"), value_field=Field("w", "str", Msg("Mot", "Word"), required=True)
    )
    data = QueryDict(mutable=True)
    data.setlist("s:colours", ["b", "r"])
    data.update({"h:colours": "1", "n:words": "2", "s:words.0.value": " feu ", "s:words.1.value": "eau"})
    values, errors = records.parse_sheet([colours, words], data, {})
    assert values == {"colours": ["r", "b"], "words": ["feu", "eau"]} and errors == []
    data.setlist("s:colours", ["x"])
    _values, errors = records.parse_sheet([colours], data, {})
    assert [(e.path, e.code) for e in errors] == [("colours", "invalid_choice")]
    nodes = records.build_nodes([colours, words], {"colours": ["b"], "words": ["feu"]}, {})
    assert nodes[0]["kind"] == "multiple" and nodes[0]["value"] == ["b"]
    assert nodes[1]["kind"] == "list" and nodes[1]["items"][0]["title"] == "feu"


def test_a_gm_notes_an_npcs_difficulties_as_rows_and_a_player_cannot() -> None:
    """SMS ``npc.difficulties`` ("la difficulté pour lui résister est de 3"): a list of rows on the
    sheet (situation, difficulty), edited by the GM (no JSON); a player does not open the GM's NPC."""
    from characters.tests.conftest import form_data, make_character

    table = make_table("sms")
    system = rules.get_system("sms")
    npc = make_character(table, table.gm, name="Garde", is_npc=True)
    edit = f"/characters/{npc.pk}/edit/"
    html = _client(table.gm).get(edit).content.decode()
    assert 'name="n:npc.difficulties"' in html and not _json_textareas(html)
    data = form_data(system, npc.sheet, version=npc.version)
    data.update(
        {"n:npc.difficulties": "1", "s:npc.difficulties.0.name": "attaque", "s:npc.difficulties.0.difficulty": "3"}
    )
    assert _client(table.gm).post(edit, data).status_code == 302
    npc.refresh_from_db()
    assert npc.sheet["npc"]["difficulties"] == [{"name": "attaque", "difficulty": 3}]
    data.update({"s:npc.difficulties.0.difficulty": "beaucoup", "version": str(npc.version)})
    response = _client(table.gm).post(edit, data)
    assert response.status_code == 400
    assert re.search(r'id="e-f-npc-difficulties-0-difficulty"><li>Entrez un nombre entier', response.content.decode())
    npc.refresh_from_db()
    assert npc.sheet["npc"]["difficulties"] == [{"name": "attaque", "difficulty": 3}]
    # Another player opens nobody's NPC.
    assert _client(table.player).get(edit).status_code in (403, 404)
