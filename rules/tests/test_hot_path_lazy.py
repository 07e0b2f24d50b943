"""The rules hot path, second pass (#21): straight-line field checks, lazy summaries, Ambre's
comparison and exchange written out. Each is checked against what it replaced.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.ambre import combat as ambre_combat
from rules.ambre import resolution as ambre_resolution
from rules.ambre.derive import normalise_wounds, wound_points
from rules.base import (
    Combatant,
    Field,
    LazyMsg,
    Msg,
    RulesError,
    SeededRandom,
    fields_checker,
    fields_reader,
    validate_fields,
)
from rules.base.clean import _compiled
from rules.tests.test_hot_path_equivalence import (
    FIELD_TUPLES,
    ambre_declaration,
    ambre_sheet,
    data_for,
    ref_validate_fields,
)

AMBRE = get_system("ambre")


# ---------------------------------------------------------------- straight-line checks
STRAIGHT = [(name, fields) for name, fields in FIELD_TUPLES if (c := _compiled(fields)) and c.straight]


def test_the_short_declarations_are_written_out() -> None:
    names = {name for name, _ in STRAIGHT}
    assert {"ambre.test.comparison", "ambre.test.wound", "altaride.test.test", "sms.test.opposed"} <= names
    assert "ambre.action" not in names  # 24 fields: the keyed loop checks only the keys a request sets


@pytest.mark.parametrize(("name", "fields"), STRAIGHT, ids=[n for n, _ in STRAIGHT])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_straight_check_gives_the_plain_loops_verdict(name: str, fields: tuple[Field, ...], data: Any) -> None:
    request = data.draw(data_for(fields))
    try:
        expected = not ref_validate_fields(request, fields)
    except TypeError:  # an unhashable value for a choice: the straight check refuses it
        expected = False
    straight = _compiled(fields).straight  # type: ignore[union-attr]
    assert straight is not None
    assert straight(request) is expected
    assert fields_checker(fields)(request) is expected


@pytest.mark.parametrize(("name", "fields"), FIELD_TUPLES, ids=[n for n, _ in FIELD_TUPLES])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fields_checker_is_validate_fields_finding_nothing(name: str, fields: tuple[Field, ...], data: Any) -> None:
    request = data.draw(data_for(fields))
    try:
        expected = not validate_fields(request, fields)
    except TypeError:
        expected = False
    assert fields_checker(fields)(request) is expected


FLAT = [(name, fields) for name, fields in FIELD_TUPLES if all(f.path and "." not in f.path for f in fields)]


@pytest.mark.parametrize(("name", "fields"), FLAT, ids=[n for n, _ in FLAT])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_fields_reader_reads_what_it_checks(name: str, fields: tuple[Field, ...], data: Any) -> None:
    """``fields_reader``: None when the loop finds an error, else ``{path: get(path, default)}`` in order."""
    request = data.draw(data_for(fields))
    try:
        valid = not ref_validate_fields(request, fields)
    except TypeError:
        valid = False
    got = fields_reader(fields)(request)
    if not valid:
        assert got is None
        return
    expected = {f.path: request.get(f.path, f.default) for f in fields}
    assert got == expected and list(got) == [f.path for f in fields]


def test_a_fields_reader_keeps_an_explicit_none_and_fills_a_missing_default() -> None:
    fields = (
        Field("n", "int", Msg("n", "n"), required=True, minimum=0, maximum=9),
        Field("label", "str", Msg("l", "l"), default="A", max_length=3),
        Field("flag", "bool", Msg("f", "f"), default=False),
    )
    read = fields_reader(fields)
    assert read({"n": 2}) == {"n": 2, "label": "A", "flag": False}
    assert read({"n": 2, "label": None, "extra": 1}) == {"n": 2, "label": None, "flag": False}
    for bad in ({"n": 10}, {"label": "A"}, {"n": 1, "label": "long"}, {"n": True}, {"n": 1, "flag": 1}, [("n", 1)]):
        assert read(bad) is None, bad
    long = tuple(Field(f"f{i}", "int", Msg("f", "f"), default=i) for i in range(12))  # not written out
    assert fields_reader(long)({"f3": 7}) == {f"f{i}": 7 if i == 3 else i for i in range(12)}
    assert fields_reader(long)({"f3": "7"}) is None


def test_straight_check_edges() -> None:
    fields = (
        Field("n", "int", Msg("n", "n"), required=True, minimum=-3, maximum=5),
        Field("t", "str", Msg("t", "t"), max_length=2),
        Field("r", "text", Msg("r", "r"), required=True),
        Field("b", "bool", Msg("b", "b")),
        Field("c", "choice", Msg("c", "c"), choices=(("x", Msg("x", "x")), (2, Msg("2", "2")))),  # type: ignore[arg-type]
    )
    check = fields_checker(fields)
    assert check is _compiled(fields).straight  # type: ignore[union-attr]
    ok = {"n": 5, "r": "a", "t": "ab", "b": False, "c": 2, "unknown": object()}
    assert check(ok)
    for bad in (
        {"n": 6},
        {"n": -4},
        {"n": True},
        {"n": 1.0},
        {"n": None},
        {"t": "abc"},
        {"t": 3},
        {"r": "  "},
        {"r": None},
        {"b": 0},
        {"c": "y"},
        {"c": ["x"]},
    ):
        assert not check({**ok, **bad}), bad
        assert validate_fields({**ok, **bad}, fields), bad
    assert not check([ok]) and not check(None)  # type: ignore[arg-type]
    # A bound that is not a plain int keeps the loop (its comparison is the loop's).
    assert _compiled((Field("f", "int", Msg("f", "f"), maximum=2.5),)).straight is None  # type: ignore[arg-type,union-attr]


# ---------------------------------------------------------------- lazy messages
def _render(name: str, n: int) -> tuple[str, str]:
    return (f"{name} perd {n} (L422).", f"{name} loses {n} (L422).")


def test_a_lazy_message_is_the_message_it_renders() -> None:
    calls: list[int] = []

    def render(n: int) -> tuple[str, str]:
        calls.append(n)
        return _render("Borel", n)

    lazy = LazyMsg(render, 3)
    assert calls == []  # nothing written until read
    eager = Msg("Borel perd 3 (L422).", "Borel loses 3 (L422).")
    assert lazy == eager and eager == lazy and hash(lazy) == hash(eager)
    assert lazy.get("fr") == "Borel perd 3." and lazy.get("en") == "Borel loses 3."
    assert lazy.raw("en") == "Borel loses 3 (L422)." and lazy.refs() == ["L422"]
    assert lazy.to_dict() == eager.to_dict()
    assert calls == [3]  # written once
    assert lazy != Msg("Borel perd 4 (L422).", "Borel loses 4 (L422).")
    assert {eager: 1}[lazy] == 1
    with pytest.raises(AttributeError):
        lazy.nope  # noqa: B018


def test_a_lazy_message_copies_and_pickles_as_its_text() -> None:
    for lazy in (LazyMsg(_render, "A", 1), LazyMsg(_render, "B", 2)):
        for copied in (pickle.loads(pickle.dumps(lazy)), copy.deepcopy(lazy), copy.copy(lazy)):
            assert copied == lazy and type(copied) is Msg


# ---------------------------------------------------------------- Ambre comparison
def ref_comparison(request: dict[str, Any], settings: dict[str, Any]) -> tuple[Any, ...]:
    """Reference copy of the comparison before #21's second pass (outcome, summary, level...)."""
    inputs: dict[str, Any] = {p: request.get(p, d) for p, d in ambre_resolution._DEFAULTS["comparison"]}
    inputs["kind"] = "comparison"
    rule = settings.get("tie_rule", "stalemate")
    winner = ambre_resolution.compare(
        inputs["a_value"], inputs["b_value"], rule, inputs["a_tiebreak"], inputs["b_tiebreak"]
    )
    margin = inputs["a_value"] - inputs["b_value"]
    tie = inputs["a_value"] == inputs["b_value"]
    outcome = {"winner": winner, "margin": abs(margin), "tie": tie, "tie_rule": rule if tie else None}
    a, b = inputs["a_label"] or "A", inputs["b_label"] or "B"
    if winner is None:
        summary = Msg(
            f"{a} et {b} sont à égalité ({inputs['a_value']}){' : le MJ tranche' if rule == 'gm' else ''}.",
            f"{a} and {b} are tied ({inputs['a_value']}){': the GM decides' if rule == 'gm' else ''}.",
        )
        tags = ["tie"] + (["gm_decision"] if rule == "gm" else [])
        return inputs, outcome, summary, None, tags, "tie", margin
    name = a if winner == "a" else b
    summary = Msg(
        f"{name} l'emporte ({inputs['a_value']} contre {inputs['b_value']}).",
        f"{name} wins ({inputs['a_value']} vs {inputs['b_value']}).",
    )
    won = winner == "a"
    return inputs, outcome, summary, won, ["tiebreak"] if tie else [], "success" if won else "failure", margin


