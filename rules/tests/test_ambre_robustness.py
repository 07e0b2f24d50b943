"""Ambre: malformed sheets and specs never crash the rules (they yield field errors)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.ambre import costs
from rules.tests.test_ambre_characters import ariane

SYSTEM = get_system("ambre")

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-100, 100)
    | st.text(max_size=8)
    | st.sampled_from(["atouts", "ami_cour", "personnelle", "doublee", "horde", "canal", "sensible"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.text(max_size=10)
        | st.sampled_from(
            [
                "type",
                "power",
                "qualities",
                "powers",
                "transfers",
                "quantity",
                "level",
                "origin_shadows",
                "kind",
                "target",
                "barrier",
                "control",
                "manifestations",
                "psyche",
                "vitalite",
                "guerison",
            ]
        ),
        children,
        max_size=4,
    ),
    max_leaves=12,
)
sections = st.sampled_from(
    [
        "attributes",
        "characteristics",
        "powers",
        "artefacts",
        "shadows",
        "constructs",
        "allies",
        "invented_powers",
        "condition",
        "modifiers",
        "ladder",
        "creation_points",
        "karma_loan",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(sections, json_values, max_size=4))
def test_malformed_sheets_give_errors_not_exceptions(patch):
    sheet = ariane()
    sheet.update(patch)
    errors = SYSTEM.validate_sheet(sheet)
    assert all(e.code and e.message.fr and e.message.en for e in errors)
    SYSTEM.creation_budget(sheet)
    SYSTEM.derive(sheet)


@settings(max_examples=80, deadline=None)
@given(json_values)
def test_calculators_accept_any_json(spec):
    for calc in (
        costs.artefact_cost,
        costs.shadow_cost,
        costs.construct_cost,
        costs.ally_cost,
        costs.invented_power_cost,
    ):
        result = calc(spec if isinstance(spec, dict) else {"x": spec})
        assert isinstance(result.amount, int)


def test_a_list_for_a_choice_is_an_invalid_choice():
    sheet = ariane()
    sheet["allies"][0]["type"] = ["ami_cour"]
    assert ("allies.0.type", "invalid_choice") in {(e.path, e.code) for e in SYSTEM.validate_sheet(sheet)}
    from rules.base import Combatant, RulesError, ScriptedRandom

    a = Combatant("a", "A", "a", ariane(), {})
    b = Combatant("b", "B", "b", ariane(), {})
    try:
        SYSTEM.resolve_action(a, b, {"mode": ["melee"]}, ScriptedRandom([]))
    except RulesError as exc:
        assert exc.errors[0].code == "invalid_choice"
    else:  # pragma: no cover
        raise AssertionError("expected RulesError")
    purchase = SYSTEM.purchase(ariane(), {"kind": "power", "power": {"x": 1}}, {"karma": 50})
    assert purchase.errors[0].code == "invalid_choice"


def test_unhashable_kinds_and_events_are_rejected_cleanly():
    from rules.ambre import auction
    from rules.base import RulesError, ScriptedRandom

    for call in (
        lambda: SYSTEM.resolve({"kind": ["comparison"]}, ScriptedRandom([])),
        lambda: auction.apply(
            auction.new_auction(["a"]), {"type": "bid", "player": "a", "attribute": ["psy"], "amount": 1}
        ),
        lambda: auction.apply(auction.new_auction(["a"]), {"type": ["bid"]}),
        lambda: auction.apply(auction.new_auction(["a"]), {"type": "downgrade", "player": "a", "rank": ["human"]}),
    ):
        try:
            call()
        except RulesError as exc:
            assert exc.errors
        else:  # pragma: no cover
            raise AssertionError("expected RulesError")
    assert SYSTEM.purchase(ariane(), {"kind": ["power"]}, {"karma": 1}).errors[0].code == "unsupported"
