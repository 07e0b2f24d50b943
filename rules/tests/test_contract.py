"""The contract every registered rule system honours (``rules/README.md``).

The same checks run over every system of :func:`rules.available_systems`, so
a fifth system is covered as soon as it is registered in
:data:`rules.SYSTEM_MODULES`. They check the interface, not the game: a
system's own tests check its numbers against the seed.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
from typing import Any

import pytest

import rules
from rules.base import (
    ACTION_KEY,
    LEVELS,
    SEVERITIES,
    SUCCESS_LEVELS,
    BestiaryEntry,
    Budget,
    BuiltTest,
    Combatant,
    CombatResult,
    DerivedSpec,
    Field,
    FieldError,
    LedgerDraft,
    Msg,
    ProgressionResult,
    PurchaseResult,
    Resolution,
    RulesError,
    RuleSystem,
    ScriptedRandom,
    SeededRandom,
    SheetContext,
    SheetTest,
    Step,
    default_from_fields,
    set_path,
)

SYSTEMS = rules.available_systems()
IDS = [s.slug for s in SYSTEMS]
KINDS = {"int", "str", "text", "bool", "choice", "list", "dict"}


@pytest.fixture(params=SYSTEMS, ids=IDS)
def system(request: pytest.FixtureRequest) -> RuleSystem:
    chosen: RuleSystem = request.param
    return chosen


def _all_fields(fields: tuple[Field, ...]) -> list[Field]:
    out: list[Field] = []
    for f in fields:
        out.append(f)
        out += _all_fields(f.item_fields)
    return out


def _declared_fields(system: RuleSystem) -> dict[str, tuple[Field, ...]]:
    """Every field tuple a system declares, by where it is declared."""
    groups: dict[str, tuple[Field, ...]] = {
        "sheet_fields": system.sheet_fields(),
        "campaign_settings_fields": system.campaign_settings_fields(),
        "action_fields": system.action_fields(),
        "session_fact_fields": system.session_fact_fields(),
    }
    for kind, fields in system.test_kinds().items():
        groups[f"test_kinds[{kind}]"] = fields
    for kind, fields in system.purchase_fields().items():
        groups[f"purchase_fields[{kind}]"] = fields
    return groups


def _sample(fields: tuple[Field, ...]) -> dict[str, Any]:
    """A plausible request: defaults, then the smallest value for each required input without one."""
    data = default_from_fields(fields)
    for f in fields:
        if f.default is not None:
            continue
        if f.kind == "int":
            low = f.minimum if f.minimum is not None else 1
            set_path(data, f.path, min(max(low, 1), f.maximum) if f.maximum is not None else max(low, 1))
        elif f.kind == "choice":
            values = [value for value, _ in f.choices if value not in ("", None)]
            if values:
                set_path(data, f.path, values[0])
        elif f.kind in ("str", "text") and f.required:
            set_path(data, f.path, "x")
        elif f.kind == "list" and f.item_fields and f.required:
            set_path(data, f.path, [_sample(f.item_fields)])
    return data


def _wrong(f: Field) -> Any:
    """A value of the wrong type for a field."""
    return {"int": "douze", "bool": "oui", "list": "x", "dict": "x", "choice": ["x"]}.get(f.kind, 12)


# --- registry ----------------------------------------------------------------------------
def test_every_registered_system_is_found_under_its_slug() -> None:
    assert IDS == list(rules.SYSTEM_MODULES)
    for slug in IDS:
        system = rules.get_system(slug)
        assert isinstance(system, RuleSystem) and system.slug == slug
        assert isinstance(system.name, Msg) and system.name.fr and system.name.en
    with pytest.raises(rules.UnknownSystem):
        rules.get_system("no-such-system")


#: The shared layout of a system package (``rules/README.md``): the same module names for the same things.
LAYOUT = (
    "system",
    "schema",
    "tables",
    "creation",
    "derive",
    "resolution",
    "combat",
    "progression",
    "sheet_tests",
    "outcome",
)


@pytest.mark.parametrize("slug", list(rules.SYSTEM_MODULES))
def test_every_system_package_has_the_shared_layout(slug: str) -> None:
    package = rules.SYSTEM_MODULES[slug]
    for name in LAYOUT:
        importlib.import_module(f"{package}.{name}")
    system = importlib.import_module(package).SYSTEM
    assert type(system).__module__ == f"{package}.system"
    assert system is rules.get_system(slug)
    resolution = importlib.import_module(f"{package}.resolution")
    assert callable(resolution.test_kinds) and callable(resolution.resolve)
    assert set(resolution.test_kinds()) == set(system.test_kinds())


def test_every_group_test_kind_and_purchase_kind_has_a_name(system: RuleSystem) -> None:
    """The apps hold no label table of a system's words: the system names what it declares."""
    groups = {f.group for f in _all_fields(system.sheet_fields()) if f.group}
    groups |= {d.group for d in system.derived_specs() if d.group}
    groups |= set(system.creation_budget(system.default_sheet()).pools)
    assert groups <= set(system.group_labels()), sorted(groups - set(system.group_labels()))
    assert set(system.test_kind_labels()) == set(system.test_kinds())
    assert set(system.purchase_kind_labels()) == set(system.purchase_fields())
    for labels in (system.group_labels(), system.test_kind_labels(), system.purchase_kind_labels()):
        assert _bilingual(labels)


