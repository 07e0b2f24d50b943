"""Creation wizards of the four systems, through the HTML views."""

from __future__ import annotations

import copy
import itertools
import re
from typing import Any

import pytest

from characters.models import Character, LedgerEntry, SheetVersion
from characters.tests.conftest import client_for, form_data, run_wizard, valid_ambre_sheet
from conftest import make_table

pytestmark = pytest.mark.django_db


def _create(client: Any, campaign: Any, name: str) -> Character:
    response = client.post(f"/characters/campaign/{campaign.pk}/new/", {"name": name})
    assert response.status_code == 302
    character = Character.objects.get(campaign=campaign, name=name)
    assert response["Location"] == f"/characters/{character.pk}/wizard/"
    assert character.status == "draft"
    return character


def _errors_of(html: str, input_id: str) -> list[str]:
    """The messages rendered in the error list of one input (``e-<id>``)."""
    match = re.search(rf'<ul class="errorlist sf-errors" id="e-{re.escape(input_id)}"[^>]*>(.*?)</ul>', html, re.S)
    assert match, f"no error list for {input_id}"
    return re.findall(r"<li>(.*?)</li>", match.group(1), re.S)


def _submit_and_approve(table: Any, character: Character) -> None:
    owner = client_for(table.player)
    response = owner.post(f"/characters/{character.pk}/submit/", {"version": character.version})
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.status == "submitted"
    gm = client_for(table.gm)
    assert gm.post(f"/characters/{character.pk}/approve/").status_code == 302
    character.refresh_from_db()
    assert character.status == "approved"


# ---------------------------------------------------------------------------
# Ambre
# ---------------------------------------------------------------------------
def test_it_creates_an_ambre_character_through_the_wizard(table: Any) -> None:
    client = client_for(table.player)
    character = _create(client, table.campaign, "Corwin")
    sheet = valid_ambre_sheet("Corwin")
    responses = run_wizard(client, character, sheet)
    assert [r.status_code for r in responses] == [302] * len(responses)
    assert character.sheet["powers"] == sheet["powers"]
    assert character.version == 1 + len(responses)
    assert SheetVersion.objects.filter(character=character).count() == 1 + len(responses)
    _submit_and_approve(table, character)
    # Approval writes the creation karma ledger (100 points, trumps bought).
    entries = LedgerEntry.objects.filter(character=character)
    assert entries.filter(kind="creation_budget").get().amount == 100
    assert sum(e.amount for e in entries) == character.rule_system.creation_budget(character.sheet).remaining


def test_it_shows_ambre_errors_next_to_the_input_and_saves_nothing_half_typed(table: Any) -> None:
    client = client_for(table.player)
    character = _create(client, table.campaign, "Bleys")
    data = form_data(character.rule_system, valid_ambre_sheet("Bleys"), ["powers"], character.version)
    data["s:powers.0.level"] = "cinq"
    response = client.post(f"/characters/{character.pk}/wizard/powers/", {**data, "go": "next"})
    assert response.status_code == 400
    assert _errors_of(response.content.decode(), "f-powers-0-level") == ["Entrez un nombre entier."]
    character.refresh_from_db()
    assert character.version == 1 and character.sheet["powers"] == []


def test_it_saves_a_rule_breaking_draft_but_refuses_to_submit_it(table: Any) -> None:
    client = client_for(table.player)
    character = _create(client, table.campaign, "Eric")
    sheet = valid_ambre_sheet("Eric")
    sheet["powers"][0]["level"] = 2  # trumps start at level 5
    run_wizard(client, character, sheet)
    assert character.sheet["powers"][0]["level"] == 2
    expected = next(
        e.message.fr for e in character.rule_system.validate_sheet(character.sheet) if e.path == "powers.0.level"
    )
    page = client.get(f"/characters/{character.pk}/wizard/powers/").content.decode()
    assert _errors_of(page, "f-powers-0-level") == [expected]
    response = client.post(f"/characters/{character.pk}/submit/", {"version": character.version}, follow=True)
    assert expected in response.content.decode()
    character.refresh_from_db()
    assert character.status == "draft"


