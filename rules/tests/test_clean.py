"""``rules.base.clean``: coerce and fill defaults once (Foundry's ``cleanData``), and the shared int readers."""

from __future__ import annotations

from typing import Any

import pytest

from rules import available_systems
from rules.base import Field, Msg, as_int, clean, is_int, to_int, validate_fields

STEPS = tuple((str(n), Msg(str(n), str(n))) for n in range(4))
FIELDS = (
    Field("name", "str", Msg("Nom", "Name"), required=True),
    Field("stats.force", "int", Msg("Force", "Strength"), default=3, minimum=1, maximum=5),
    Field("stats.agile", "bool", Msg("Agile", "Agile")),
    Field("range", "choice", Msg("Portée", "Range"), default="0", choices=STEPS),
    Field(
        "items",
        "list",
        Msg("Objets", "Items"),
        item_fields=(Field("qty", "int", Msg("Qté", "Qty"), default=1), Field("worn", "bool", Msg("Porté", "Worn"))),
    ),
    Field("notes", "dict", Msg("Notes", "Notes")),
)


def test_it_fills_every_missing_value_with_its_default() -> None:
    assert clean({}, FIELDS) == {
        "name": "",
        "stats": {"force": 3, "agile": False},
        "range": "0",
        "items": [],
        "notes": {},
    }
    assert clean(None, FIELDS) == clean({}, FIELDS)
    assert clean({"stats": {"force": None}}, FIELDS)["stats"]["force"] == 3


def test_it_coerces_what_a_form_or_an_old_record_sends() -> None:
    data: dict[str, Any] = {
        "name": "Iris",
        "stats": {"force": " -2 ", "agile": "on"},
        "range": 2,
        "items": [{"qty": "4", "worn": "false"}, {"qty": 2.0, "worn": 1}, "loose"],
        "extra": "kept",
    }
    out = clean(data, FIELDS)
    assert out["stats"] == {"force": -2, "agile": True}
    assert out["range"] == "2"
    assert out["items"] == [{"qty": 4, "worn": False}, {"qty": 2, "worn": True}, "loose"]
    assert out["extra"] == "kept"
    assert data["stats"]["force"] == " -2 " and data["items"][0]["qty"] == "4"  # the input is never changed


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("stats.force", "3.5"),
        ("stats.force", "²"),
        ("stats.force", True),
        ("stats.force", 2.5),
        ("stats.agile", "maybe"),
        ("stats.agile", 2),
        ("range", 7),
        ("notes", "text"),
    ],
)
def test_it_keeps_what_it_cannot_read_for_validation_to_report(path: str, value: Any) -> None:
    head, _, tail = path.partition(".")
    data: dict[str, Any] = {"name": "Iris", head: {tail: value} if tail else value}
    out = clean(data, FIELDS)
    kept = out[head][tail] if tail else out[head]
    assert kept == value and type(kept) is type(value)
    assert [e.path for e in validate_fields(out, FIELDS)] == [path]


def test_a_wrong_container_is_kept_not_replaced() -> None:
    out = clean({"stats": "garbage"}, FIELDS)
    assert out["stats"] == "garbage"


def test_it_is_idempotent_and_gives_each_systems_default_sheet_from_nothing() -> None:
    once = clean({"stats": {"force": "4"}, "items": [{"qty": "1"}]}, FIELDS)
    assert clean(once, FIELDS) == once
    for system in available_systems():
        sheet = system.default_sheet()
        assert clean({}, system.sheet_fields()) == sheet, system.slug
        assert clean(sheet, system.sheet_fields()) == sheet, system.slug


def test_the_shared_int_readers() -> None:
    assert [as_int(v, 7) for v in (3, -1, True, "3", 2.0, None)] == [3, -1, 7, 7, 7, 7]
    assert [to_int(v, 7) for v in (3, " 3 ", 2.9, True, "x", None)] == [3, 3, 2, 7, 7, 7]
    assert to_int(True, 7, bools=True) == 1 and to_int(False, 7, bools=True) == 0
    assert [is_int(v) for v in (0, True, 1.0, "1")] == [True, False, False, False]