def test_system_choices_name_every_system_in_both_languages() -> None:
    assert [slug for slug, _ in rules.system_choices("fr")] == IDS
    assert all(name for _, name in rules.system_choices("en"))


# --- schema ------------------------------------------------------------------------------
def test_every_field_is_well_formed_with_a_bilingual_label_and_an_audience(system: RuleSystem) -> None:
    for where, fields in _declared_fields(system).items():
        assert isinstance(fields, tuple), where
        paths = [f.path for f in fields]
        assert len(paths) == len(set(paths)), f"{where}: duplicate paths"
        for f in _all_fields(fields):
            assert isinstance(f, Field), where
            assert f.path and " " not in f.path, f"{where}: {f.path!r}"
            assert f.kind in KINDS, f"{where}.{f.path}: kind {f.kind!r}"
            assert isinstance(f.label, Msg) and f.label.fr.strip() and f.label.en.strip(), f"{where}.{f.path}"
            assert f.audience in ("player", "gm"), f"{where}.{f.path}: audience {f.audience!r}"
            if f.kind == "choice":
                assert f.choices, f"{where}.{f.path}: a choice without choices"
                for value, label in f.choices:
                    assert isinstance(label, Msg) and label.fr and label.en, f"{where}.{f.path}={value!r}"
            if f.help is not None:
                assert isinstance(f.help, Msg) and f.help.fr and f.help.en, f"{where}.{f.path}"
            if f.minimum is not None and f.maximum is not None:
                assert f.minimum <= f.maximum, f"{where}.{f.path}"


def test_test_kinds_and_purchase_kinds_are_named_by_strings(system: RuleSystem) -> None:
    for declared in (system.test_kinds(), system.purchase_fields()):
        assert isinstance(declared, dict)
        assert all(isinstance(k, str) and k and isinstance(v, tuple) for k, v in declared.items())
        # ``kind`` is the request's own key: no declared input may shadow it.
        assert all("kind" not in {f.path for f in v} for v in declared.values())


def test_creation_steps_and_derived_specs_are_well_formed(system: RuleSystem) -> None:
    steps = system.creation_steps()
    assert steps and all(isinstance(s, Step) and s.key for s in steps)
    assert len({s.key for s in steps}) == len(steps)
    assert all(isinstance(d, DerivedSpec) and d.label.fr and d.label.en for d in system.derived_specs())


def test_describe_is_json_serialisable(system: RuleSystem) -> None:
    description = system.describe()
    assert json.loads(json.dumps(description)) == description
    assert description["slug"] == system.slug
    assert set(description["test_kinds"]) == set(system.test_kinds())


# --- sheets ------------------------------------------------------------------------------
def test_the_default_sheet_validates_or_gives_field_errors(system: RuleSystem) -> None:
    sheet = system.default_sheet()
    json.dumps(sheet)
    errors = system.validate_sheet(sheet)
    assert isinstance(errors, list) and all(isinstance(e, FieldError) for e in errors)
    assert all(isinstance(e.message, Msg) and e.message.fr and e.message.en for e in errors)
    assert all(isinstance(e, FieldError) for e in system.validate_npc(sheet))


