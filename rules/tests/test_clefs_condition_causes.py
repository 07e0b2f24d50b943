"""A condition's cause written by the rules (a fight's wound, a GM's ruling) reads in words, not as a code."""

from __future__ import annotations

import rules
from rules.clefs import tables as t

CLEFS = rules.get_system("clefs-de-l-aube")


def _sheet() -> dict:
    sheet = CLEFS.default_sheet()
    sheet["skills"] = [{"name": "Épée", "aspect": "PH", "nc": 5}]
    sheet["conditions"] = [
        {"kind": "handicap", "value": 3, "source": "harm", "note": "entaille au bras", "active": True},
        {"kind": "advantage", "value": 2, "source": "gm", "note": "", "active": True},
        {"kind": "handicap", "value": 1, "source": "alcool", "note": "", "active": True},
    ]
    return sheet


def test_the_test_reads_name_the_causes_in_both_languages() -> None:
    built = CLEFS.build_test(_sheet(), "skill:0", {"means_code": "PU"})
    labels = {(r.label.fr, r.label.en): r.value for r in built.reads if r.path.startswith("conditions.")}
    assert labels == {
        ("Handicap Blessure au combat", "Handicap Wound from a fight"): 3,
        ("Avantage Décision du meneur", "Advantage Game master's ruling"): 2,
        ("Handicap alcool", "Handicap alcool"): 1,  # typed by the GM: as typed
    }


def test_the_cause_field_declares_the_codes_the_rules_write() -> None:
    conditions = next(f for f in CLEFS.sheet_fields() if f.path == "conditions")
    source = next(f for f in conditions.item_fields if f.path == "source")
    assert source.kind == "str" and dict(source.value_labels) == dict(t.CONDITION_SOURCE_LABELS)
    assert source.shown("harm") is not None and source.shown("alcool") is None and source.shown(3) is None
    written = {"harm", "gm"}  # rules/clefs/combat.py: a confrontation's harm, a GM's condition
    assert written <= {code for code, _ in source.value_labels}
