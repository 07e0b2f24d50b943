"""SMS experience: awards, spending, removable modules, idempotent recomputation (spec §5, D23)."""

from __future__ import annotations

from rules import get_system

SMS = get_system("sms")


def sheet_d23():
    sheet = SMS.default_sheet()
    base = {
        "free_rank": 0,
        "progress_ranks": 0,
        "source": "purchased",
        "predefined": "",
        "domain": "",
        "removable": False,
        "object_name": "",
        "object_possessed": True,
        "progressable": True,
        "roleplay": False,
    }
    sheet["modules"] = [
        {**base, "name": "Fort", "kind": "positive", "scope": 5, "rank": 2},
        {**base, "name": "Stratège", "kind": "positive", "scope": 3, "rank": 2},
        {**base, "name": "Nage", "kind": "positive", "scope": 1, "rank": 1},
        {**base, "name": "Intimidation", "kind": "positive", "scope": 2, "rank": 3},
        {**base, "name": "Colérique", "kind": "negative", "scope": 4, "rank": 2},
        {
            **base,
            "name": "Lame acérée",
            "kind": "positive",
            "scope": 1,
            "rank": 2,
            "removable": True,
            "object_name": "Lame",
            "progressable": False,
        },
        {
            **base,
            "name": "Chance de Kara",
            "kind": "positive",
            "scope": 1,
            "rank": 1,
            "removable": True,
            "object_name": "Kara",
            "object_possessed": False,
        },
    ]
    return sheet


def test_d23_awards_per_session_scenario_and_bonus():
    facts = [
        {"present": True, "session_id": "s1"},
        {"present": False, "session_id": "s2"},
        {"present": True, "session_id": "s3"},
        {"present": True, "session_id": "s4", "scenario_completed": True, "scenario_id": "sc", "gm_bonus": True},
    ]
    drafts = [d for f in facts for d in SMS.suggest_session_awards(sheet_d23(), f)]
    assert sum(d.amount for d in drafts) == 5
    assert {d.kind for d in drafts} == {"system_award", "gm_award"}
    entries = [d.to_dict() for d in drafts]
    first = SMS.apply_progression(sheet_d23(), entries)
    again = SMS.apply_progression(sheet_d23(), entries + entries)  # re-running the job: no change
    assert first.balances == again.balances == {"xp": 5}


def test_d23_spending_at_scenario_end():
    sheet = sheet_d23()
    res = SMS.purchase(sheet, {"kind": "raise_module", "module": 0, "scenario": "sc"}, {"xp": 5})
    assert res.ok and res.entries[0].amount == -5 and res.sheet["modules"][0]["rank"] == 3
    assert res.sheet["modules"][0]["progress_ranks"] == 1 and sheet["modules"][0]["rank"] == 2
    # the creation budget ignores ranks gained by experience
    assert SMS.creation_budget(res.sheet).spent == SMS.creation_budget(sheet).spent
    res = SMS.purchase(sheet, {"kind": "raise_module", "module": 1, "scenario": "sc"}, {"xp": 5})
    res2 = SMS.purchase(res.sheet, {"kind": "raise_module", "module": 2, "scenario": "sc"}, {"xp": 2})
    assert res.entries[0].amount == -3 and res2.entries[0].amount == -1
    # Intimidation 3 → 4 is allowed after creation, then not again in the same window
    res = SMS.purchase(sheet, {"kind": "raise_module", "module": 3, "scenario": "sc"}, {"xp": 5})
    assert res.ok and res.sheet["modules"][3]["rank"] == 4
    assert SMS.validate_sheet(res.sheet) == []
    again = SMS.purchase(res.sheet, {"kind": "raise_module", "module": 3, "scenario": "sc"}, {"xp": 5})
    assert [e.code for e in again.errors] == ["one_rank_per_scenario"]
    later = SMS.purchase(res.sheet, {"kind": "raise_module", "module": 3, "scenario": "sc2"}, {"xp": 5})
    assert later.ok and later.sheet["modules"][3]["rank"] == 5


def test_it_refuses_bad_purchases():
    sheet = sheet_d23()

    def code(request, xp=10, settings=None):
        res = SMS.purchase(sheet, request, {"xp": xp}, settings)
        assert res.sheet is sheet and res.entries == []
        return [e.code for e in res.errors]

    assert code({"kind": "raise_module", "module": 0, "scenario": "sc", "scenario_completed": False}) == [
        "scenario_not_completed"
    ]
    assert code({"kind": "raise_module", "module": 0, "scenario": "sc"}, xp=4) == ["not_enough_xp"]
    assert code({"kind": "raise_module", "module": 4, "scenario": "sc"}) == ["negative_module"]
    assert code({"kind": "raise_module", "module": 5, "scenario": "sc"}) == ["not_progressable"]
    assert code({"kind": "raise_module", "module": 6, "scenario": "sc"}) == ["object_lost"]
    assert code({"kind": "raise_module", "module": 60, "scenario": "sc"}) == ["not_found"]
    assert code({"kind": "raise_module", "module": 3, "scenario": "sc"}, settings={"max_rank": 3}) == ["max_rank"]
    assert code({"kind": "raise_module", "scenario": "sc"}) == ["required"]
    assert code({"kind": "teleport"}) == ["unsupported"]
    assert code({"kind": "new_module", "name": "Fort", "scope": 5, "scenario": "sc"}) == ["duplicate"]


def test_it_buys_a_new_module_at_rank_one():
    res = SMS.purchase(sheet_d23(), {"kind": "new_module", "name": "Pistage", "scope": 2, "scenario": "sc"}, {"xp": 2})
    assert res.ok and res.entries[0].amount == -2
    new = res.sheet["modules"][-1]
    assert (new["name"], new["rank"], new["progress_ranks"], new["kind"]) == ("Pistage", 1, 1, "positive")
    assert SMS.validate_sheet(res.sheet) == []


def test_it_flags_a_negative_balance():
    res = SMS.apply_progression(
        sheet_d23(),
        [
            {"currency": "xp", "amount": 1, "kind": "system_award", "data": {}},
            {"currency": "xp", "amount": -3, "kind": "purchase", "data": {}},
        ],
    )
    assert res.balances == {"xp": -2} and res.flags[0]["code"] == "negative_xp"


def test_it_offers_one_more_rank_in_each_module_the_xp_pay_for():
    """L63/L77: a rank costs its scope; the progression page lists what the balance pays for."""
    from rules import get_system

    sms = get_system("sms")
    sheet = sms.default_sheet()
    sheet["modules"] = [
        {"name": "Fort", "kind": "positive", "scope": 5, "rank": 2},
        {"name": "Épée", "kind": "positive", "scope": 2, "rank": 1},
        {"name": "Colérique", "kind": "negative", "scope": 3, "rank": 1},
    ]
    offers = [(o["request"], o["cost"]) for o in sms.purchase_offers(sheet, {"xp": 4}) if o["kind"] == "raise_module"]
    assert offers == [({"module": 1}, 2)]
    labels = [o["label"].fr for o in sms.purchase_offers(sheet, {"xp": 5}) if o["kind"] == "raise_module"]
    assert labels == ["Fort (5) : 2 → 3", "Épée (2) : 1 → 2"]