def test_a_sheet_of_the_wrong_types_gives_field_errors_never_an_exception(system: RuleSystem) -> None:
    sheet = system.default_sheet()
    for f in system.sheet_fields():
        set_path(sheet, f.path, _wrong(f))
    errors = system.validate_sheet(sheet)
    assert errors and all(isinstance(e, FieldError) for e in errors)


def test_derive_and_creation_budget_work_on_the_default_sheet(system: RuleSystem) -> None:
    sheet = system.default_sheet()
    before = json.dumps(sheet, sort_keys=True)
    derived = system.derive(sheet)
    assert isinstance(derived, dict)
    json.dumps(derived)
    budget = system.creation_budget(sheet)
    assert isinstance(budget, Budget)
    json.dumps(budget.to_dict("fr"))
    assert json.dumps(sheet, sort_keys=True) == before, "derive and creation_budget must not mutate the sheet"


def test_migrate_sheet_is_idempotent(system: RuleSystem) -> None:
    sheet = system.default_sheet()
    for version in range(1, system.schema_version + 1):
        once = system.migrate_sheet(json.loads(json.dumps(sheet)), version)
        twice = system.migrate_sheet(json.loads(json.dumps(once)), system.schema_version)
        assert twice == once
    with pytest.raises(ValueError):
        system.migrate_sheet(sheet, system.schema_version + 1)


# --- campaign settings -------------------------------------------------------------------
def test_the_default_settings_are_valid(system: RuleSystem) -> None:
    assert system.validate_settings(None) == []
    assert system.validate_settings(system.default_campaign_settings()) == []


def test_validate_settings_refuses_a_wrong_type_with_a_field_error(system: RuleSystem) -> None:
    fields = system.campaign_settings_fields()
    if not fields:
        assert system.validate_settings({}) == []
        return
    for f in fields:
        errors = system.validate_settings({f.path.split(".")[0]: _wrong(f)} if "." not in f.path else {})
        if "." in f.path:
            continue
        assert errors, f"{f.path}: a {f.kind} option accepted {_wrong(f)!r}"
        assert all(isinstance(e, FieldError) and e.message.fr and e.message.en for e in errors)
        assert any(e.path == f.path or e.path.startswith(f.path + ".") for e in errors), f.path


# --- resolution --------------------------------------------------------------------------
def _bad_requests(system: RuleSystem) -> list[dict[str, Any]]:
    requests: list[dict[str, Any]] = [{}, {"kind": "no-such-test"}, {"kind": 12}]
    for kind, fields in system.test_kinds().items():
        requests.append({"kind": kind, **{f.path: _wrong(f) for f in fields if "." not in f.path}})
    return requests


def test_resolve_refuses_a_bad_request_with_rules_error_only(system: RuleSystem) -> None:
    for request in _bad_requests(system):
        with pytest.raises(RulesError) as exc:
            system.resolve(request, SeededRandom(1))
        assert exc.value.errors and all(isinstance(e, FieldError) for e in exc.value.errors), request


def test_replaying_the_recorded_draws_gives_the_same_result(system: RuleSystem) -> None:
    resolved = 0
    for kind, fields in system.test_kinds().items():
        request = {"kind": kind, **_sample(fields)}
        try:
            result = system.resolve(request, SeededRandom(f"contract-{kind}"))
        except RulesError:
            continue  # this sample is not a legal request of this kind (e.g. a rank is needed)
        resolved += 1
        assert isinstance(result, Resolution) and result.system == system.slug and result.kind == kind
        data = result.to_dict()
        assert json.loads(json.dumps(data)) == data
        assert all(isinstance(d, int) for d in result.draws)
        replay = system.resolve(request, ScriptedRandom(result.draws))
        assert replay.to_dict() == data, kind
    if system.test_kinds():
        assert resolved, "no declared test kind resolves from its own declared defaults"


