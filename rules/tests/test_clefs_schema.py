"""Clefs de l'Aube: declarations (fields, steps, settings), tables, GM aids and purity."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from rules import get_system
from rules.base import RuleSystem, validate_fields
from rules.clefs import SYSTEM, combination_name, combinations_table
from rules.clefs import tables as t
from rules.clefs.derive import skill_title
from rules.clefs.resolution import difficulty_label, skill_bonus
from rules.tests import present
from rules.tests.test_clefs_helpers import marie_pierre_sheet


def test_it_is_registered():
    system = get_system("clefs-de-l-aube")
    assert system is SYSTEM and isinstance(system, RuleSystem)
    assert system.diceless is False and system.currencies == ("xp",)


def test_it_describes_itself_as_json():
    data = json.loads(json.dumps(SYSTEM.describe()))
    assert data["slug"] == "clefs-de-l-aube"
    assert {"action", "confrontation", "multiple", "overreach"} <= set(data["test_kinds"])
    assert {"raise_skill", "new_skill", "means_exchange", "decline_means_exchange"} <= set(data["purchase_kinds"])
    assert [s["key"] for s in data["creation_steps"]] == ["aspects", "aspect_exchanges", "means", "skills"]
    for step in data["creation_steps"]:
        assert step["label"]["fr"] and step["label"]["en"] and step["help"]


def test_it_declares_every_stored_field():
    paths = {f.path for f in SYSTEM.sheet_fields()}
    assert {f"aspects.{c}" for c in t.ASPECTS} <= paths
    assert {f"means.{c}" for c in t.MEANS} <= paths
    assert {"skills", "conditions", "means_exchanges_done", "creation.roll", "creation.skill_package"} <= paths
    default = SYSTEM.default_sheet()
    assert default["aspects"] == {"PH": 10, "ME": 10, "MY": 10}
    assert default["means"] == dict.fromkeys(t.MEANS, 0)
    assert validate_fields(default, SYSTEM.sheet_fields()) == []


def test_it_keeps_combination_names_off_the_sheet():
    """L360-L363: the indicative names must not be reproduced on the character sheet."""
    names = {msg.fr for msg in t.COMBINATIONS.values()}
    sheet_text = json.dumps([f.to_dict() for f in SYSTEM.sheet_fields()], ensure_ascii=False)
    derived_text = json.dumps(SYSTEM.derive(marie_pierre_sheet()), ensure_ascii=False)
    for name in names - {"Endurance", "Perception", "Persuasion", "Concentration"}:
        assert name not in sheet_text and name not in derived_text, name


@pytest.mark.parametrize(
    ("aspect", "means", "name"),
    [
        ("PH", "PU", "Force"),
        ("ME", "RE", "Volonté"),
        ("MY", "MA", "Qi"),
        ("Mt", "Pr", "Minutie"),
        ("MY", "EX", "Aura"),
        ("PH", "PE", "Cinq sens physique"),
        ("MY", "PE", "Sixième sens"),
        ("ME", "Rs", "Volonté"),
    ],
)
def test_it_names_combinations_for_the_gm(aspect, means, name):
    """Table L370-L422 (aliases Mt, Rs accepted, G24)."""
    assert combination_name(aspect, means).fr == name


def test_it_exposes_the_whole_gm_table():
    table = combinations_table()
    assert len(table) == 6 and all(len(row["names"]) == 3 for row in table)
    aids = SYSTEM.gm_aids()
    assert [d["nd"] for d in aids["difficulties"]] == [0, 5, 10, 15, 20]
    assert [a["code"] for a in aids["aspects"]] == ["PH", "ME", "MY"]
    assert aids["aspects"][0]["label"] == {"fr": "Physique (Ph)", "en": "Physical (Ph)"}


@pytest.mark.parametrize(("nc", "bc"), [(0, -10), (5, -5), (10, 0), (12, 2), (15, 5), (20, 10)])
def test_it_computes_skill_bonus_d01(nc, bc):
    assert skill_bonus(nc) == bc


@pytest.mark.parametrize(
    ("nc", "title"),
    [(0, "profane"), (4, "profane"), (5, "apprenti"), (12, "disciple"), (15, "compagnon"), (20, "maître")],
)
def test_it_titles_skill_levels(nc, title):
    assert skill_title(nc).fr.startswith(title)


@pytest.mark.parametrize(
    ("nd", "label"),
    [
        (0, "normale"),
        (5, "très difficile"),
        (10, "extrêmement difficile"),
        (15, "presque impossible"),
        (20, "légendaire"),
        (-5, "négative (facile)"),
    ],
)
def test_it_labels_difficulties(nd, label):
    """Table L837-L869 (G7: the table wins over L826-L827)."""
    assert present(difficulty_label(nd)).fr == label


def test_it_derives_default_ca_per_skill():
    derived = SYSTEM.derive(marie_pierre_sheet())
    alchimie = next(s for s in derived["skills"] if s["name"] == "Alchimie")
    assert (alchimie["bc"], alchimie["default_ca"], alchimie["next_cost"]) == (0, 17 + 2 + 0, 11)


def test_it_migrates_alias_codes():
    old = {
        "aspects": {"Ph": 10, "Mt": 12, "My": 8},
        "means": {"Pu": 1, "Rs": -1},
        "skills": [{"name": "X", "aspect": "Mt", "default_means": "Rs", "nc": 3}],
    }
    new = SYSTEM.migrate_sheet(old, 0)
    assert new["aspects"] == {"PH": 10, "ME": 12, "MY": 8}
    assert new["means"] == {"PU": 1, "RE": -1}
    assert new["skills"][0]["aspect"] == "ME" and new["skills"][0]["default_means"] == "RE"
    assert SYSTEM.migrate_sheet(new, 1) is new
    with pytest.raises(ValueError):
        SYSTEM.migrate_sheet(new, 2)


def test_it_declares_campaign_settings_with_defaults():
    defaults = SYSTEM.default_campaign_settings()
    assert defaults["aspect_feeding_skills"] == "unlimited"
    assert defaults["default_crit_die"] == "none"
    assert defaults["negative_nd_default"] is False
    assert defaults["allow_compagnon_trade"] is False
    assert validate_fields(defaults, SYSTEM.campaign_settings_fields()) == []


def test_it_declares_combat_fields():
    paths = {f.path for f in SYSTEM.action_fields()}
    assert {
        "action",
        "aspect_code",
        "means_code",
        "skill_name",
        "harm",
        "planned_actions",
        "action_index",
        "unplanned_index",
        "defense_aspect_code",
        "defense_means_code",
    } <= paths


def test_it_imports_nothing_from_django():
    code = "import sys, rules.clefs; print(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=pathlib.Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "False"
    for path in pathlib.Path(__file__).resolve().parents[1].joinpath("clefs").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "django" not in text and "open(" not in text, path.name
