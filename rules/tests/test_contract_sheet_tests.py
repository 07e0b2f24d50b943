"""Contract: every registered system lists the tests of a sheet and builds them from the sheet only.

The same checks run over every system (``rules.available_systems()``), on a sheet
given by each system's own example (``EXAMPLES``) so that each kind of line
(skill, talent, module, spell, characteristic) exists.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import rules
from rules.base import BuiltTest, Field, RulesError, SeededRandom, SheetTest, gm_only_paths


def _clefs(sheet: dict[str, Any]) -> dict[str, Any]:
    sheet["skills"] = [{"name": "Épée", "aspect": "PH", "nc": 5}]
    sheet["means"] = {"PU": 2, "RE": -2, "MA": 0, "PR": 0, "EX": 0, "PE": 0}
    return sheet


def _altaride(sheet: dict[str, Any]) -> dict[str, Any]:
    sheet["skills"] = [{"key": "epee", "level": 3, "formula": "HAB+VIG"}]
    sheet["guild_spells"] = [{"name": "Flamme", "level": 2}]
    return sheet


def _sms(sheet: dict[str, Any]) -> dict[str, Any]:
    sheet["modules"] = [
        {"name": "Escrime", "kind": "positive", "rank": 3},
        {"name": "Agile", "kind": "positive", "rank": 1},
        {"name": "Magie des arcanes", "kind": "positive", "rank": 2, "predefined": "arcane_power"},
    ]
    sheet["spells"] = [{"name": "Bouclier", "magic_type": "arcane", "nature": "defensive", "power": 1}]
    return sheet


def _ambre(sheet: dict[str, Any]) -> dict[str, Any]:
    sheet["powers"] = [{"power": "sorcellerie"}]
    return sheet


EXAMPLES = {"clefs-de-l-aube": _clefs, "altaride": _altaride, "sms": _sms, "ambre": _ambre}
SYSTEMS = rules.available_systems()


def _sheet(system: rules.base.RuleSystem) -> dict[str, Any]:
    return EXAMPLES[system.slug](system.default_sheet())


def _declared_for(test: SheetTest, gm: bool) -> dict[str, Any]:
    """Values for the declared fields a caller of that audience may set (defaults; a cost for a spell)."""
    out: dict[str, Any] = {}
    for f in test.declared:
        if f.audience == "gm" and not gm:
            continue
        if f.path in ("base_cost", "b_value"):
            out[f.path] = 3
    return out


def test_every_system_is_covered() -> None:
    assert {s.slug for s in SYSTEMS} == set(EXAMPLES)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_sheet_tests_are_typed_and_json(system: rules.base.RuleSystem) -> None:
    tests = system.sheet_tests(_sheet(system), None, None)
    assert tests, "a complete example sheet offers something to roll"
    keys = [t.key for t in tests]
    assert len(keys) == len(set(keys)), "keys are unique"
    kinds = system.test_kinds()
    for test in tests:
        assert isinstance(test, SheetTest)
        assert test.kind in kinds
        assert test.label.fr and test.label.en and test.group.fr and test.group.en
        for read in test.reads:
            assert read.path and read.label.fr and read.label.en
        for f in test.declared:
            assert isinstance(f, Field) and f.audience in ("player", "gm")
        json.dumps(test.to_dict())


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_every_possible_line_builds_a_resolvable_request(system: rules.base.RuleSystem) -> None:
    sheet = _sheet(system)
    for test in system.sheet_tests(sheet):
        if test.impossible is not None:
            continue
        gm = test.kind == "comparison"  # the opposing value of a diceless comparison is the GM's
        built = system.build_test(sheet, test.key, _declared_for(test, gm), None, None, gm=gm)
        assert isinstance(built, BuiltTest)
        assert built.request["kind"] == test.kind
        assert built.reads, "a test says what it read"
        resolution = system.resolve(built.request, SeededRandom(7))
        assert resolution.kind == test.kind
        json.dumps(built.to_dict())


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_unknown_test_and_sheet_values_are_refused(system: rules.base.RuleSystem) -> None:
    sheet = _sheet(system)
    with pytest.raises(RulesError) as exc:
        system.build_test(sheet, "no-such-test", {})
    assert exc.value.errors[0].code == "unknown_test"
    test = system.sheet_tests(sheet)[0]
    declared = {f.path for f in test.declared}
    # A value the request carries but the caller may not declare (a score, a target, a value A).
    forged = next(p for p in ("skill_nc", "target", "score", "modules", "a_value", "aspect") if p not in declared)
    with pytest.raises(RulesError) as exc:
        system.build_test(sheet, test.key, {forged: 19}, gm=True)
    assert exc.value.errors[0].code == "not_declarable"


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_gm_only_inputs_are_refused_to_players_and_accepted_from_gms(system: rules.base.RuleSystem) -> None:
    sheet = _sheet(system)
    checked = 0
    for test in system.sheet_tests(sheet):
        if test.impossible is not None:
            continue
        gm_paths = gm_only_paths(test.declared)
        if not gm_paths:
            continue
        spec = next(f for f in test.declared if f.path == gm_paths[0])
        value: Any = True if spec.kind == "bool" else (spec.choices[-1][0] if spec.kind == "choice" else 3)
        if spec.kind == "str":
            value = "X"
        declared = {**_declared_for(test, gm=False), spec.path: value}
        with pytest.raises(RulesError) as exc:
            system.build_test(sheet, test.key, declared, gm=False)
        assert "gm_only" in [e.code for e in exc.value.errors]
        built = system.build_test(sheet, test.key, {**_declared_for(test, gm=True), spec.path: value}, gm=True)
        assert built.declared[spec.path] == value
        checked += 1
    assert checked, "every system has GM-only inputs on its sheet tests"


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_gm_only_inputs_of_test_kinds_are_declared(system: rules.base.RuleSystem) -> None:
    kinds = system.test_kinds()
    assert any(gm_only_paths(fields) for fields in kinds.values()), "difficulties and opposition are the GM's"


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_the_request_follows_the_sheet(system: rules.base.RuleSystem) -> None:
    """Changing the sheet value a line reads changes the request: the number comes from the sheet."""
    sheet = _sheet(system)
    test = next(
        t for t in system.sheet_tests(sheet) if t.impossible is None and not t.reads[0].path.startswith("derived.")
    )
    gm = test.kind == "comparison"
    before = system.build_test(sheet, test.key, _declared_for(test, gm), gm=gm)
    changed = json.loads(json.dumps(sheet))
    path = test.reads[0].path
    rules.base.set_path(changed, path, int(test.reads[0].value) + 2)
    after = system.build_test(changed, test.key, _declared_for(test, gm), gm=gm)
    assert after.reads[0].value != before.reads[0].value
    assert after.request != before.request


def test_base_default_offers_nothing() -> None:
    class Bare(rules.base.RuleSystem):
        slug = "bare"
        name = rules.base.Msg("Nu", "Bare")

        def sheet_fields(self) -> tuple[Field, ...]:
            return ()

        def _derive(self, sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
            return {}

        def _creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any]) -> Any:
            return rules.base.Budget("xp", 0, 0)

    assert Bare().sheet_tests({}) == []
    with pytest.raises(RulesError):
        Bare().build_test({}, "anything", {})