def test_resolve_action_refuses_a_bad_declaration_with_rules_error_only(system: RuleSystem) -> None:
    sheet = system.default_sheet()
    actor = Combatant("a", "A", "pcs", sheet, system.combat_state(sheet))
    target = Combatant("b", "B", "npcs", sheet, system.combat_state(sheet), is_npc=True)
    unknown = {"kind": "no-such-action", "action": "no-such-action", "mode": "no-such-action"}
    wrong = {f.path: _wrong(f) for f in system.action_fields() if "." not in f.path}
    for declaration in (unknown, {**unknown, **wrong}):
        with pytest.raises(RulesError):
            system.resolve_action(actor, target, declaration, SeededRandom(1))


# --- one result vocabulary ------------------------------------------------------------------
def _vocabulary_ok(result: Resolution | CombatResult) -> None:
    assert result.level in LEVELS, result.level
    assert result.margin is None or (isinstance(result.margin, int) and not isinstance(result.margin, bool))
    data = result.to_dict()
    assert data["level"] == result.level and data["margin"] == result.margin
    if isinstance(result, Resolution):
        expected = {True: SUCCESS_LEVELS, False: {"failure", "critical_failure"}, None: {"tie", "none"}}
        assert result.level in expected[result.success], (result.kind, result.success, result.level)
    else:
        assert result.severity in SEVERITIES and data["severity"] == result.severity


def test_every_resolution_carries_a_level_from_the_closed_set(system: RuleSystem) -> None:
    for kind, fields in system.test_kinds().items():
        for seed in range(12):
            try:
                result = system.resolve({"kind": kind, **_sample(fields)}, SeededRandom(f"level-{kind}-{seed}"))
            except RulesError:
                break
            _vocabulary_ok(result)


def _fighters(system: RuleSystem) -> tuple[Combatant, Combatant]:
    sheet = system.default_sheet()
    return (
        Combatant("a", "A", "pcs", sheet, system.combat_state(sheet)),
        Combatant("b", "B", "npcs", sheet, system.combat_state(sheet), is_npc=True),
    )


def test_every_declaration_names_its_type_action_and_every_step_carries_the_vocabulary(system: RuleSystem) -> None:
    fields = {f.path: f for f in system.action_fields()}
    if not fields:
        return
    assert fields[ACTION_KEY].kind == "choice" and fields[ACTION_KEY].required
    actor, target = _fighters(system)
    resolved = 0
    for action, _label in fields[ACTION_KEY].choices:
        for seed in range(6):
            declaration = {**_sample(system.action_fields()), ACTION_KEY: action}
            try:
                result = system.resolve_action(actor, target, declaration, SeededRandom(f"step-{action}-{seed}"))
            except RulesError:
                break
            resolved += 1
            _vocabulary_ok(result)
            assert result.inputs.get(ACTION_KEY, (result.inputs.get("declaration") or {}).get(ACTION_KEY)) == action
    assert resolved, "no declared action resolves from its own declared defaults"


# --- every capability has a working default ----------------------------------------------
def _result_or_rules_error(call: Any, expected: type) -> bool:
    try:
        return isinstance(call(), expected)
    except RulesError as exc:
        return bool(exc.errors)


def _public_outcome(system: RuleSystem, a: Combatant, b: Combatant) -> bool:
    """The public sentence of a resolved step (or of a bare result when no sample declaration resolves)."""
    try:
        result = system.resolve_action(a, b, _sample(system.action_fields()), SeededRandom(1))
    except RulesError:
        result = CombatResult(system.slug, "step", {}, [], {}, Msg("Action", "Action"))
    sentence = system.public_outcome(result, a, b)
    return isinstance(sentence, Msg) and bool(sentence.fr) and bool(sentence.en)


