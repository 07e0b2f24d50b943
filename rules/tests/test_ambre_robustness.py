"""Ambre: malformed sheets and specs never crash the rules (they yield field errors)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.ambre import costs
from rules.tests.test_ambre_characters import ariane

SYSTEM = get_system("ambre")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | st.text(max_size=8)
    | st.sampled_from(["atouts", "ami_cour", "personnelle", "doublee", "horde", "canal", "sensible"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10) | st.sampled_from(
        ["type", "power", "qualities", "powers", "transfers", "quantity", "level", "origin_shadows", "kind",
         "target", "barrier", "control", "manifestations", "psyche", "vitalite", "guerison"]), children, max_size=4),
    max_leaves=12,
)
sections = st.sampled_from(["attributes", "characteristics", "powers", "artefacts", "shadows", "constructs", "allies",
                            "invented_powers", "condition", "modifiers", "ladder", "creation_points", "karma_loan"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(sections, json_values, max_size=4))
def test_malformed_sheets_give_errors_not_exceptions(patch):
    sheet = ariane()
    sheet.update(patch)
    errors = SYSTEM.validate_sheet(sheet)
    assert all(e.code and e.message.fr and e.message.en for e in errors)
    SYSTEM.creation_budget(sheet)
    SYSTEM.derive(sheet)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_calculators_accept_any_json(spec):
    for calc in (costs.artefact_cost, costs.shadow_cost, costs.construct_cost, costs.ally_cost,
                 costs.invented_power_cost):
        result = calc(spec if isinstance(spec, dict) else {"x": spec})
        assert isinstance(result.amount, int)
