"""The rules hot path (#21) gives the same results as the plain code it replaced.

Reference copies of the replaced internals are kept here: the field
validation loop, Ambre's eager stats and declaration defaults, the wound
weight. Random inputs go through the current code and through the current
code with the references patched in; every result (outcome, summary, state
changes, tags) or every error (path, code, both languages) must be equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import available_systems, get_system
from rules.ambre import combat as ambre_combat
from rules.ambre import derive as ambre_derive
from rules.ambre import tables as AT
from rules.base import (
    Combatant,
    Field,
    FieldError,
    RulesError,
    RuleSystem,
    SeededRandom,
    error,
    get_path,
    validate_fields,
)
from rules.base.clean import _check_value

_MISSING = object()


def ref_int(value: Any, default: int = 0) -> int:
    """Reference copy of the systems' private int readers (Ambre ``_i``/``_int``, Altaride ``_int``,
    Clefs ``_as_int``), replaced by ``rules.base.as_int`` (#16)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


# ---------------------------------------------------------------- reference copies (before #21)
def ref_validate_fields(data: Any, fields: Any, prefix: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    for f in fields:
        value = get_path(data, f.path, _MISSING)
        full = f"{prefix}{f.path}"
        if value is _MISSING or value is None:
            if f.required:
                errors.append(error(full, "required", "Ce champ est obligatoire.", "This field is required."))
            continue
        errors.extend(_check_value(value, f, full))
    return errors


def ref_ambre_stats(sheet: dict[str, Any]) -> dict[str, int]:
    i = ref_int
    chars = sheet.get("characteristics") or {}
    stats = {c: i(chars.get(c)) for c in AT.CHARACTERISTICS}
    stats.update(ambre_derive.global_levels(sheet))
    attrs = sheet.get("attributes") or {}
    stats.update({f"attr_{a}": i(attrs.get(a)) for a in AT.ATTRIBUTES})
    return stats


def ref_char(chars: dict[str, Any], key: str) -> int:
    return ref_ambre_stats({"characteristics": chars})[key]


def ref_level(sheet: dict[str, Any], chars: dict[str, Any], key: str) -> int:
    return ref_ambre_stats(sheet)[key]


def ref_attr(sheet: dict[str, Any], key: str) -> int:
    return ref_ambre_stats(sheet)[f"attr_{key}"]


def ref_wound_points(wounds: dict[str, Any]) -> int:
    return sum(AT.WOUND_WEIGHTS[k] * max(0, ref_int((wounds or {}).get(k), 0)) for k in AT.WOUND_ORDER)


@contextmanager
def reference_ambre() -> Iterator[None]:
    saved = (
        ambre_combat._char,
        ambre_combat._level,
        ambre_combat.attribute_points,
        ambre_combat.wound_points,
        ambre_derive.wound_points,
    )
    ambre_combat._char, ambre_combat._level, ambre_combat.attribute_points = ref_char, ref_level, ref_attr
    ambre_combat.wound_points = ref_wound_points
    ambre_derive.wound_points = ref_wound_points
    try:
        yield
    finally:
        (
            ambre_combat._char,
            ambre_combat._level,
            ambre_combat.attribute_points,
            ambre_combat.wound_points,
            ambre_derive.wound_points,
        ) = saved


def _errors(errors: list[FieldError]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in errors]


# ---------------------------------------------------------------- validation
def _all_field_tuples() -> list[tuple[str, tuple[Field, ...]]]:
    out = []
    for system in available_systems():
        out.append((f"{system.slug}.action", tuple(system.action_fields())))
        out.append((f"{system.slug}.settings", tuple(system.campaign_settings_fields())))
        out.append((f"{system.slug}.sheet", tuple(system.sheet_fields())))
        for kind, fields in system.test_kinds().items():
            out.append((f"{system.slug}.test.{kind}", tuple(fields)))
    return out


FIELD_TUPLES = _all_field_tuples()
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-200000, 200000),
    st.sampled_from(["", " ", "melee", "PH", "PU", "attack", "light", "x" * 3000, "0", "1"]),
    st.floats(allow_nan=False, allow_infinity=False),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def _plausible(draw: st.DrawFn, f: Field) -> Any:
    """A value the field accepts, most of the time."""
    if f.choices:
        return draw(st.sampled_from([c for c, _ in f.choices]))
    if f.kind == "int":
        lo = f.minimum if f.minimum is not None else -1000
        hi = f.maximum if f.maximum is not None else 1000
        return draw(st.sampled_from([lo, hi, (lo + hi) // 2]))
    if f.kind == "bool":
        return draw(st.booleans())
    if f.kind in ("str", "text"):
        return draw(st.sampled_from(["abc", "x" * (f.max_length or 3)]))
    if f.kind == "list":
        return []
    if f.kind == "dict":
        return {}
    return f.default


def _wild(draw: st.DrawFn, f: Field) -> Any:
    """A value at or past the field's edges, or of the wrong type."""
    edges: list[Any] = [None, True, False, "", " ", [], {}, 1.5, "nope"]
    if f.minimum is not None:
        edges += [f.minimum - 1, f.minimum]
    if f.maximum is not None:
        edges += [f.maximum + 1, f.maximum]
    if f.max_length is not None:
        edges += ["y" * (f.max_length + 1)]
    if f.max_items is not None:
        edges += [[{}] * (f.max_items + 1)]
    if f.item_fields:
        edges += [[1], [{}], [{i.path: "bad" for i in f.item_fields}]]
    return draw(st.one_of(st.sampled_from(edges), _values))


@st.composite
def data_for(draw: st.DrawFn, fields: tuple[Field, ...]) -> dict[str, Any]:
    """A request that is valid but for at most two fields (so each check is reached)."""
    flat = [f for f in fields if "." not in f.path]
    data: dict[str, Any] = {}
    for f in flat:
        if f.required or draw(st.booleans()):
            data[f.path] = _plausible(draw, f)
    if flat:
        for _ in range(draw(st.integers(0, 2))):
            f = draw(st.sampled_from(flat))
            data[f.path] = _wild(draw, f)
    nested = [f for f in fields if "." in f.path]
    grouped = draw(st.booleans()) if nested else False
    if grouped:  # a nested group ("spell.power"): set, partly wrong, or not an object
        for f in nested:
            head, rest = f.path.split(".", 1)
            group = data.setdefault(head, {})
            if isinstance(group, dict) and "." not in rest and (f.required or draw(st.booleans())):
                group[rest] = _wild(draw, f) if draw(st.integers(0, 5)) == 0 else _plausible(draw, f)
        if draw(st.integers(0, 5)) == 0:
            data[nested[0].path.split(".", 1)[0]] = draw(st.sampled_from([None, [], "x", 3]))
    return data


@pytest.mark.parametrize(("name", "fields"), FIELD_TUPLES, ids=[n for n, _ in FIELD_TUPLES])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_validate_fields_reports_what_the_plain_loop_reported(name: str, fields: tuple[Field, ...], data: Any) -> None:
    request = data.draw(data_for(fields))
    try:
        expected: Any = _errors(ref_validate_fields(request, fields))
    except TypeError as exc:  # an unhashable choice: both must raise
        expected = type(exc)
    try:
        got: Any = _errors(validate_fields(request, fields))
    except TypeError as exc:
        got = type(exc)
    assert got == expected


def test_validate_fields_accepts_and_rejects_like_before_on_edge_values() -> None:
    fields = (
        Field("n", "int", None, minimum=0, maximum=5, required=True),  # type: ignore[arg-type]
        Field("c", "choice", None, choices=(("a", None), ("b", None))),  # type: ignore[arg-type]
        Field("t", "str", None, required=True, max_length=3),  # type: ignore[arg-type]
        Field("l", "list", None, max_items=2, item_fields=(Field("x", "bool", None),)),  # type: ignore[arg-type]
        Field("d.e", "int", None, required=True),  # type: ignore[arg-type]
    )
    requests: tuple[Any, ...] = (
        {"n": 3, "c": "a", "t": "ab", "l": [{"x": True}], "d": {"e": 1}},
        {"n": True, "c": "a", "t": "ab", "d": {"e": 1}},
        {"n": 6, "c": ["a"], "t": "  ", "l": [{"x": 1}, 2, 3], "d": {"e": None}},
        {"n": 0, "c": 1, "t": "abcd", "l": "no", "d": []},
        {"n": 5, "t": "a", "d": {"e": 2}},
        {"n": 6, "t": "a", "d": {"e": 2}},
        {"n": -1, "t": "a", "d": {"e": 2}},
        {"n": 1, "t": "a", "c": "z", "d": {"e": 2}},
        {"n": 1, "t": "abcd", "d": {"e": 2}},
        {"n": 1, "t": "a", "l": [{}, {}, {}], "d": {"e": 2}},
        {"n": 1, "t": "a", "l": [{"x": "no"}], "d": {"e": 2}},
        {"n": 1, "t": "a", "l": [3], "d": {"e": 2}},
        {"n": 1, "t": "a", "d": {"e": "2"}},
        {"n": 1, "t": "a"},
        [],
        "x",
    )
    for request in requests:
        assert _errors(validate_fields(request, fields)) == _errors(ref_validate_fields(request, fields))
    assert validate_fields({"n": 5, "t": "a", "d": {"e": 2}}, fields) == []


# ---------------------------------------------------------------- Ambre exchanges
AMBRE = get_system("ambre")
_KEYS = AT.CHARACTERISTICS


@st.composite
def ambre_sheet(draw: st.DrawFn) -> dict[str, Any]:
    sheet = AMBRE.default_sheet()
    sheet["attributes"] = {a: draw(st.sampled_from([-25, -10, 0, 5, 20, 40])) for a in AT.ATTRIBUTES}
    sheet["characteristics"] = {c: draw(st.integers(0, 40)) for c in _KEYS}
    if draw(st.booleans()):
        sheet["modifiers"] = {k: draw(st.integers(-5, 5)) for k in ambre_combat._LEVELS}
    sheet["condition"] = {
        "wounds": {w: draw(st.integers(0, 2)) for w in AT.WOUND_ORDER},
        "life_damage": draw(st.integers(0, 60)),
        "energy_spent": draw(st.integers(0, 30)),
    }
    return sheet


_resistances = ["", *(s for s, _ in AT.QUALITIES["resistance_degats"].tiers)]


@st.composite
def ambre_declaration(draw: st.DrawFn) -> dict[str, Any]:
    decl: dict[str, Any] = {"mode": draw(st.sampled_from([*ambre_combat.MODES, "nope"]))}
    optional = {
        "target_mode": st.sampled_from([*ambre_combat.TARGET_MODES, None]),
        "surprise": st.booleans(),
        "within_reach": st.booleans(),
        "parry": st.sampled_from([None, True, False]),
        "weapon_class": st.sampled_from(["normal", "firearm", "ray"]),
        "weapon_quality": st.sampled_from(["", "extra_dur", "double", "mortels"]),
        "target_weapon_quality": st.sampled_from(["", "double", "mortels"]),
        "target_damage_resistance": st.sampled_from(_resistances),
        "actor_damage_resistance": st.sampled_from(_resistances),
        "actor_modifier": st.integers(-20, 20),
        "target_modifier": st.integers(-20, 20),
        "base_cost": st.integers(0, 40),
        "modifications": st.integers(0, 3),
        "prepared": st.booleans(),
        "instant": st.booleans(),
        "energy_cost": st.integers(0, 30),
        "gm_override": st.booleans(),
        "action_type": st.sampled_from([None, "physical", "mental"]),
    }
    for key, strategy in optional.items():
        if draw(st.integers(0, 3)) == 0:
            decl[key] = draw(strategy)
    return decl


_ambre_settings = st.fixed_dictionaries(
    {},
    optional={
        "tie_rule": st.sampled_from(["stalemate", "attribute", "gm"]),
        "wrestling_touch": st.sampled_from(["force", "touch"]),
        "unarmed_defence": st.sampled_from(["rapidite", "hab_cac"]),
        "ranged_parry": st.booleans(),
        "automatic_death": st.booleans(),
        "mortal_determination": st.sampled_from(["below_5v", "above_5v"]),
    },
)


def _exchange(a: Combatant, b: Combatant, decl: dict[str, Any], cfg: dict[str, Any]) -> Any:
    try:
        return AMBRE.resolve_action(a, b, decl, SeededRandom(1), cfg).to_dict()
    except RulesError as exc:
        return ("error", _errors(exc.errors))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ambre_sheet(),
    ambre_sheet(),
    ambre_declaration(),
    _ambre_settings,
    st.sampled_from([None, -3, 0, 12]),
    st.sampled_from(["", "bare", "flags"]),
)
def test_an_ambre_exchange_is_what_it_was(
    sa: dict[str, Any], sb: dict[str, Any], decl: dict[str, Any], cfg: dict[str, Any], karma: int | None, partial: str
) -> None:
    balances = None if karma is None else {"karma": karma}
    state_a = AMBRE.combat_state(sa, balances=balances)
    state_b = AMBRE.combat_state(sb, balances=balances)
    if partial:  # a state missing keys is completed from the sheet
        state_b = {"life": state_b["life"], "wounds": {"light": 3}}
        if partial == "flags":  # the fight flags given, the rest read from the sheet
            state_b |= {"dead": False, "coma": False}
    a = Combatant("a", "Ariane", "a", sa, state_a)
    b = Combatant("b", "Borel", "b", sb, state_b)
    got = _exchange(a, b, decl, cfg)
    with reference_ambre():
        expected = _exchange(a, b, decl, cfg)
    assert got == expected
    assert state_a == AMBRE.combat_state(sa, balances=balances)  # the participants' states are never mutated


@pytest.mark.parametrize("modifiers", [None, {}, {"melee_level": 3, "life_max": -2, "ranged_level": "x"}])
def test_ambre_stats_read_from_the_sheet_equal_the_eager_stats(modifiers: dict[str, Any] | None) -> None:
    sheet = AMBRE.default_sheet()
    sheet["attributes"] = {"psy": 40, "phy": -10, "end": True, "cbt": -25}
    sheet["characteristics"] = {c: n for n, c in enumerate(_KEYS)} | {"force": True, "mental": "9"}
    del sheet["characteristics"]["dexterite"]  # a missing one reads 0
    sheet["modifiers"] = modifiers
    eager = ref_ambre_stats(sheet)
    chars = sheet["characteristics"]
    for key in AT.CHARACTERISTICS:
        assert ambre_combat._char(chars, key) == eager[key], key
    for key in ambre_combat._LEVELS:
        assert ambre_combat._level(sheet, chars, key) == eager[key], key
    for key in AT.ATTRIBUTES:
        assert ambre_combat.attribute_points(sheet, key) == eager[f"attr_{key}"], key
    assert eager["force"] == 0 and eager["mental"] == 0 and eager["dexterite"] == 0
    assert ambre_combat._level(sheet, chars, "melee_level") == -10 + 10 + 25 + (3 if modifiers else 0)


# ---------------------------------------------------------------- settings and Altaride derived values
@pytest.mark.parametrize("system", available_systems(), ids=lambda s: s.slug)
def test_merged_settings_are_a_fresh_defaults_dict_updated(system: Any) -> None:
    defaults = system.default_campaign_settings()
    shared_base = type(system).settings is RuleSystem.settings  # Ambre keeps its own read-only merge
    for request in (None, {}, {"unknown": 1}, {k: "x" for k in list(defaults)[:2]}):
        expected = system.default_campaign_settings()
        expected.update(request or {})
        merged = system.settings(request)
        assert merged == expected and list(merged) == list(expected)
        for value in (
            merged.values() if shared_base else ()
        ):  # a caller that changes a nested default changes nothing next time
            if isinstance(value, list):
                value.append("changed")
            elif isinstance(value, dict):
                value["changed"] = True
    assert system.settings(None) == defaults


def ref_talent(sheet: dict[str, Any], code: str, with_magic: bool = True) -> int:
    from rules.altaride import tables as T

    score = ref_int((sheet.get("talents") or {}).get(code), T.TALENT_BASE)
    if with_magic:
        score += ref_int((sheet.get("talent_magic_bonus") or {}).get(code), 0)
    return score


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["VIG", "HAB", "PER", "ESP", "SCI", "AFF", "EXP", "VOL", "INT"]), _scalars),
    st.one_of(st.none(), st.dictionaries(st.sampled_from(["VIG", "HAB", "SCI"]), _scalars)),
)
def test_altaride_talents_and_domains_are_what_they_were(talents: dict[str, Any], bonus: Any) -> None:
    from rules.altaride import derive as D
    from rules.altaride import tables as T

    sheet = {"talents": talents, "talent_magic_bonus": bonus}
    for code in {c for codes in T.DOMAINS.values() for c in codes}:
        assert D.talent(sheet, code) == ref_talent(sheet, code)
        assert D.talent(sheet, code, with_magic=False) == ref_talent(sheet, code, with_magic=False)
    for name, codes in T.DOMAINS.items():
        assert D.domain(sheet, name) == sum(ref_talent(sheet, c, with_magic=False) for c in codes) // 3