def _call_every_capability(system: RuleSystem) -> set[str]:
    """Call each public method of :class:`RuleSystem`; returns the names called."""
    sheet = system.default_sheet()
    state = system.combat_state(sheet)
    a = Combatant("a", "A", "pcs", sheet, state)
    b = Combatant("b", "B", "npcs", sheet, dict(state), is_npc=True)
    balances = {c: 0 for c in system.currencies}
    calls = {
        "sheet_fields": lambda: isinstance(system.sheet_fields(), tuple),
        "default_sheet": lambda: isinstance(system.default_sheet(), dict),
        "creation_steps": lambda: isinstance(system.creation_steps(), tuple),
        "derived_specs": lambda: isinstance(system.derived_specs(), tuple),
        "campaign_settings_fields": lambda: isinstance(system.campaign_settings_fields(), tuple),
        "default_campaign_settings": lambda: isinstance(system.default_campaign_settings(), dict),
        "settings": lambda: system.settings(None) == system.settings({}),
        "validate_settings": lambda: system.validate_settings({}) == [],
        "migrate_sheet": lambda: isinstance(system.migrate_sheet(sheet, system.schema_version), dict),
        "follow_edit": lambda: isinstance(system.follow_edit(sheet, dict(sheet)), dict),
        "validate_sheet": lambda: isinstance(system.validate_sheet(sheet), list),
        "validate_npc": lambda: isinstance(system.validate_npc(sheet), list),
        "quick_npc_fields": lambda: all(isinstance(f, Field) for f in system.quick_npc_fields()),
        "bestiary": lambda: all(isinstance(e, BestiaryEntry) for e in system.bestiary(system.starter_settings())),
        "quick_npc_sheet": lambda: system.quick_npc_sheet({}, None)[1] == []
        and system.validate_npc(system.quick_npc_sheet({}, None)[0]) == [],
        "derive": lambda: isinstance(system.derive(sheet), dict),
        "creation_budget": lambda: isinstance(system.creation_budget(sheet), Budget),
        "creation_ledger": lambda: all(isinstance(d, LedgerDraft) for d in system.creation_ledger(sheet)),
        "test_kinds": lambda: isinstance(system.test_kinds(), dict),
        "resolve": lambda: pytest.raises(RulesError, system.resolve, {}, SeededRandom(1)) is not None,
        "odds": lambda: system.odds({"kind": "no-such-test"}) is None or True,
        "combat_state": lambda: isinstance(state, dict) and json.dumps(state) is not None,
        "private_state_keys": lambda: set(system.currencies) <= set(system.private_state_keys()),
        "action_fields": lambda: isinstance(system.action_fields(), tuple),
        "validate_action": lambda: isinstance(system.validate_action(sheet, {}, sheet), list),
        "initiative": lambda: {row["id"] for row in system.initiative([a, b], {}, SeededRandom(1))} <= {"a", "b"},
        "resolve_action": lambda: _result_or_rules_error(
            lambda: system.resolve_action(a, b, _sample(system.action_fields()), SeededRandom(1)), CombatResult
        ),
        "purchase_fields": lambda: isinstance(system.purchase_fields(), dict),
        "purchase": lambda: isinstance(system.purchase(sheet, {"kind": "no-such"}, balances), PurchaseResult),
        "purchase_offers": lambda: isinstance(system.purchase_offers(sheet, balances), list),
        "session_fact_fields": lambda: isinstance(system.session_fact_fields(), tuple),
        "suggest_session_awards": lambda: all(
            isinstance(d, LedgerDraft) for d in system.suggest_session_awards(sheet, {"resolutions": []})
        ),
        "apply_progression": lambda: isinstance(system.apply_progression(sheet, []), ProgressionResult),
        "apply_progression_many": lambda: [r.balances for r in system.apply_progression_many([(sheet, [])] * 2)]
        == [system.apply_progression(sheet, []).balances] * 2
        and system.progression_entry_keys <= {"id", "currency", "amount", "kind", "data", "session_id"},
        "describe": lambda: isinstance(system.describe(), dict),
        "sheet_layout": lambda: system.sheet_layout() is not None,
        "starter_settings": lambda: system.validate_settings(system.starter_settings()) == [],
        "action_options": lambda: all(
            isinstance(path, str) and all(isinstance(label, Msg) for _, label in choices)
            for options in (system.action_options(sheet, state), system.action_options(sheet, state, defending=True))
            for path, choices in options.items()
        ),
        "defence_fields": lambda: all(
            isinstance(f, Field) for f in system.defence_fields(_sample(system.action_fields()), a, b)
        ),
        "public_outcome": lambda: _public_outcome(system, a, b),
        "combat_condition": lambda: system.combat_condition(state) in ("dead", "unconscious", "active"),
        "carry_combat_state": lambda: isinstance(system.carry_combat_state(sheet, state), dict),
        "combat_state_for_others": lambda: not (
            set(system.combat_state_for_others(state)) & set(system.private_state_keys())
        ),
        "locked_paths": lambda: all(
            isinstance(p, str) for gm in (False, True) for p in system.locked_paths(sheet, SheetContext(gm=gm))
        ),
        "verify_server_rolls": lambda: all(isinstance(e, FieldError) for e in system.verify_server_rolls(sheet, {})),
        "sheet_tests": lambda: all(
            isinstance(t, SheetTest) and t.label.fr and t.label.en for t in system.sheet_tests(sheet)
        ),
        "build_test": lambda: all(
            _result_or_rules_error(lambda key=t.key: system.build_test(sheet, key), BuiltTest)
            for t in system.sheet_tests(sheet)
        )
        and pytest.raises(RulesError, system.build_test, sheet, "no-such-test") is not None,
        "sheet_test_request": lambda: all(
            _result_or_rules_error(
                lambda test=t: system.sheet_test_request(sheet, test, {}, system.settings(None), {}), tuple
            )
            for t in system.sheet_tests(sheet)
            if t.impossible is None
        ),
        "migrate_declaration": lambda: system.migrate_declaration({}) == {}
        and (
            system.legacy_action_key is None
            or system.migrate_declaration({system.legacy_action_key: "x"}) == {"action": "x"}
        ),
        "can_lower_die": lambda: system.can_lower_die({}) is False,
        "lower_die": lambda: (
            system.can_lower_die({"outcome": {"roll": {}}})
            or pytest.raises(RulesError, system.lower_die, {}, 1, 10) is not None
        ),
        "can_reevaluate": lambda: system.can_reevaluate({}) is False,
        "reevaluate": lambda: (
            system.can_reevaluate({"kind": "action", "outcome": {"nd": 0}})
            or pytest.raises(RulesError, system.reevaluate, {}, 5) is not None
        ),
        "gm_aids": lambda: (aids := system.gm_aids()) is None or json.dumps(aids) is not None,
        "campaign_progression": lambda: (
            (out := system.campaign_progression({1: sheet, 2: dict(sheet)})) is None
            or (set(out) <= {1, 2} and all(isinstance(v.get("sheet"), dict) for v in out.values()))
        ),
        "balance_state": lambda: json.dumps(system.balance_state(balances)) is not None,
        "group_labels": lambda: _bilingual(system.group_labels()),
        "column_labels": lambda: _bilingual(system.column_labels()),
        "test_kind_labels": lambda: _bilingual(system.test_kind_labels())
        and set(system.test_kind_labels()) <= set(system.test_kinds()),
        "purchase_kind_labels": lambda: _bilingual(system.purchase_kind_labels())
        and set(system.purchase_kind_labels()) <= set(system.purchase_fields()),
        "currency_labels": lambda: _bilingual(system.currency_labels())
        and set(system.currency_labels()) == set(system.currencies),
        "combat_value_labels": lambda: all(
            isinstance(k, str) and isinstance(v, Msg) and v.fr and v.en for k, v in system.combat_value_labels().items()
        ),
    }
    for name, call in calls.items():
        assert call(), f"{system.slug}.{name}"
    return set(calls)


