"""Ambre: the V2.1 combat round, psychic combat, surprise, sorcery (spec §4, §7.2 D4–D12)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.ambre.combat import accumulate_wounds, apply_damage_quality, stays_determined, wound_severity
from rules.ambre.sorcery import spell_cost
from rules.base import Combatant, RulesError, ScriptedRandom, SeededRandom
from rules.tests.test_ambre_characters import ariane, borel, cendre

SYSTEM = get_system("ambre")
RNG = ScriptedRandom([])


def fighter(cid, sheet, karma=None, **state):
    base = SYSTEM.combat_state(sheet, balances=None if karma is None else {"karma": karma})
    base.update(state)
    return Combatant(cid, cid.capitalize(), cid, sheet, base)


def changes(result):
    return {(c.participant_id, c.path): (c.before, c.after) for c in result.state_changes}


def test_d4_melee_attacker_wins():
    c, b = fighter("cendre", cendre()), fighter("borel", borel(), karma=-3)
    order = SYSTEM.initiative([c, b], {"cendre": {"mode": "melee"}, "borel": {"mode": "melee"}}, RNG)
    assert [r["id"] for r in order] == ["cendre", "borel"] and order[0]["score"] == 15
    result = SYSTEM.resolve_action(c, b, {"mode": "melee", "target_mode": "melee"}, RNG)
    out = result.outcome
    assert (out["touch"]["actor_value"], out["touch"]["target_value"], out["winner"]) == (35, 0, "cendre")
    assert (out["raw"], out["net"], out["wound"], out["determined"]) == (70, 50, "grave", True)
    assert changes(result)[("borel", "life")] == (55, 5)
    assert changes(result)[("borel", "wound_points")] == (0, 4)
    assert result.draws == []


def test_d5_attacker_loses_and_is_hurt():
    a, c = fighter("ariane", ariane(), karma=15), fighter("cendre", cendre())
    order = SYSTEM.initiative([c, a], {"cendre": {"mode": "melee"}, "ariane": {"mode": "melee"}}, RNG)
    assert [r["id"] for r in order] == ["ariane", "cendre"]
    result = SYSTEM.resolve_action(a, c, {"mode": "melee"}, RNG)
    out = result.outcome
    assert out["winner"] == "cendre" and "attacker_hit" in result.tags
    assert (out["raw"], out["net"], out["wound"]) == (40, 35, "mortal")
    assert out["determined"] is False  # recommended reading N < 5V
    ch = changes(result)
    assert ch[("ariane", "life")] == (60, 25)
    assert ch[("ariane", "dying")] == (False, True)
    assert ("ariane", "dead") not in ch and ("ariane", "death_assured") not in ch  # karma +15
    literal = SYSTEM.resolve_action(a, c, {"mode": "melee"}, RNG, {"mortal_determination": "above_5v"})
    assert literal.outcome["determined"] is True


def test_mortal_wound_with_negative_karma_is_flagged_not_killed():
    c, b = fighter("cendre", cendre()), fighter("borel", borel(), karma=-3, wounds={"grave": 1})
    result = SYSTEM.resolve_action(c, b, {"mode": "melee"}, RNG)
    ch = changes(result)
    assert ch[("borel", "wounds")][1] == {"light": 0, "serious": 0, "grave": 0, "mortal": 1}
    assert ch[("borel", "death_assured")] == (False, True)
    assert ("borel", "dead") not in ch
    assert "mortal_wound_negative_karma" in result.tags
    auto = SYSTEM.resolve_action(c, b, {"mode": "melee"}, RNG, {"automatic_death": True})
    assert changes(auto)[("borel", "dead")] == (False, True)


def test_d6_psychic_attack_and_coma():
    b, a = fighter("borel", borel()), fighter("ariane", ariane())
    order = SYSTEM.initiative([a, b], {"borel": {"mode": "psychic"}, "ariane": {"mode": "melee"}}, RNG)
    assert [(r["id"], r["score"], r["action_type"]) for r in order] == [
        ("borel", 25, "mental"),
        ("ariane", 20, "physical"),
    ]
    first = SYSTEM.resolve_action(b, a, {"mode": "psychic"}, RNG)
    assert first.outcome["energy_loss"] == 20 and changes(first)[("ariane", "energy")] == (40, 20)
    a.state["energy"] = 20
    second = SYSTEM.resolve_action(b, a, {"mode": "psychic"}, RNG)
    assert changes(second)[("ariane", "energy")] == (20, 0)
    assert changes(second)[("ariane", "coma")] == (False, True)
    assert "coma" in second.tags


def test_d7_wrestling_force_against_force():
    c, b = fighter("cendre", cendre()), fighter("borel", borel())
    result = SYSTEM.resolve_action(c, b, {"mode": "wrestling"}, RNG)
    out = result.outcome
    assert (out["touch"]["actor_value"], out["touch"]["target_value"]) == (10, 5)
    assert out["parade_skipped"] and (out["raw"], out["net"], out["wound"], out["determined"]) == (
        45,
        25,
        "serious",
        True,
    )
    assert changes(result)[("borel", "life")] == (55, 30)
    literal = SYSTEM.resolve_action(c, b, {"mode": "wrestling"}, RNG, {"wrestling_touch": "hab_cac"})
    assert literal.outcome["touch"]["target_value"] == 0


@pytest.mark.parametrize("setting, raw, net, wound", [("hab_cac", 60, 40, "grave"), ("rapidite", 50, 30, "serious")])
def test_d8_surprise_attack(setting, raw, net, wound):
    a, b = fighter("ariane", ariane()), fighter("borel", borel())
    result = SYSTEM.resolve_action(
        a, b, {"mode": "ranged", "surprise": True, "target_mode": "unarmed"}, RNG, {"unarmed_defence": setting}
    )
    out = result.outcome
    assert out["touch"]["skipped"] and "surprise" in result.tags
    assert (out["raw"], out["net"], out["wound"]) == (raw, net, wound)


@pytest.mark.parametrize(
    "net, wound",
    [
        (0, None),
        (-3, None),
        (1, "light"),
        (9, "light"),
        (10, "serious"),
        (19, "serious"),
        (20, "grave"),
        (39, "grave"),
        (40, "mortal"),
        (41, "mortal"),
    ],
)
def test_d9_wound_severity(net, wound):
    assert wound_severity(net, 10) == wound


def test_zero_resistance_makes_every_wound_mortal():
    assert wound_severity(1, 0) == "mortal"


@pytest.mark.parametrize(
    "taken, state",
    [
        (["light", "light"], {"light": 0, "serious": 1, "grave": 0, "mortal": 0}),
        (["light"] * 3, {"light": 1, "serious": 1, "grave": 0, "mortal": 0}),
        (["serious", "light", "light"], {"light": 0, "serious": 0, "grave": 1, "mortal": 0}),
        (["grave", "grave"], {"light": 0, "serious": 0, "grave": 0, "mortal": 1}),
        (["grave", "serious", "light", "light"], {"light": 0, "serious": 0, "grave": 0, "mortal": 1}),
    ],
)
def test_d10_wound_accumulation(taken, state):
    assert accumulate_wounds({}, taken) == state


@pytest.mark.parametrize(
    "wound, net, expected",
    [
        ("serious", 59, True),
        ("serious", 60, False),
        ("grave", 49, True),
        ("grave", 50, False),
        ("mortal", 49, True),
        ("mortal", 50, False),
        ("light", 500, None),
        (None, 0, None),
    ],
)
def test_d11_determination(wound, net, expected):
    assert stays_determined(wound, net, 10) is expected


def test_d11_literal_mortal_reading():
    assert stays_determined("mortal", 51, 10, "above_5v") is True
    assert stays_determined("mortal", 50, 10, "above_5v") is False


def test_damage_qualities_l123():
    assert apply_damage_quality("light", "double") == "grave"
    assert apply_damage_quality("serious", "double") == "serious"
    assert apply_damage_quality("light", "mortels") == "grave"
    assert apply_damage_quality(None, "mortels") is None


def test_damage_resistance_makes_weapons_ineffective():
    c, b = fighter("cendre", cendre()), fighter("borel", borel())
    result = SYSTEM.resolve_action(c, b, {"mode": "melee", "target_damage_resistance": "armes_blanches"}, RNG)
    assert result.outcome["net"] == 0 and "ineffective" in result.tags
    fire = SYSTEM.resolve_action(
        c, b, {"mode": "melee", "weapon_class": "firearm", "target_damage_resistance": "armes_blanches"}, RNG
    )
    assert fire.outcome["net"] == 50


def test_touch_tie_settings():
    a, b = fighter("ariane", ariane()), fighter("other", ariane())
    tie = SYSTEM.resolve_action(a, b, {"mode": "melee"}, RNG)
    assert tie.outcome["touch"]["tie"] and "stalemate" in tie.tags and tie.state_changes == []
    b.sheet["attributes"]["cbt"] = 25
    b.sheet["characteristics"]["hab_distance"] = 10
    broken = SYSTEM.resolve_action(a, b, {"mode": "melee"}, RNG, {"tie_rule": "attribute"})
    assert broken.outcome["winner"] == "ariane"
    gm = SYSTEM.resolve_action(a, b, {"mode": "melee"}, RNG, {"tie_rule": "gm"})
    assert "gm_decision" in gm.tags


def test_ranged_attacker_losing_only_misses():
    b, c = fighter("borel", borel()), fighter("cendre", cendre())
    b.sheet["characteristics"].update({"hab_distance": 0})
    result = SYSTEM.resolve_action(b, c, {"mode": "ranged"}, RNG)
    assert result.outcome["miss"] and result.state_changes == []
    reach = SYSTEM.resolve_action(b, c, {"mode": "ranged", "within_reach": True}, RNG)
    assert reach.outcome["winner"] == "cendre" and reach.state_changes


def test_ranged_parry_toggle():
    a, b = fighter("ariane", ariane()), fighter("cendre", cendre())
    # Ariane's ranged skill 15 vs Cendre's CaC 35: Cendre wins, but within reach only.
    c2 = fighter("cendre2", cendre())
    c2.sheet["characteristics"].update({"hab_cac": 5, "strategie": 35})
    parried = SYSTEM.resolve_action(a, c2, {"mode": "ranged"}, RNG)
    unparried = SYSTEM.resolve_action(a, c2, {"mode": "ranged", "parry": False}, RNG)
    assert parried.outcome["raw"] == 55 and unparried.outcome["raw"] == 60
    assert SYSTEM.resolve_action(a, c2, {"mode": "ranged"}, RNG, {"ranged_parry": False}).outcome["raw"] == 60
    del b


def test_initiative_ties():
    a, b = fighter("ariane", ariane()), fighter("twin", ariane())
    b.sheet["attributes"]["phy"] = 25
    b.sheet["characteristics"]["dexterite"] = 15
    rows = SYSTEM.initiative([a, b], {}, RNG)
    assert [r["position"] for r in rows] == [1, 1] and all(r["simultaneous"] for r in rows)
    rows = SYSTEM.initiative([a, b], {}, RNG, {"initiative_tie": "attribute"})
    assert [r["id"] for r in rows] == ["twin", "ariane"] and [r["position"] for r in rows] == [1, 2]


@pytest.mark.parametrize(
    "decl, code",
    [
        ({"mode": "kick"}, "invalid_choice"),
        ({}, "required"),
        ({"mode": "melee", "action_type": "mental"}, "action_type_mismatch"),
        ({"mode": "melee", "actor_modifier": "x"}, "invalid_int"),
    ],
)
def test_bad_declarations(decl, code):
    a, b = fighter("ariane", ariane()), fighter("borel", borel())
    with pytest.raises(RulesError) as exc:
        SYSTEM.resolve_action(a, b, decl, RNG)
    assert code in {e.code for e in exc.value.errors}


def test_bad_targets():
    a = fighter("ariane", ariane())
    with pytest.raises(RulesError):
        SYSTEM.resolve_action(a, None, {"mode": "melee"}, RNG)
    with pytest.raises(RulesError):
        SYSTEM.resolve_action(a, a, {"mode": "melee"}, RNG)
    out = fighter("borel", borel(), coma=True)
    with pytest.raises(RulesError) as exc:
        SYSTEM.resolve_action(a, out, {"mode": "melee"}, RNG)
    assert exc.value.errors[0].code == "invalid_target"


def test_a_partial_state_is_completed_from_the_sheet_condition():
    """A state missing keys reads them from the sheet: a fighter whose sheet says dead or in a coma
    cannot act nor be attacked, and a loser's gauges come from its sheet (the app stores complete
    states; an older or hand-written one must not fight on)."""
    a = fighter("ariane", ariane())
    dead = borel()
    dead["condition"] = {**(dead.get("condition") or {}), "dead": True}
    for state in ({"life": 10}, {"life": 10, "coma": False}):  # "dead" missing: read from the sheet
        out = Combatant("borel", "Borel", "borel", dead, state)
        with pytest.raises(RulesError) as exc:
            SYSTEM.resolve_action(a, out, {"mode": "melee"}, RNG)
        assert exc.value.errors[0].code == "invalid_target"
        with pytest.raises(RulesError) as exc:
            SYSTEM.resolve_action(out, a, {"mode": "melee"}, RNG)
        assert exc.value.errors[0].code == "cannot_act"
    # The flags given, the rest missing: the loser's life before the blow is the given one.
    c = fighter("cendre", cendre())
    partial = Combatant("borel", "Borel", "borel", borel(), {"dead": False, "coma": False, "life": 40})
    result = SYSTEM.resolve_action(c, partial, {"mode": "melee", "target_mode": "melee"}, RNG)
    assert changes(result)[("borel", "life")] == (40, -10)
    assert changes(result)[("borel", "wound_points")] == (0, 4)


# spec §7.1 S6–S9 and §7.2 D12
@pytest.mark.parametrize(
    "kwargs, keys, energy",
    [
        ({"modifications": 1, "prepared": True, "instant": True}, 4, 30),  # S6
        ({"modifications": 2, "prepared": True, "instant": True}, 6, 40),
        ({"modifications": 0, "prepared": True, "instant": True}, 2, 20),
        ({"modifications": 1, "instant": True}, 4, 80),  # S8
        ({"modifications": 2, "instant": True}, 8, 160),
        ({"modifications": 2, "instant": True, "magic_rich": True}, 4, 80),
        ({"modifications": 1, "instant": True, "magic_rich": True}, 2, 40),  # S9 unprepared
        ({"real": False}, 0, 10),
        ({}, 1, 10),
    ],
)
def test_spell_costs(kwargs, keys, energy):
    cost = spell_cost(10, **kwargs)
    assert (cost["keys"], cost["energy"]) == (keys, energy)


def test_s7_range_modification_would_cost_10_and_a_key():
    with_range = spell_cost(10, 2, prepared=True, instant=True)
    without = spell_cost(10, 1, prepared=True, instant=True)
    assert with_range["energy"] - without["energy"] == 10
    assert with_range["keys"] // 2 - without["keys"] // 2 == 1


def test_spells_in_combat_spend_keys_and_energy():
    b = fighter("borel", borel())
    result = SYSTEM.resolve_action(
        b, None, {"mode": "spell", "base_cost": 10, "modifications": 1, "prepared": True, "instant": True}, RNG
    )
    assert changes(result) == {("borel", "keys"): (10, 6), ("borel", "energy"): (95, 65)}
    with pytest.raises(RulesError) as exc:
        SYSTEM.resolve_action(b, None, {"mode": "spell", "base_cost": 10, "modifications": 2, "instant": True}, RNG)
    assert {e.code for e in exc.value.errors} == {"insufficient_energy"}
    with pytest.raises(RulesError) as exc:
        SYSTEM.resolve_action(b, None, {"mode": "spell", "base_cost": 10, "in_amber": True}, RNG)
    assert exc.value.errors[0].code == "spell_in_amber"
    forced = SYSTEM.resolve_action(
        b, None, {"mode": "spell", "base_cost": 10, "modifications": 2, "instant": True, "gm_override": True}, RNG
    )
    assert "gm_override" in forced.tags and changes(forced)[("borel", "coma")] == (False, True)


def test_power_use_is_gm_adjudicated():
    a = fighter("ariane", ariane())
    result = SYSTEM.resolve_action(a, None, {"mode": "power", "energy_cost": 5}, RNG)
    assert "gm_adjudication" in result.tags and changes(result) == {("ariane", "energy"): (40, 35)}


def test_result_is_json_and_replayable():
    c, b = fighter("cendre", cendre()), fighter("borel", borel())
    first = SYSTEM.resolve_action(c, b, {"mode": "melee"}, SeededRandom(1)).to_dict()
    second = SYSTEM.resolve_action(c, b, {"mode": "melee"}, ScriptedRandom(first["draws"])).to_dict()
    assert first == second


wound_lists = st.lists(st.sampled_from(["light", "serious", "grave", "mortal"]), max_size=20)


@given(wound_lists, st.randoms())
def test_wound_accumulation_is_order_independent(wounds, rnd):
    shuffled = list(wounds)
    rnd.shuffle(shuffled)
    assert accumulate_wounds({}, wounds) == accumulate_wounds({}, shuffled)
    step = accumulate_wounds({}, [])
    for w in shuffled:
        step = accumulate_wounds(step, [w])
    assert step == accumulate_wounds({}, wounds)


@given(st.integers(-50, 500), st.integers(0, 100))
def test_wound_severity_is_monotonic(net, resistance):
    order = [None, "light", "serious", "grave", "mortal"]
    assert order.index(wound_severity(net, resistance)) <= order.index(wound_severity(net + 1, resistance))


@settings(max_examples=50, deadline=None)
@given(
    st.sampled_from(["melee", "ranged", "thrown", "wrestling", "bare_hands", "psychic"]),
    st.sampled_from(["melee", "ranged", "unarmed", "wrestling", "none"]),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_combat_resolution_is_deterministic(mode, target_mode, surprise, seed):
    c, b = fighter("cendre", cendre()), fighter("borel", borel())
    decl = {"mode": mode, "target_mode": target_mode, "surprise": surprise}
    first = SYSTEM.resolve_action(c, b, decl, SeededRandom(seed)).to_dict()
    again = SYSTEM.resolve_action(c, b, decl, SeededRandom(seed + 1)).to_dict()
    assert first == again and first["draws"] == []
    for change in first["state_changes"]:
        if change["path"] == "life":
            assert change["after"] <= change["before"]


def test_human_with_empty_energy_gauge_is_not_in_a_coma():
    from rules.tests.test_ambre_characters import make_sheet

    human = make_sheet((-25, 0, -25, 0), (0, 0, 0, 9, 8, 8, 0, 0, 0, 9, 8, 8), ("marelle_brisee",))
    state = SYSTEM.combat_state(human)
    assert state["energy_max"] == 0 and state["coma"] is False and state["life_max"] == 25


def test_a_psychic_attack_that_drains_nothing_does_not_cause_a_coma():
    """L404 "Un personnage descendant à 0 en énergie": a loss of 0 is no descent (L422 loss clamped at 0)."""
    c, b = fighter("cendre", cendre()), fighter("borel", borel(), energy=0)
    decl = {"mode": "psychic", "target_mode": "psychic", "actor_modifier": 20}  # touch 30 vs 25
    result = SYSTEM.resolve_action(c, b, decl, RNG)
    assert result.outcome["winner"] == "cendre" and result.outcome["energy_loss"] == 0  # Mental 10 - Volonté 15
    assert result.outcome["coma"] is False and ("borel", "coma") not in changes(result)


def test_a_free_power_use_does_not_put_an_empty_gauge_in_a_coma():  # L404
    from rules.tests.test_ambre_characters import make_sheet

    human = make_sheet((-25, 0, -25, 0), (0, 0, 0, 9, 8, 8, 0, 0, 0, 9, 8, 8), ("marelle_brisee",))
    h = fighter("human", human)
    result = SYSTEM.resolve_action(h, None, {"mode": "power", "energy_cost": 0}, RNG)
    assert ("human", "coma") not in changes(result)