def ref_clefs_aspect_state(sheet: dict[str, Any]) -> dict[str, dict[str, int]]:
    from rules.clefs import derive as D
    from rules.clefs import tables as t

    raw = sheet.get("aspects")
    aspects = raw if isinstance(raw, dict) else {}
    free = (sheet.get("creation") or {}).get("skill_package") == "free"
    state: dict[str, dict[str, int]] = {}
    for code in t.ASPECTS:
        base = ref_int(aspects.get(code), 10)
        mine = [s for s in D.skills_of(sheet) if s.get("aspect") == code]
        creation_px = 0 if free else sum(D.creation_level(s) for s in mine)
        total_px = sum(D.granted_px(s) for s in mine) - (sum(D.creation_level(s) for s in mine) if free else 0)
        created, _, _ = D.aspect_ladder(base, creation_px)
        current, left, _ = D.aspect_ladder(base, max(total_px, 0))
        state[code] = {
            "base": base,
            "after_creation": created,
            "current": current,
            "px": left,
            "threshold": current + 1,
            "increases_after_creation": max(current - created, 0),
            "total_px": total_px,
        }
    return state


_clefs_skill: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {"name": st.sampled_from(["Épée", "Course"]), "aspect": st.sampled_from(["PH", "ME", "MY", "XX"])},
    optional={
        "nc": st.integers(0, 20),
        "creation_nc": st.one_of(st.none(), st.integers(0, 20)),
        "aspect_px_granted": st.one_of(st.none(), st.integers(0, 30)),
    },
)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["PH", "ME", "MY"]), st.one_of(st.integers(5, 18), st.none(), st.booleans())),
    st.lists(st.one_of(_clefs_skill, st.integers()), max_size=4),
    st.sampled_from(["free", "fixed", None]),
)
def test_clefs_aspects_are_what_they_were(aspects: dict[str, Any], skills: list[Any], package: Any) -> None:
    from rules.clefs import derive as D

    sheet = {"aspects": aspects, "skills": skills, "creation": {"skill_package": package}}
    expected = ref_clefs_aspect_state(sheet)
    assert D.aspect_state(sheet) == expected
    for code, values in expected.items():
        assert D.current_aspect(sheet, code) == values["current"]


def ref_normalise_wounds(points: int) -> dict[str, int]:
    """Reference copy of the pair merge (L429) before its first 64 totals were tabled (#21)."""
    points = max(0, points)
    return {"light": points & 1, "serious": (points >> 1) & 1, "grave": (points >> 2) & 1, "mortal": points >> 3}


def test_ambre_tabled_pair_merge_is_the_formula_and_a_fresh_dict_each_time() -> None:
    for points in range(-5, 300):
        assert ambre_derive.normalise_wounds(points) == ref_normalise_wounds(points), points
    first = ambre_derive.normalise_wounds(5)
    first["mortal"] = 99  # a caller changing its copy changes no later answer
    assert ambre_derive.normalise_wounds(5) == {"light": 1, "serious": 0, "grave": 1, "mortal": 0}
    assert ambre_derive.normalise_wounds(5) is not ambre_derive.normalise_wounds(5)