def _bilingual(labels: dict[str, Msg]) -> bool:
    return all(isinstance(k, str) and isinstance(v, Msg) and v.fr and v.en for k, v in labels.items())


def _public_methods() -> set[str]:
    return {
        name
        for name, member in inspect.getmembers(RuleSystem, predicate=inspect.isfunction)
        if not name.startswith("_")
    }


#: The capabilities that take campaign settings: RuleSystem merges them once (``settings()``) and calls
#: the system's hook (``_resolve``...); a system never merges them itself.
MERGING = (
    "validate_settings",
    "follow_edit",
    "validate_sheet",
    "validate_npc",
    "quick_npc_fields",
    "bestiary",
    "quick_npc_sheet",
    "derive",
    "creation_budget",
    "creation_ledger",
    "resolve",
    "odds",
    "sheet_tests",
    "lower_die",
    "combat_state",
    "validate_action",
    "initiative",
    "resolve_action",
    "action_options",
    "carry_combat_state",
    "purchase",
    "purchase_offers",
    "suggest_session_awards",
    "apply_progression",
    "apply_progression_many",
    "campaign_progression",
)


def test_campaign_settings_are_merged_once_by_the_base_class(system: RuleSystem) -> None:
    for name in MERGING:
        assert getattr(type(system), name) is getattr(RuleSystem, name), f"{system.slug} overrides {name}"
        assert callable(getattr(system, f"_{name}"))
    source = inspect.getsource(importlib.import_module(type(system).__module__))
    assert "self.settings(" not in source


