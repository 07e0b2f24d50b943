"""Issue 18 items 1-2: nobody chooses their own creation dice, nobody bypasses a lock.

* The Clefs creation roll is a chained roll (kind ``creation``) referenced by the
  character; the rules check the sheet against it (``verify_server_rolls``).
* Locked and GM-only sheet paths are declared by the rules (``Field.audience``,
  ``RuleSystem.locked_paths``) and enforced alike on edit, API PUT and import.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

import rules
from api.tests.conftest import token_client
from campaigns.dice import verify_chain
from campaigns.models import Roll
from characters import access, services
from characters.models import Character
from characters.tests.conftest import make_character, valid_ambre_sheet
from conftest import make_table
from rules.base import ScriptedRandom, SheetContext, gm_only_paths
from rules.clefs import creation_roll
from systems.clefs import services as clefs_services

MEANS = ("PU", "RE", "MA", "PR", "EX", "PE")
SKILLS = [
    {"name": name, "aspect": "PH", "default_means": "PU", "nc": nc}
    for name, nc in (("Épée", 10), ("Course", 10), ("Chant", 5), ("Nage", 5), ("Lecture", 5))
]


def _place_means(sheet: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    system = rules.get_system("clefs-de-l-aube")
    sheet = copy.deepcopy(sheet)
    sheet["skills"] = copy.deepcopy(SKILLS)
    for values in itertools.permutations(record["means_values"]):
        placed = dict(zip(MEANS, values, strict=True))
        sheet["creation"]["means_assigned"] = dict(placed)
        sheet["means"] = dict(placed)
        if not system.validate_sheet(sheet):
            return sheet
    raise AssertionError("no valid placement")


def _forged_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """A self-consistent record with chosen draws (all sixes): 15 / 15 / 0 would be lovely."""
    record = creation_roll(ScriptedRandom([6] * 10), "ROLL_STANDARD", "ROLL")
    forged = copy.deepcopy(sheet)
    forged["creation"].update(roll=record, aspect_method="ROLL_STANDARD", means_method="ROLL")
    forged["creation"]["aspects_assigned"] = dict(zip(("PH", "ME", "MY"), record["aspect_results"], strict=True))
    forged["aspects"] = dict(forged["creation"]["aspects_assigned"])
    return _place_means(forged, record)


@pytest.fixture
def clefs(db: Any) -> Any:
    return make_table("clefs-de-l-aube", prefix="k")


def _rolled(clefs: Any) -> Character:
    hero = services.create_character(clefs.player, clefs.campaign, name="Aube")
    return clefs_services.clefs_creation_roll(
        clefs.player, hero, aspect_method="ROLL_STANDARD", means_method="ROLL", expected_version=hero.version
    )


def test_it_stores_the_creation_roll_in_the_dice_chain(clefs: Any) -> None:
    hero = _rolled(clefs)
    roll = Roll.objects.get(pk=hero.creation_roll_id)
    assert roll.kind == "creation" and roll.character_id == hero.pk and roll.secret
    assert roll.roller_id == clefs.player.pk
    assert hero.sheet["creation"]["roll"] == roll.resolution
    assert len(roll.resolution["draws"]) == 10
    assert verify_chain(clefs.campaign) == (True, [])
    # A second roll by the player is refused; the GM may roll again (a new chained roll).
    with pytest.raises(PermissionDenied):
        clefs_services.clefs_creation_roll(
            clefs.player, hero, aspect_method="ROLL_STANDARD", means_method="ROLL", expected_version=hero.version
        )
    again = clefs_services.clefs_creation_roll(
        clefs.gm, hero, aspect_method="ROLL_LOW", means_method="ROLL", expected_version=hero.version
    )
    assert again.creation_roll_id != roll.pk
    assert Roll.objects.filter(character=hero, kind="creation").count() == 2


def test_it_keeps_the_server_roll_when_a_player_puts_forged_draws(clefs: Any) -> None:
    hero = _rolled(clefs)
    genuine = copy.deepcopy(hero.sheet["creation"]["roll"])
    forged = _forged_sheet(hero.sheet)
    response = token_client(clefs.player).put(
        f"/api/v1/characters/{hero.pk}/sheet/", {"sheet": forged, "version": hero.version}, format="json"
    )
    assert response.status_code == 200, response.content
    hero.refresh_from_db()
    assert hero.sheet["creation"]["roll"] == genuine
    # The forged aspects do not match the server's results: the sheet cannot be submitted.
    if sorted(genuine["aspect_results"]) != [0, 15, 15]:
        with pytest.raises(services.SheetInvalid):
            services.submit_character(clefs.player, hero, expected_version=hero.version)
        hero.refresh_from_db()
        assert hero.status == "draft"


def test_a_gm_cannot_write_the_roll_either(clefs: Any) -> None:
    hero = _rolled(clefs)
    genuine = copy.deepcopy(hero.sheet["creation"]["roll"])
    forged = _forged_sheet(hero.sheet)
    saved = services.save_sheet(clefs.gm, hero, sheet=forged, expected_version=hero.version)
    assert saved.sheet["creation"]["roll"] == genuine


def test_the_rules_check_the_sheet_against_the_stored_roll() -> None:
    system = rules.get_system("clefs-de-l-aube")
    genuine = creation_roll(ScriptedRandom([1, 2, 3, 4, 1, 2, 3, 4, 5, 6]), "ROLL_STANDARD", "ROLL")
    sheet = system.default_sheet()
    forged = _forged_sheet(sheet)
    # Self-consistent, so validate_sheet alone accepts it...
    assert not system.validate_sheet(forged)
    # ...but it is not the server's roll.
    codes = [e.code for e in system.verify_server_rolls(forged, {"creation": genuine})]
    assert codes == ["roll_not_from_server"]
    assert [e.code for e in system.verify_server_rolls(forged, {})] == ["roll_not_from_server"]
    honest = copy.deepcopy(forged)
    honest["creation"]["roll"] = genuine
    assert system.verify_server_rolls(honest, {"creation": genuine}) == []
    assert system.verify_server_rolls(system.default_sheet(), {}) == []


def test_a_forged_sheet_without_a_stored_roll_cannot_be_submitted(clefs: Any) -> None:
    hero = make_character(clefs, sheet=_forged_sheet(rules.get_system("clefs-de-l-aube").default_sheet()))
    assert hero.creation_roll_id is None
    errors = services.evaluate_character(hero).all_errors()
    assert "roll_not_from_server" in [e.code for e in errors]
    with pytest.raises(services.SheetInvalid):
        services.submit_character(clefs.player, hero)


def test_an_import_never_carries_its_own_creation_roll(clefs: Any) -> None:
    hero = _rolled(clefs)
    export = services.export_character(clefs.player, hero)
    export["sheet"] = _forged_sheet(hero.sheet)
    other = make_table("clefs-de-l-aube", prefix="k2")
    response = token_client(other.player).post(
        f"/api/v1/campaigns/{other.campaign.pk}/characters/import/", {"data": export}, format="json"
    )
    assert response.status_code == 201, response.content
    imported = Character.objects.get(pk=response.json()["id"])
    assert imported.creation_roll_id is None
    assert imported.sheet["creation"]["roll"] == {}
    assert imported.sheet["creation"]["aspect_method"] == "ROLL_STANDARD"
    # The dice are rolled again in the new campaign's chain.
    rolled = clefs_services.clefs_creation_roll(
        other.player, imported, aspect_method="ROLL_STANDARD", means_method="ROLL", expected_version=imported.version
    )
    assert rolled.creation_roll.campaign_id == other.campaign.pk


# ---------------------------------------------------------------------------
# Locks declared by the rules
# ---------------------------------------------------------------------------
def test_gm_only_fields_are_declared_by_the_rules() -> None:
    ambre = rules.get_system("ambre")
    paths = gm_only_paths(ambre.sheet_fields())
    for path in ("creation_points", "modifiers.life_max", "condition.dead", "invented_powers"):
        assert path in paths
    assert "name" not in paths and "attributes.psy" not in paths
    assert gm_only_paths(rules.get_system("sms").sheet_fields()) == ["afflictions.boxes_total"]
    described = {f["path"]: f["audience"] for f in ambre.describe()["sheet_fields"]}
    assert described["creation_points"] == "gm" and described["name"] == "player"


def test_locked_paths_depend_on_the_context() -> None:
    ambre = rules.get_system("ambre")
    sheet = ambre.default_sheet()
    assert ambre.locked_paths(sheet, SheetContext(gm=True)) == []
    player = ambre.locked_paths(sheet, SheetContext())
    assert "ladder" in player and "attributes" not in player and "creation_points" in player
    assert "attributes" in ambre.locked_paths(sheet, SheetContext(in_auction=True))
    clefs = rules.get_system("clefs-de-l-aube")
    assert clefs.locked_paths(sheet, SheetContext(gm=True)) == ["creation.roll"]
    assert "creation.aspect_method" not in clefs.locked_paths(sheet, SheetContext())
    rolled = clefs.locked_paths(sheet, SheetContext(rolls={"creation": {"draws": [1]}}))
    assert {"creation.roll", "creation.aspect_method", "creation.means_method"} <= set(rolled)
    # Default implementation: GM-only fields for players, nothing for GMs.
    sms = rules.get_system("sms")
    assert sms.locked_paths(sms.default_sheet(), SheetContext()) == ["afflictions.boxes_total"]


def test_a_clefs_player_cannot_change_the_methods_after_the_roll(clefs: Any) -> None:
    hero = _rolled(clefs)
    assert "creation.aspect_method" in access.locked_paths(clefs.player, hero)
    sheet = copy.deepcopy(hero.sheet)
    sheet["creation"]["aspect_method"] = "FIXED_10"
    saved = services.save_sheet(clefs.player, hero, sheet=sheet, expected_version=hero.version)
    assert saved.sheet["creation"]["aspect_method"] == "ROLL_STANDARD"


def test_an_ambre_import_keeps_gm_fields_at_their_defaults(table: Any) -> None:
    hero = make_character(table, sheet=valid_ambre_sheet())
    export = services.export_character(table.player, hero)
    export["sheet"]["creation_points"] = 10000
    export["sheet"].setdefault("modifiers", {})["life_max"] = 1000
    other = make_table("ambre", prefix="a2")
    response = token_client(other.player).post(
        f"/api/v1/campaigns/{other.campaign.pk}/characters/import/", {"data": export}, format="json"
    )
    assert response.status_code == 201, response.content
    imported = Character.objects.get(pk=response.json()["id"])
    default = rules.get_system("ambre").default_sheet()
    assert imported.sheet["creation_points"] == default["creation_points"]
    assert imported.sheet["modifiers"]["life_max"] == default["modifiers"]["life_max"]
    assert imported.sheet["powers"] == export["sheet"]["powers"]
    # A GM importing into their own campaign may set GM fields.
    response = token_client(other.gm).post(
        f"/api/v1/campaigns/{other.campaign.pk}/characters/import/", {"data": export}, format="json"
    )
    assert response.status_code == 201
    assert Character.objects.get(pk=response.json()["id"]).sheet["creation_points"] == 10000


def test_an_import_with_a_badly_typed_field_creates_nothing(table: Any) -> None:
    hero = make_character(table, sheet=valid_ambre_sheet())
    export = services.export_character(table.player, hero)
    export["sheet"]["powers"] = "lots"
    before = Character.objects.count()
    response = token_client(table.player).post(
        f"/api/v1/campaigns/{table.campaign.pk}/characters/import/", {"data": export}, format="json"
    )
    assert response.status_code == 400
    assert Character.objects.count() == before


def test_the_migration_adopts_a_legacy_sheet_roll_into_the_chain(clefs: Any) -> None:
    from importlib import import_module

    from django.apps import apps

    migration = import_module("characters.migrations.0005_i18_creation_roll")
    record = creation_roll(ScriptedRandom([1, 2, 3, 4, 1, 2, 3, 4, 5, 6]), "ROLL_STANDARD", "ROLL")
    sheet = rules.get_system("clefs-de-l-aube").default_sheet()
    sheet["creation"].update(roll=record, aspect_method="ROLL_STANDARD", means_method="ROLL")
    legacy = make_character(clefs, sheet=sheet)
    migration.adopt_creation_rolls(apps, None)
    legacy.refresh_from_db()
    assert legacy.creation_roll is not None and legacy.creation_roll.kind == "creation"
    assert legacy.creation_roll.resolution == record and legacy.creation_roll.secret
    assert verify_chain(clefs.campaign) == (True, [])
    assert system_errors(legacy) == []


def system_errors(character: Character) -> list[str]:
    system = character.rule_system
    return [e.code for e in system.verify_server_rolls(character.sheet, character.server_rolls())]