_labels = st.sampled_from(["Ariane", "", None, "B", "x" * 121, 3])
_numbers = st.one_of(st.integers(-3, 3), st.sampled_from([None, True, 100001, -100000, "4", 2.0]))


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(  # type: ignore[misc]
        {"kind": st.just("comparison")},
        optional={
            "a_value": _numbers,
            "b_value": _numbers,
            "a_label": _labels,
            "b_label": _labels,
            "a_tiebreak": _numbers,
            "b_tiebreak": _numbers,
        },
    ),
    st.sampled_from([None, {"tie_rule": "stalemate"}, {"tie_rule": "attribute"}, {"tie_rule": "gm"}]),
)
def test_an_ambre_comparison_is_what_it_was(request: dict[str, Any], cfg: dict[str, Any] | None) -> None:
    errors = validate_fields(request, ambre_resolution._KINDS["comparison"])
    if errors:
        with pytest.raises(RulesError) as caught:
            AMBRE.resolve(request, SeededRandom(1), cfg)
        assert [e.to_dict() for e in caught.value.errors] == [e.to_dict() for e in errors]
        return
    got = AMBRE.resolve(request, SeededRandom(1), cfg)
    expected = ref_comparison(request, AMBRE.settings(cfg))
    assert (got.inputs, got.outcome, got.summary, got.success, got.tags, got.level, got.margin) == expected
    assert got.to_dict()["summary"] == expected[2].to_dict()