def test_hooks_never_change_the_shared_default_settings(system: RuleSystem) -> None:
    """Without campaign settings the hooks share one merged dict (``RuleSystem._merged``): no capability
    may change it, nested defaults included."""
    shared = system._merged(None)
    pristine = copy.deepcopy(system.settings(None))
    sheet = system.default_sheet()
    system.derive(sheet)
    system.validate_sheet(sheet)
    system.creation_budget(sheet)
    system.creation_ledger(sheet)
    system.sheet_tests(sheet)
    state = system.combat_state(sheet)
    system.action_options(sheet, state)
    system.purchase_offers(sheet, {currency: 100 for currency in system.currencies})
    assert system._merged(None) is shared
    assert shared == pristine


def test_a_hook_receives_the_merged_settings() -> None:
    seen: list[dict[str, Any]] = []

    class Probe(_Minimal):
        def campaign_settings_fields(self) -> tuple[Field, ...]:
            return (Field("bonus", "int", Msg("Bonus", "Bonus"), default=2), Field("name", "str", Msg("N", "N")))

        def _derive(self, sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
            seen.append(settings)
            return {}

    probe = Probe()
    probe.derive({}, None)
    probe.derive({}, {"bonus": 5})
    assert seen == [{"bonus": 2, "name": ""}, {"bonus": 5, "name": ""}]


def test_every_capability_is_callable_on_every_system(system: RuleSystem) -> None:
    called = _call_every_capability(system)
    missing = _public_methods() - called
    assert not missing, f"new capabilities on RuleSystem need a contract check: {sorted(missing)}"


class _Minimal(RuleSystem):
    """A system that implements only what is abstract: every other capability keeps its default."""

    slug = "minimal"
    name = Msg("Minimal", "Minimal")

    def sheet_fields(self) -> tuple[Field, ...]:
        return (Field("score", "int", Msg("Score", "Score"), default=1, minimum=0, maximum=10),)

    def _derive(self, sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any]) -> Budget:
        return Budget("points", 0, 0)


def test_every_capability_has_a_working_default() -> None:
    minimal = _Minimal()
    _call_every_capability(minimal)
    assert minimal.resolve_action.__qualname__.startswith("RuleSystem.")
    assert minimal.validate_settings({"anything": 1}) == []
    errors = minimal.validate_sheet({"score": "x"})
    assert [e.code for e in errors] == ["invalid_int"]
    assert minimal.purchase({}, {"kind": "x"}, {"xp": 0}).errors


def test_a_quick_npc_is_checked_by_the_npc_rules_not_the_creation_budget(system: RuleSystem) -> None:
    """Every stat line input is declared; a value out of its range is an error on its own path
    (nothing built); an entry of the starter bestiary builds a sheet the NPC rules accept."""
    settings = system.starter_settings()
    for f in system.quick_npc_fields(settings):
        assert f.label.fr and f.label.en, f.path
        if f.kind == "int" and f.maximum is not None:
            sheet, errors = system.quick_npc_sheet({f.path: f.maximum + 1}, settings)
            assert sheet == {} and [e.path for e in errors] == [f.path]
    sheet, errors = system.quick_npc_sheet({"no.such.path": 1}, settings)
    assert sheet == {} and [e.code for e in errors] == ["unknown_input"]
    sheet, errors = system.quick_npc_sheet({}, settings, entry="no such entry")
    assert sheet == {} and [e.path for e in errors] == ["entry"]
    for entry in system.bestiary(settings):
        sheet, errors = system.quick_npc_sheet({}, settings, entry=entry.key)
        assert errors == [] and system.validate_npc(sheet, settings) == []
