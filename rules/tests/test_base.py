"""The shared schema helpers, random sources and dice expressions."""

from __future__ import annotations

import pytest

from rules import available_systems, get_system
from rules.base import (
    Field,
    Msg,
    RecordingRandom,
    RulesError,
    ScriptedRandom,
    SeededRandom,
    default_from_fields,
    get_path,
    set_path,
    validate_fields,
)
from rules.dice import roll_expression

FIELDS = (
    Field("name", "str", Msg("Nom", "Name"), required=True, max_length=5),
    Field("stats.force", "int", Msg("Force", "Strength"), default=3, minimum=1, maximum=5),
    Field("kind", "choice", Msg("Type", "Kind"), default="a", choices=(("a", Msg("A", "A")), ("b", Msg("B", "B")))),
    Field(
        "items",
        "list",
        Msg("Objets", "Items"),
        max_items=2,
        item_fields=(Field("qty", "int", Msg("Qté", "Qty"), minimum=0),),
    ),
)


def test_it_builds_defaults_from_fields() -> None:
    assert default_from_fields(FIELDS) == {"name": "", "stats": {"force": 3}, "kind": "a", "items": []}


def test_it_reports_field_errors_with_paths_and_codes() -> None:
    data = {"name": "", "stats": {"force": 9}, "kind": ["a"], "items": [{"qty": -1}, {"qty": "x"}, {}]}
    errors = {(e.path, e.code) for e in validate_fields(data, FIELDS)}
    assert errors == {
        ("name", "required"),
        ("stats.force", "max_value"),
        ("kind", "invalid_choice"),
        ("items", "max_items"),
        ("items.0.qty", "min_value"),
        ("items.1.qty", "invalid_int"),
    }


def test_it_refuses_booleans_as_integers() -> None:
    errors = validate_fields({"name": "a", "stats": {"force": True}}, FIELDS)
    assert [(e.path, e.code) for e in errors] == [("stats.force", "invalid_int")]


def test_error_messages_are_bilingual() -> None:
    (error,) = validate_fields({"name": "a", "stats": {"force": 0}}, FIELDS)
    assert error.message.get("fr") == "Doit être au moins 1."
    assert error.message.get("en") == "Must be at least 1."


def test_paths_read_and_write_nested_data() -> None:
    data: dict = {}
    set_path(data, "a.b.c", 4)
    assert data == {"a": {"b": {"c": 4}}}
    assert get_path(data, "a.b.c") == 4
    assert get_path(data, "a.x", "default") == "default"
    assert get_path({"l": [{"v": 1}]}, "l.0.v") == 1


def test_scripted_random_replays_and_detects_divergence() -> None:
    rng = ScriptedRandom([3, 6])
    assert rng.randint(1, 6) == 3
    with pytest.raises(ValueError):
        rng.randint(1, 4)  # 6 is outside [1, 4]
    with pytest.raises(ValueError):
        ScriptedRandom([]).randint(1, 6)


def test_dice_expressions_are_recorded_and_replayable() -> None:
    first = roll_expression("3d6+2", SeededRandom(42))
    assert len(first.draws) == 3
    assert first.outcome["total"] == sum(first.draws) + 2
    replay = roll_expression("3d6+2", ScriptedRandom(first.draws))
    assert replay.outcome == first.outcome


@pytest.mark.parametrize("expression", ["", "2d", "d6+", "abc", "1d6" * 40, "500d6", "1d100000"])
def test_bad_dice_expressions_raise_clear_errors(expression: str) -> None:
    with pytest.raises(RulesError) as info:
        roll_expression(expression, SeededRandom(1))
    assert info.value.errors[0].path == "expression"
    assert info.value.errors[0].message.fr


def test_recording_random_keeps_draw_order() -> None:
    rng = RecordingRandom(ScriptedRandom([5, 1, 20]))
    assert [rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 20)] == [5, 1, 20]
    assert rng.draws == [5, 1, 20]
    assert rng.dice == [(1, 6), (1, 6), (1, 20)]


def test_the_registry_lists_the_four_systems() -> None:
    assert [s.slug for s in available_systems()] == ["ambre", "clefs-de-l-aube", "sms", "altaride"]
    for system in available_systems():
        described = system.describe()
        assert described["slug"] == system.slug
        assert described["sheet_fields"], system.slug
        assert system.validate_sheet(system.default_sheet(), None) is not None
    with pytest.raises(KeyError):
        get_system("d&d")