def test_it_revalidates_through_htmx_with_budget_derived_and_field_errors(table: Any) -> None:
    client = client_for(table.player)
    character = _create(client, table.campaign, "Random")
    system = character.rule_system
    sheet = valid_ambre_sheet("Random")
    sheet["attributes"]["psy"] = 10
    data = form_data(system, sheet, ["attributes.psy", "attributes.phy", "attributes.end", "attributes.cbt"])
    response = client.post(f"/characters/{character.pk}/validate/?step=attributes", data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="sheet-status"' in html
    # Budget: 100 karma, 10 spent on Psyche (GM is not involved yet).
    assert re.search(r"<strong>90</strong>", html)
    # The characteristics now have 35 points to share: a cross-step error, linked to its step.
    assert "wizard/characteristics/" in html or "35" in html
    # Out-of-band error lists for every input of the step.
    assert 'id="e-f-attributes-psy" hx-swap-oob="true"' in html
    character.refresh_from_db()
    assert character.version == 1  # validation never saves


def test_it_adds_and_removes_list_items_without_saving(table: Any) -> None:
    client = client_for(table.player)
    character = _create(client, table.campaign, "Julian")
    data = {"n:powers": "0", "_add": "powers", "version": str(character.version)}
    response = client.post(f"/characters/{character.pk}/wizard/powers/", data, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and 'name="s:powers.0.power"' in html
    assert html.lstrip().startswith('<form id="sheet-form"')
    data = {"n:powers": "1", "s:powers.0.power": "atouts", "s:powers.0.level": "5", "del:powers.0": "1"}
    response = client.post(f"/characters/{character.pk}/wizard/powers/", data, HTTP_HX_REQUEST="true")
    assert 'name="s:powers.0.power"' not in response.content.decode()
    character.refresh_from_db()
    assert character.version == 1


# ---------------------------------------------------------------------------
# Clefs de l'Aube
# ---------------------------------------------------------------------------
def _clefs_skills() -> list[dict[str, Any]]:
    return [
        {"name": name, "aspect": "PH", "default_means": "PU", "nc": nc}
        for name, nc in (("Épée", 10), ("Course", 10), ("Chant", 5), ("Nage", 5), ("Lecture", 5))
    ]


def test_it_creates_a_clefs_character_with_a_server_side_roll(db: Any) -> None:
    table = make_table("clefs-de-l-aube", prefix="c")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Aube")
    response = client.post(
        f"/characters/{character.pk}/clefs-roll/",
        {"aspect_method": "ROLL_STANDARD", "means_method": "ROLL", "version": character.version},
    )
    assert response.status_code == 302
    character.refresh_from_db()
    record = character.sheet["creation"]["roll"]
    assert len(record["draws"]) == 10 and sum(record["aspect_results"]) == 30
    assert character.sheet["aspects"] == dict(zip(("PH", "ME", "MY"), record["aspect_results"], strict=True))
    # The roll is kept in the history; the player cannot roll again.
    assert "creation dice rolled" in character.versions.last().reason or "dés" in character.versions.last().reason
    again = client.post(
        f"/characters/{character.pk}/clefs-roll/",
        {"aspect_method": "ROLL_STANDARD", "means_method": "ROLL", "version": character.version},
    )
    assert again.status_code == 302
    character.refresh_from_db()
    assert character.sheet["creation"]["roll"] == record
    sheet = copy.deepcopy(character.sheet)
    sheet["skills"] = _clefs_skills()
    # The player places the rolled means values (pairs may differ by 5 at most).
    system = character.rule_system
    for values in itertools.permutations(record["means_values"]):
        placed = dict(zip(("PU", "RE", "MA", "PR", "EX", "PE"), values, strict=True))
        sheet["creation"]["means_assigned"] = dict(placed)
        sheet["means"] = dict(placed)
        if not system.validate_sheet(sheet):
            break
    responses = run_wizard(client, character, sheet)
    assert [r.status_code for r in responses] == [302] * len(responses)
    # The player could not forge the roll: dict fields are not editable by players.
    assert character.sheet["creation"]["roll"] == record
    _submit_and_approve(table, character)


def test_it_refuses_a_clefs_sheet_with_a_wrong_skill_package(db: Any) -> None:
    table = make_table("clefs-de-l-aube", prefix="c")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Crépuscule")
    sheet = character.rule_system.default_sheet()
    sheet["skills"] = _clefs_skills()[:4]
    run_wizard(client, character, sheet)
    page = client.get(f"/characters/{character.pk}/wizard/skills/").content.decode()
    assert "Compétences de création attendues" in page
    client.post(f"/characters/{character.pk}/submit/", {"version": character.version})
    character.refresh_from_db()
    assert character.status == "draft"
    # Bad method: a field error on the method, nothing rolled.
    response = client.post(
        f"/characters/{character.pk}/clefs-roll/",
        {"aspect_method": "LOADED_DICE", "means_method": "ROLL", "version": character.version},
        follow=True,
    )
    assert "Méthode inconnue." in response.content.decode()
    character.refresh_from_db()
    assert not character.sheet["creation"].get("roll")


# ---------------------------------------------------------------------------
# SMS
# ---------------------------------------------------------------------------
def test_it_creates_an_sms_character_with_race_and_archetype_templates(db: Any) -> None:
    table = make_table("sms", prefix="s")
    table.campaign.system_settings = {
        "archetype_modules": {"chevalier": [{"name": "Équitation", "kind": "positive", "scope": 1, "rank": 3}]}
    }
    table.campaign.save()
    client = client_for(table.player)
    character = _create(client, table.campaign, "Loreval")
    sheet = character.rule_system.default_sheet()
    sheet["race"] = "elfin"
    sheet["concept"] = "Un elfin voyageur."
    client.post(
        f"/characters/{character.pk}/wizard/race/",
        {**form_data(character.rule_system, sheet, ["race", "size_factor"], character.version), "go": "next"},
    )
    character.refresh_from_db()
    racial = [m for m in character.sheet["modules"] if m["source"] == "racial"]
    assert racial and all(m["free_rank"] == m["rank"] for m in racial)
    response = client.post(
        f"/characters/{character.pk}/template/",
        {"kind": "archetype", "key": "chevalier", "version": character.version},
    )
    assert response.status_code == 302
    character.refresh_from_db()
    assert {"key": "chevalier"} in character.sheet["archetypes"]
    assert any(m["name"] == "Équitation" and m["rank"] == 3 for m in character.sheet["modules"])
    responses = run_wizard(client, character, {**character.sheet, "concept": "Un elfin voyageur."})
    assert [r.status_code for r in responses] == [302] * len(responses)
    _submit_and_approve(table, character)


def test_it_flags_an_sms_module_over_budget(db: Any) -> None:
    table = make_table("sms", prefix="s")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Glouton")
    system = character.rule_system
    module = {"name": "Force", "kind": "positive", "scope": 5, "rank": 12}
    sheet = system.default_sheet()
    sheet["modules"] = [module]
    data = form_data(system, sheet, ["modules"], character.version)
    response = client.post(f"/characters/{character.pk}/validate/?step=modules", data)
    html = response.content.decode()
    assert "sf-invalid" in html
    data["s:modules.0.scope"] = "9"  # at most 5
    response = client.post(f"/characters/{character.pk}/wizard/modules/", {**data, "go": "next"})
    assert response.status_code == 200 or response.status_code == 302
    html = client.get(f"/characters/{character.pk}/wizard/modules/").content.decode()
    character.refresh_from_db()
    assert character.status == "draft"
    errors = _errors_of(html, "f-modules-0-scope")
    assert errors == ["Doit être au plus 5."]


# ---------------------------------------------------------------------------
# Altaride
# ---------------------------------------------------------------------------
def test_it_creates_an_altaride_character_within_the_talent_pools(db: Any) -> None:
    table = make_table("altaride", prefix="a")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Mythe")
    system = character.rule_system
    sheet = system.default_sheet()
    sheet["talents"].update({"HAB": 12, "PER": 10, "VIG": 11, "ESP": 9})
    data = form_data(system, sheet, next(s.paths for s in system.creation_steps() if s.key == "talents"))
    html = client.post(f"/characters/{character.pk}/validate/?step=talents", data).content.decode()
    budget = system.creation_budget(sheet)
    assert f"<strong>{budget.pools['talents']['spent']}</strong> / 4000" in html
    responses = run_wizard(client, character, sheet)
    assert [r.status_code for r in responses] == [302] * len(responses)
    assert character.sheet["talents"]["HAB"] == 12
    _submit_and_approve(table, character)


def test_it_reports_altaride_talent_errors_at_their_paths(db: Any) -> None:
    table = make_table("altaride", prefix="a")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Titan")
    system = character.rule_system
    sheet = system.default_sheet()
    sheet["talents"]["HAB"] = 40
    data = form_data(system, sheet, next(s.paths for s in system.creation_steps() if s.key == "talents"))
    html = client.post(f"/characters/{character.pk}/validate/?step=talents", data).content.decode()
    assert _errors_of(html, "f-talents-HAB") == ["À la création, un Talent est entre 5 et 15."]
    assert "points dépensés sur 4000" in html  # the pool error, in the general box
    run_wizard(client, character, sheet)
    client.post(f"/characters/{character.pk}/submit/", {"version": character.version})
    character.refresh_from_db()
    assert character.status == "draft"


def test_it_returns_a_submitted_sheet_with_comments(table: Any) -> None:
    client = client_for(table.player)
    character = _create(client, table.campaign, "Flora")
    run_wizard(client, character, valid_ambre_sheet("Flora"))
    client.post(f"/characters/{character.pk}/submit/", {"version": character.version})
    gm = client_for(table.gm)
    response = gm.post(f"/characters/{character.pk}/return/", {"comment": ""})
    character.refresh_from_db()
    assert character.status == "submitted"  # a return needs a comment
    response = gm.post(f"/characters/{character.pk}/return/", {"comment": "Plus de background, merci."})
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.status == "draft" and character.gm_comment == "Plus de background, merci."
    page = client.get(f"/characters/{character.pk}/wizard/identity/").content.decode()
    assert "Plus de background, merci." in page
    # A player cannot approve.
    client.post(f"/characters/{character.pk}/submit/", {"version": character.version})
    client.post(f"/characters/{character.pk}/approve/")
    character.refresh_from_db()
    assert character.status == "submitted"


@pytest.mark.parametrize(("step", "path", "sub"), [("powers", "powers", "power"), ("assets", "allies", "type")])
def test_a_new_power_or_ally_row_shows_no_choice_and_says_only_required(
    table: Any, step: str, path: str, sub: str
) -> None:
    """Issue #19 item 10: a new row showed "La Marelle" while holding nothing, then saved it unasked."""
    client = client_for(table.player)
    character = _create(client, table.campaign, "Julian")
    data = {f"n:{path}": "0", "_add": path, "version": str(character.version)}
    html = client.post(f"/characters/{character.pk}/wizard/{step}/", data, HTTP_HX_REQUEST="true").content.decode()
    select = re.search(rf'<select id="f-{path}-0-{sub}".*?</select>', html, re.S)
    assert select, html
    assert re.findall(r"<option [^>]*>", select.group(0))[0] == '<option value="" selected>'
    # Revalidating the untouched row: one "required" message, no "unknown: None", nothing chosen for the user.
    data = {f"n:{path}": "1", f"s:{path}.0.{sub}": "", "version": str(character.version)}
    url = f"/characters/{character.pk}/validate/?step={step}"
    html = client.post(url, data, HTTP_HX_REQUEST="true").content.decode()
    assert _errors_of(html, f"f-{path}-0-{sub}") == ["Ce champ est obligatoire."]
    assert "None" not in html


def test_placing_the_clefs_aspects_in_another_order_is_not_an_exchange(db: Any) -> None:
    """Issue #19 item 3: a new placement shows in step 2 and counts no aspect exchange."""
    from rules.base import SeededRandom
    from rules.clefs import creation_roll

    table = make_table("clefs-de-l-aube", prefix="c")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Aube")
    record = creation_roll(SeededRandom(26), "ROLL_STANDARD", "ROLL")
    assert record["aspect_results"] == [11, 11, 8]
    sheet = copy.deepcopy(character.sheet)
    sheet["creation"].update(aspect_method="ROLL_STANDARD", means_method="ROLL", roll=record)
    sheet["creation"]["aspects_assigned"] = {"PH": 11, "ME": 11, "MY": 8}
    sheet["aspects"] = {"PH": 11, "ME": 11, "MY": 8}
    Character.objects.filter(pk=character.pk).update(sheet=sheet)
    character.refresh_from_db()
    data = form_data(
        character.rule_system,
        character.sheet,
        ["creation.aspects_assigned.PH", "creation.aspects_assigned.ME", "creation.aspects_assigned.MY"],
        character.version,
    )
    data.update({"s:creation.aspects_assigned.PH": "8", "s:creation.aspects_assigned.MY": "11"})
    preview = client.post(f"/characters/{character.pk}/validate/?step=aspects", data, HTTP_HX_REQUEST="true")
    assert "échanges d&#x27;aspects utilisés" not in preview.content.decode()
    response = client.post(f"/characters/{character.pk}/wizard/aspects/", {**data, "go": "next"})
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.sheet["aspects"] == {"PH": 8, "ME": 11, "MY": 11}
    page = client.get(f"/characters/{character.pk}/wizard/aspect_exchanges/").content.decode()
    assert 'name="s:aspects.PH" value="8"' in page
    codes = {e.code for e in character.rule_system.validate_sheet(character.sheet)}
    assert "too_many_aspect_exchanges" not in codes


def test_a_gm_approves_a_clefs_npc_without_pc_creation_rules(db: Any) -> None:
    """Issue #19 item 6: an NPC follows the NPC rules (RuleSystem.validate_npc), and has no creation budget."""
    from characters import services

    table = make_table("clefs-de-l-aube", prefix="n")
    npc = services.create_character(table.gm, table.campaign, name="Orque", is_npc=True)
    sheet = copy.deepcopy(npc.sheet)
    sheet["aspects"] = {"PH": 14, "ME": 8, "MY": 6}
    sheet["skills"] = [{"name": "Hache", "aspect": "PH", "default_means": "PU", "nc": 15}]
    npc = services.save_sheet(table.gm, npc, sheet=sheet, expected_version=npc.version)
    result = services.evaluate_character(npc)
    assert result.valid and result.budget is None
    npc = services.approve_character(table.gm, npc)
    assert npc.status == "approved"


def test_an_sms_archetype_without_gm_list_applies_the_seeds_modules(db: Any) -> None:
    """Issue #19 item 8: "Modèle appliqué." used to add nothing when the GM had set no module list."""
    table = make_table("sms", prefix="sa")
    client = client_for(table.player)
    character = _create(client, table.campaign, "Lucantor")
    page = client.get(f"/characters/{character.pk}/wizard/archetype/").content.decode()
    assert "ne donne que les noms des archétypes" in page
    response = client.post(
        f"/characters/{character.pk}/template/",
        {"kind": "archetype", "key": "lancer_des_sorts_de_magie_divine", "version": character.version},
    )
    assert response.status_code == 302
    character.refresh_from_db()
    added = [m for m in character.sheet["modules"] if m["source"] == "archetype"]
    assert [(m["name"], m["predefined"], m["rank"]) for m in added] == [("Magie divine", "divine_power", 1)]
