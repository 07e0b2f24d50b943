"""Altaride experience: prices, per-session limits, session awards (spec §5, §6.2 D56-D65)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import get_system
from rules.altaride import tables as T
from rules.base import PurchaseResult, RulesError, ScriptedRandom
from rules.tests.test_altaride_creation import SETTINGS, aldo

SYSTEM = get_system("altaride")


def created() -> dict[str, Any]:
    sheet = aldo()
    sheet["creation_complete"] = True
    return sheet


def buy(
    sheet: dict[str, Any],
    request: dict[str, Any],
    xp: int = 1000,
    cfg: dict[str, Any] | None = None,
) -> PurchaseResult:
    return SYSTEM.purchase(sheet, request, {"xp": xp}, cfg if cfg is not None else SETTINGS)


def entries_data(result: PurchaseResult) -> list[dict[str, Any]]:
    return [e.data for e in result.entries]


def test_it_runs_aldo_first_session() -> None:  # D59, D60
    rolls = [
        SYSTEM.resolve({"kind": "test", "target": 10}, ScriptedRandom([n]), SETTINGS).to_dict() for n in (1, 7, 1, 20)
    ]
    facts = {"resolutions": rolls, "present": True, "gm_award": 30}
    drafts = SYSTEM.suggest_session_awards(created(), facts, SETTINGS)
    assert [(d.kind, d.amount) for d in drafts] == [("gm_award", 30), ("system_award", 2)]
    assert [d.to_dict() for d in SYSTEM.suggest_session_awards(created(), facts, SETTINGS)] == [
        d.to_dict() for d in drafts
    ]  # D60 idempotent
    lowered = SYSTEM.resolve({"kind": "test", "target": 10}, ScriptedRandom([11]), SETTINGS)
    _, lowering = SYSTEM.lower_die(lowered, 1, xp_balance=377)
    ledger = [*SYSTEM.creation_ledger(aldo(), SETTINGS), *drafts, lowering]
    entries = [e.to_dict() for e in ledger]
    first = SYSTEM.apply_progression(created(), entries, SETTINGS)
    assert first.balances == {"xp": 378}
    assert SYSTEM.apply_progression(created(), entries, SETTINGS).balances == {"xp": 378}


def test_it_buys_aldo_first_improvements() -> None:  # D61, D62
    sheet = created()
    bought: list[dict[str, Any]] = []
    total = 0
    for request, cost in (
        ({"kind": "talent", "talent": "HAB"}, 70),
        ({"kind": "skill", "skill": "mains_nues"}, 4),
        ({"kind": "endurance", "pool": "EP"}, 2),
        ({"kind": "magic_level", "school": "enchanteurs"}, 20),
    ):
        result = buy(sheet, {**request, "already_bought": bought}, xp=378 - total)
        assert result.ok, result.errors
        assert [e.amount for e in result.entries] == [-cost]
        bought += entries_data(result)
        sheet = result.sheet
        total += cost
    assert 378 - total == 282
    derived = SYSTEM.derive(sheet, SETTINGS)
    assert derived["domains"]["PHYSIQUE"] == 12
    assert next(s for s in derived["skills"] if s["key"] == "mains_nues")["cr"] == 17
    assert derived["endurance"]["EP"]["max"] == 18
    assert SYSTEM.validate_sheet(sheet, SETTINGS) == []
    # D63: same session, a second point of HAB or a second magic level is refused...
    again = buy(sheet, {"kind": "talent", "talent": "HAB", "already_bought": bought})
    assert [e.code for e in again.errors] == ["session_limit"] and again.sheet is sheet and again.entries == []
    level = buy(sheet, {"kind": "magic_level", "school": "enchanteurs", "already_bought": bought})
    assert [e.code for e in level.errors] == ["session_limit"]
    # ...and allowed in the next session (empty list).
    assert [e.amount for e in buy(sheet, {"kind": "talent", "talent": "HAB"}).entries] == [-75]
    assert [e.amount for e in buy(sheet, {"kind": "magic_level", "school": "enchanteurs"}).entries] == [-30]


def test_it_limits_per_item_not_per_kind() -> None:  # A8
    sheet = created()
    first = buy(sheet, {"kind": "talent", "talent": "HAB"})
    other = buy(first.sheet, {"kind": "talent", "talent": "PER", "already_bought": entries_data(first)})
    assert other.ok and other.entries[0].amount == -60


def test_it_refuses_purchases_beyond_the_balance() -> None:
    result = buy(created(), {"kind": "talent", "talent": "HAB"}, xp=69)
    assert [e.code for e in result.errors] == ["insufficient_xp"]


def test_it_caps_talents_at_twenty_for_anthropoids() -> None:  # L55
    sheet = created()
    sheet["talents"]["VIG"] = 20
    assert [e.code for e in buy(sheet, {"kind": "talent", "talent": "VIG"}).errors] == ["talent_anthropoid_max"]
    sheet["is_anthropoid"] = False
    assert buy(sheet, {"kind": "talent", "talent": "VIG"}).entries[0].amount == -105


def test_it_caps_skill_levels_by_talents() -> None:  # L61, A6
    sheet = created()
    sheet["skills"][0]["level"] = 12  # mains nues HAB 13 / VIG 12
    assert [e.code for e in buy(sheet, {"kind": "skill", "skill": "mains_nues"}).errors] == ["skill_above_talent"]
    ok = buy(sheet, {"kind": "skill", "skill": "mains_nues"}, cfg={**SETTINGS, "skill_level_capped_by_talents": False})
    assert ok.entries[0].amount == -13


def test_it_learns_a_new_skill() -> None:
    result = buy(created(), {"kind": "skill", "skill": "esquive"})
    assert result.entries[0].amount == -1
    assert {"key": "esquive", "level": 1, "formula": ""} in result.sheet["skills"]
    custom = buy(created(), {"kind": "skill", "skill": "nage_libre", "formula": "VIG+HAB"})
    assert custom.ok
    unknown = buy(created(), {"kind": "skill", "skill": "vol"})
    assert [e.code for e in unknown.errors] == ["unknown_skill"]


def test_it_raises_endurance_current_with_the_max() -> None:  # A42, S22
    sheet = created()
    sheet["endurance_current"]["EO"] = 4
    result = buy(sheet, {"kind": "endurance", "pool": "EO"})
    assert result.entries[0].amount == -2
    assert result.sheet["endurance_bought"]["EO"] == 7 and result.sheet["endurance_current"]["EO"] == 5


def test_it_handles_schools() -> None:  # L140-L144, A41
    sheet = created()
    second = buy(sheet, {"kind": "school", "school": "pretres"})
    assert [e.code for e in second.errors] == ["derogation_required"]
    second = buy(sheet, {"kind": "school", "school": "pretres", "derogation": True})
    assert second.entries[0].amount == -100
    assert second.sheet["schools"][1]["max_accessible_level"] == 5  # S15
    assert [e.code for e in buy(sheet, {"kind": "school", "school": "enchanteurs"}).errors] == ["already_member"]
    fresh = SYSTEM.default_sheet()
    sorcier = buy(fresh, {"kind": "school", "school": "sorciers", "guild": "Port-Altar"})
    assert sorcier.entries[0].amount == 0
    assert [e.code for e in buy(fresh, {"kind": "school", "school": "sorciers"}).errors] == ["guild_required"]
    levels = buy(sorcier.sheet, {"kind": "magic_level", "school": "sorciers"})
    assert [e.code for e in levels.errors] == ["no_levels"]
    spell = buy(sorcier.sheet, {"kind": "guild_spell", "name": "Lumière", "level": 2})
    assert spell.ok and spell.entries[0].amount == 0
    assert [e.code for e in buy(fresh, {"kind": "guild_spell", "name": "X", "level": 1}).errors] == [
        "sorciers_required"
    ]


def test_it_raises_elementalist_elements() -> None:  # D57, S14
    sheet = SYSTEM.default_sheet()
    sheet["schools"] = [
        {
            "school": "elementalistes",
            "major_element": "feu",
            "minor_element": "eau",
            "major_level": 3,
            "minor_level": 3,
            "max_accessible_level": 10,
        }
    ]
    minor = buy(sheet, {"kind": "magic_level", "school": "elementalistes", "element": "minor"})
    assert [e.code for e in minor.errors] == ["minor_above_major"]
    major = buy(sheet, {"kind": "magic_level", "school": "elementalistes", "element": "major"})
    assert major.entries[0].amount == -20 and major.sheet["schools"][0]["major_level"] == 4
    missing = buy(sheet, {"kind": "magic_level", "school": "elementalistes"})
    assert [e.code for e in missing.errors] == ["element_required"]


def test_it_needs_a_teacher_beyond_the_grimoire() -> None:  # L161, A39
    sheet = created()
    sheet["schools"][0]["magic_level"] = 5
    result = buy(sheet, {"kind": "magic_level", "school": "enchanteurs"})
    assert [e.code for e in result.errors] == ["teacher_required"]
    assert buy(sheet, {"kind": "magic_level", "school": "enchanteurs", "gm_confirmed": True}).entries[0].amount == -60
    sheet["schools"][0].update(magic_level=10, max_accessible_level=10)
    assert [e.code for e in buy(sheet, {"kind": "magic_level", "school": "enchanteurs"}).errors] == ["magic_level_max"]
    assert [e.code for e in buy(sheet, {"kind": "magic_level", "school": "pretres"}).errors] == ["not_a_member"]


def test_it_prices_capacities_and_aptitudes() -> None:  # L221, L223, D55, S21
    sheet = created()
    assert [e.code for e in buy(sheet, {"kind": "capacity", "name": "Pistage II", "level": 3}).errors] == [
        "teacher_required"
    ]
    cap = buy(sheet, {"kind": "capacity", "name": "Pistage II", "level": 3, "teacher": True})
    assert cap.entries[0].amount == -15
    apt = buy(sheet, {"kind": "aptitude", "aptitude": "nage"})
    assert apt.entries[0].amount == -10
    apt2 = buy(apt.sheet, {"kind": "aptitude", "aptitude": "nage"})
    apt3 = buy(apt2.sheet, {"kind": "aptitude", "aptitude": "nage"})
    assert (apt2.entries[0].amount, apt3.entries[0].amount) == (-2, -3)
    assert [e.code for e in buy(sheet, {"kind": "aptitude", "aptitude": "vol"}).errors] == ["unknown_aptitude"]


@pytest.mark.parametrize(
    "request_",
    [
        {"kind": "nope"},
        {"kind": "talent"},
        {"kind": "talent", "talent": "FOR"},
        {"kind": "capacity", "name": "X", "level": 0},
    ],
)
def test_it_rejects_bad_purchase_requests(request_: dict[str, Any]) -> None:
    assert not buy(created(), request_).ok


# ---- session awards ------------------------------------------------------------------------------------------
def test_it_validates_the_gm_award_range() -> None:  # D64, S20
    with pytest.raises(RulesError) as exc:
        SYSTEM.suggest_session_awards(created(), {"gm_award": 12}, SETTINGS)
    assert exc.value.errors[0].code == "award_out_of_range"
    with pytest.raises(RulesError):
        SYSTEM.suggest_session_awards(created(), {"gm_award": 51}, SETTINGS)
    drafts = SYSTEM.suggest_session_awards(created(), {"gm_award": 12, "gm_award_override": True}, SETTINGS)
    assert [d.amount for d in drafts] == [12]
    for award in (15, 50):
        assert [d.amount for d in SYSTEM.suggest_session_awards(created(), {"gm_award": award}, SETTINGS)] == [award]


def test_it_forfeits_the_consistency_part_when_scruples_moved() -> None:  # D65, L128
    facts = {"gm_award": 20, "consistency_award": 5}
    assert [d.amount for d in SYSTEM.suggest_session_awards(created(), facts, SETTINGS)] == [20, 5]
    facts["scruples_changed_in_scenario"] = True
    assert [d.amount for d in SYSTEM.suggest_session_awards(created(), facts, SETTINGS)] == [20]
    facts.update(scenario_ended=True, scenario_award=40)
    assert [d.amount for d in SYSTEM.suggest_session_awards(created(), facts, SETTINGS)] == [20, 40]


def test_it_counts_natural_ones_from_stored_rolls() -> None:  # L213, A35
    learning = SYSTEM.resolve(
        {"kind": "learning", "talent_score": 5, "level": 9, "until_learned": True, "max_days": 3},
        ScriptedRandom([1]),
        SETTINGS,
    ).to_dict()  # a natural 1 learns at once
    opposed = SYSTEM.resolve(
        {"kind": "opposed_test", "target": 10, "defender_target": 10}, ScriptedRandom([4, 1]), SETTINGS
    ).to_dict()
    as_defender = {**opposed, "role": "defender"}
    damage = SYSTEM.resolve({"kind": "damage", "margin": 1}, ScriptedRandom([1]), SETTINGS).to_dict()
    tag_only = {"system": "altaride", "tags": ["natural_1"], "outcome": {}}
    other_system = {"system": "sms", "tags": ["natural_1"], "outcome": {}}
    facts = {"resolutions": [learning, opposed, as_defender, damage, tag_only, other_system]}
    drafts = SYSTEM.suggest_session_awards(created(), facts, SETTINGS)
    assert [(d.kind, d.amount, d.data["count"]) for d in drafts] == [("system_award", 3, 3)]


def test_it_gives_nothing_to_npcs_or_absent_characters() -> None:
    npc = created()
    npc["is_player_character"] = False
    one = SYSTEM.resolve({"kind": "test", "target": 5}, ScriptedRandom([1]), SETTINGS).to_dict()
    assert SYSTEM.suggest_session_awards(npc, {"gm_award": 30, "resolutions": [one]}, SETTINGS) == []
    absent = SYSTEM.suggest_session_awards(created(), {"gm_award": 30, "present": False}, SETTINGS)
    assert absent == []


def test_it_flags_a_negative_balance() -> None:
    result = SYSTEM.apply_progression(
        created(),
        [{"currency": "xp", "amount": 10, "kind": "gm_award"}, {"currency": "xp", "amount": -25, "kind": "purchase"}],
        SETTINGS,
    )
    assert result.balances == {"xp": -15} and result.flags[0]["code"] == "negative_xp_balance"


# ---- properties: limits across session boundaries -------------------------------------------------------------
_REQUESTS = st.sampled_from(
    [{"kind": "talent", "talent": t} for t in ("HAB", "PER", "SCI")]
    + [
        {"kind": "skill", "skill": "savoir"},
        {"kind": "endurance", "pool": "EP"},
        {"kind": "endurance", "pool": "EL"},
        {"kind": "magic_level", "school": "enchanteurs"},
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_REQUESTS, max_size=8), min_size=1, max_size=4), st.integers(0, 3000))
def test_property_limits_hold_across_session_boundaries(sessions: list[list[dict[str, Any]]], xp: int) -> None:
    sheet = created()
    balance = xp
    for session in sessions:
        bought: list[dict[str, Any]] = []
        for request in session:
            result = buy(sheet, {**request, "already_bought": bought}, xp=balance)
            if not result.ok:
                assert result.sheet is sheet and result.entries == []
                continue
            cost = -result.entries[0].amount
            assert 0 <= cost <= balance
            balance -= cost
            bought += entries_data(result)
            sheet = result.sheet
        keys = [(d["purchase"], d["key"]) for d in bought if d["purchase"] != "magic_level"]
        assert len(keys) == len(set(keys))  # +1 per item per session
        assert sum(d["purchase"] == "magic_level" for d in bought) <= 1  # one magic level per session
        # a fresh session lifts the limit for what was bought
        for data in bought[:1]:
            request = {"kind": data["purchase"]}
            request.update(
                {
                    "talent": {"talent": data["key"]},
                    "skill": {"skill": data["key"]},
                    "endurance": {"pool": data["key"]},
                    "magic_level": {"school": "enchanteurs"},
                }[data["purchase"]]
            )
            fresh = buy(sheet, request, xp=10_000)
            assert all(e.code != "session_limit" for e in fresh.errors)
    assert balance >= 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["talent", "skill", "endurance"]), min_size=1, max_size=12))
def test_property_successive_purchases_never_get_cheaper(kinds: list[str]) -> None:
    sheet = created()
    last: dict[str, int] = {}
    for kind in kinds:
        request = {
            "talent": {"kind": "talent", "talent": "SCI"},
            "skill": {"kind": "skill", "skill": "savoir"},
            "endurance": {"kind": "endurance", "pool": "EM"},
        }[kind]
        result = buy(sheet, request, xp=10_000, cfg={**SETTINGS, "skill_level_capped_by_talents": False})
        if not result.ok:
            continue
        cost = -result.entries[0].amount
        assert cost >= last.get(kind, 0)
        if kind == "talent":
            assert cost == T.talent_step_cost(result.sheet["talents"]["SCI"])
        last[kind] = cost
        sheet = result.sheet


def test_it_raises_current_endurance_when_a_talent_raises_its_domain() -> None:  # L113, L115, A42
    sheet = created()
    sheet["endurance_current"] = {"EP": 9, "EM": None, "EL": None, "EO": 5}
    result = buy(sheet, {"kind": "talent", "talent": "RUN"})  # Occulte floor(44/3)=14 -> floor(45/3)=15
    assert result.ok and result.entries[0].amount == -75
    assert result.sheet["endurance_current"]["EO"] == 6 and result.sheet["endurance_current"]["EP"] == 9
    same = buy(sheet, {"kind": "talent", "talent": "HAB"})  # Physique floor(36/3)=12 -> floor(37/3)=12
    assert same.sheet["endurance_current"] == sheet["endurance_current"]