# ---------------------------------------------------------------- Ambre exchange: the wound track
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ambre_sheet(),
    ambre_sheet(),
    ambre_declaration(),
    st.fixed_dictionaries({"light": st.integers(-1, 3), "serious": st.integers(0, 2), "mortal": st.integers(0, 1)}),
)
def test_an_exchange_accumulates_wounds_by_the_pair_rule(
    sa: dict[str, Any], sb: dict[str, Any], decl: dict[str, Any], given_wounds: dict[str, int]
) -> None:
    """L429: the loser's wounds are W = L + 2S + 4G + 8M pair-merged, the new wound added."""
    state_a = AMBRE.combat_state(sa)
    state_b = {**AMBRE.combat_state(sb), "wounds": given_wounds}
    a, b = Combatant("a", "Ariane", "a", sa, state_a), Combatant("b", "Borel", "b", sb, state_b)
    try:
        result = AMBRE.resolve_action(a, b, decl, SeededRandom(1))
    except RulesError:
        return
    wound = result.outcome.get("wound")
    if "wounds_after" not in result.outcome:
        return
    loser_state = state_b if result.outcome["loser"] == "b" else state_a
    before = normalise_wounds(wound_points(loser_state["wounds"]))
    expected = ambre_combat.accumulate_wounds(before, [wound] if wound else [])
    assert result.outcome["wounds_after"] == expected
    changes = {c.path: c.after for c in result.state_changes if c.participant_id == result.outcome["loser"]}
    if wound:
        assert changes.get("wound_points", loser_state.get("wound_points")) == wound_points(expected)
    if expected != before:
        assert changes["wounds"] == expected
    assert result.summary.get("fr") and result.summary == Msg(result.summary.fr, result.summary.en)


# ---------------------------------------------------------------- Altaride catalogue lookups
_rows = st.lists(
    st.one_of(
        st.fixed_dictionaries({"key": st.sampled_from(["epee", "dague", "", 3, None]), "n": st.integers(0, 3)}),
        st.sampled_from([None, "epee", 4, ["epee"]]),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(_rows, st.dictionaries(st.sampled_from(["epee", "dague"]), st.just({"n": 1})), st.just("x")),
    st.sampled_from(["epee", "dague", "arc", ""]),
)
def test_a_catalogue_row_is_the_indexed_catalogue_s(rows: Any, key: str) -> None:
    from rules.altaride.schema import catalogue, catalogue_row

    cfg = {"weapon_catalogue": rows}
    expected = catalogue(cfg, "weapon_catalogue").get(key)
    got = catalogue_row(cfg, "weapon_catalogue", key)
    assert got == expected and (got is expected or not isinstance(rows, list))


# ---------------------------------------------------------------- Ambre ladders (the session job's step)
def ref_public_positions(public: list[str], points: dict[str, int]) -> dict[str, int | None]:
    """Reference copy: each id's place in the public ladder by ``list.index`` (quadratic)."""
    kept = [p for p in public if p in points]
    return {pid: kept.index(pid) + 1 if pid in kept else None for pid in points}


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from([str(n) for n in range(1, 9)]), st.integers(-30, 40), max_size=8),
    st.lists(st.sampled_from([str(n) for n in range(0, 10)]), max_size=10),
)
def test_a_ladder_s_public_positions_are_the_list_s(points: dict[str, int], public: list[str]) -> None:
    from rules.ambre import ranks

    table = ranks.ladder(points, public)
    assert {pid: r["public_position"] for pid, r in table["ranks"].items()} == ref_public_positions(public, points)


def test_the_campaign_ladders_leave_the_sheets_they_read_as_they_were() -> None:
    import copy as copy_module

    sheets = {}
    for n in range(1, 6):
        sheet = AMBRE.default_sheet()
        sheet["attributes"] = {"psy": n * 5, "phy": 30 - n * 5, "end": 0, "cbt": n}
        sheet["ladder"] = {"phy": {"public_position": n, "public_points": 1, "true_position": 9, "note": ["x"]}}
        sheets[n] = sheet
    before = copy_module.deepcopy(sheets)
    out = AMBRE.campaign_progression(sheets, {})
    assert out is not None
    assert sheets == before  # nothing read was changed
    assert all("true_position" not in out[n]["sheet"]["ladder"]["phy"] for n in sheets)
    assert out[1]["state"]["ranks"]["phy"]["public_position"] == 1


@given(
    st.one_of(
        st.none(),
        st.text(alphabet=" \t\nHABVIGé+,", max_size=8),
        st.lists(st.text(alphabet=" HABVIG", max_size=4), max_size=3),
        st.tuples(st.text(alphabet=" HAB", max_size=3)),
        st.integers(),
    )
)
def test_a_blank_formula_is_told_as_the_join_told_it(formula: Any) -> None:
    """``formula_pending``'s text fast path: the same verdict as joining the formula's parts."""
    from rules.altaride.schema import formula_pending

    joined = formula is None or (isinstance(formula, str | list | tuple) and not "".join(map(str, formula)).strip())
    assert formula_pending(formula) == joined
