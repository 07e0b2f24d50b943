"""Clefs de l'Aube: experience spending (seed L623-L685; spec §5, TV-S05, D39-D44)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.clefs import SYSTEM, aspect_ladder, skill_cost
from rules.clefs.derive import aspect_px_cost
from rules.tests.test_clefs_helpers import marie_pierre_sheet

ZERO_MEANS = {"PU": 0, "RE": 0, "MA": 0, "PR": 0, "EX": 0, "PE": 0}


def free_sheet(aspects, skills, means=None, done=0):
    """A GM-made ("free") sheet: entered aspects are final; skills with creation_nc 0 were learnt later."""
    return {
        "creation": {"skill_package": "free", "aspect_method": "FIXED_10", "means_method": "ZERO"},
        "aspects": aspects,
        "means": dict(means or ZERO_MEANS),
        "skills": skills,
        "means_exchanges_done": done,
        "conditions": [],
    }


def berthiaume():
    """Berthiaume (L672-L678): Équitation 12, PH 14 with 14 aspect-PX."""
    return free_sheet(
        {"PH": 14, "ME": 10, "MY": 10},
        [
            {"name": "Équitation", "aspect": "PH", "default_means": "MA", "nc": 12, "creation_nc": 12},
            {"name": "Lance", "aspect": "PH", "default_means": "PU", "nc": 14, "creation_nc": 0},
        ],
    )


def test_it_progresses_berthiaume_tv_s05():
    """L672-L684: 15 PX, Équitation 12 → 13 costs 13, PH 14 → 15, one means exchange declined, 2 PX left."""
    sheet = berthiaume()
    before = SYSTEM.derive(sheet)
    assert (before["aspects"]["PH"], before["aspect_px"]["PH"]) == (14, 14)
    result = SYSTEM.purchase(sheet, {"kind": "raise_skill", "skill": "Équitation", "to": 13}, {"xp": 15})
    assert result.ok
    (entry,) = result.entries
    assert (entry.currency, entry.amount, entry.kind) == ("xp", -13, "purchase")
    assert entry.data["aspect_increases"] == {"PH": 1}
    after = SYSTEM.derive(result.sheet)
    assert (after["aspects"]["PH"], after["aspect_px"]["PH"]) == (15, 0)
    assert after["pending_means_exchanges"] == 1
    declined = SYSTEM.purchase(result.sheet, {"kind": "decline_means_exchange"}, {"xp": 2})
    assert declined.ok and declined.entries == []
    assert SYSTEM.derive(declined.sheet)["pending_means_exchanges"] == 0
    balance = SYSTEM.apply_progression(
        declined.sheet, [{"currency": "xp", "amount": 15, "kind": "gm_award"}, entry.to_dict()]
    )
    assert balance.balances == {"xp": 2}
    assert sheet == berthiaume()  # purchase never mutates its input


def test_it_continues_berthiaume_next_session_d42():
    sheet = SYSTEM.purchase(berthiaume(), {"kind": "raise_skill", "skill": "Équitation", "to": 13}, {"xp": 15}).sheet
    sheet = SYSTEM.purchase(sheet, {"kind": "decline_means_exchange"}, {"xp": 2}).sheet
    result = SYSTEM.purchase(sheet, {"kind": "raise_skill", "skill": "équitation", "to": 14}, {"xp": 16})
    assert result.entries[0].amount == -14
    derived = SYSTEM.derive(result.sheet)
    assert (derived["aspects"]["PH"], derived["aspect_px"]["PH"]) == (15, 1)
    assert derived["pending_means_exchanges"] == 0


@pytest.mark.parametrize(
    ("start", "end", "cost"),
    [(0, 1, 1), (0, 5, 15), (0, 10, 55), (10, 15, 65), (0, 15, 120), (12, 13, 13), (0, 20, 210)],
)
def test_it_prices_skills_d39(start, end, cost):
    """L644-L645: each +1 costs the NC reached."""
    assert skill_cost(start, end) == cost == sum(range(start + 1, end + 1))


def test_it_caps_skills_at_twenty_d40():
    sheet = berthiaume()
    sheet["skills"][1]["nc"] = 20
    result = SYSTEM.purchase(sheet, {"kind": "raise_skill", "skill": "Lance", "to": 21}, {"xp": 999})
    assert not result.ok and result.errors[0].code == "nc_cap"


def test_it_chains_aspect_increases_d41():
    """D41 (G16): aspect 5 with 40 aspect-PX → 10, 0 left, 5 means exchanges."""
    assert aspect_ladder(5, 40) == (10, 0, 5)
    assert aspect_px_cost(5, 10) == 40
    sheet = free_sheet(
        {"PH": 5, "ME": 10, "MY": 10},
        [
            {"name": "A", "aspect": "PH", "default_means": "PU", "nc": 20, "creation_nc": 0},
            {"name": "B", "aspect": "PH", "default_means": "PU", "nc": 20, "creation_nc": 0},
        ],
    )
    derived = SYSTEM.derive(sheet)
    assert (derived["aspects"]["PH"], derived["aspect_px"]["PH"], derived["pending_means_exchanges"]) == (10, 0, 5)


def test_it_learns_a_new_skill_d44():
    """D44: a new MY skill 0 → 3 costs 6; MY 9 with 8 aspect-PX + 3 → MY 10, 1 left, 1 exchange."""
    sheet = free_sheet(
        {"PH": 10, "ME": 10, "MY": 9},
        [{"name": "Prière", "aspect": "MY", "default_means": "RE", "nc": 8, "creation_nc": 0}],
    )
    assert SYSTEM.derive(sheet)["aspect_px"]["MY"] == 8
    result = SYSTEM.purchase(
        sheet, {"kind": "new_skill", "skill": "Méditation", "aspect": "MY", "default_means": "RE", "to": 3}, {"xp": 6}
    )
    assert result.ok and result.entries[0].amount == -6
    derived = SYSTEM.derive(result.sheet)
    assert (derived["aspects"]["MY"], derived["aspect_px"]["MY"], derived["pending_means_exchanges"]) == (10, 1, 1)
    assert result.sheet["skills"][-1]["creation_nc"] == 0


def test_it_freezes_creation_levels_on_the_first_purchase():
    """Marie-Pierre raises Dague 5 → 6: creation stays 5, PH 6 (4 PX) + 1 PX = 5 < 7."""
    sheet = marie_pierre_sheet()
    result = SYSTEM.purchase(sheet, {"kind": "raise_skill", "skill": "Dague", "to": 6}, {"xp": 6})
    assert result.sheet["skills"][3]["creation_nc"] == 5
    assert SYSTEM.validate_sheet(result.sheet) == []
    derived = SYSTEM.derive(result.sheet)
    assert (derived["aspects"]["PH"], derived["aspect_px"]["PH"]) == (6, 5)
    assert derived["aspects_after_creation"] == {"PH": 6, "ME": 17, "MY": 9}


def test_it_refuses_spending_more_than_available():
    result = SYSTEM.purchase(berthiaume(), {"kind": "raise_skill", "skill": "Équitation", "to": 14}, {"xp": 20})
    assert not result.ok and result.errors[0].code == "insufficient_px"
    assert result.entries == []


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"kind": "raise_skill", "skill": "Nage", "to": 3}, "unknown_skill"),
        ({"kind": "raise_skill", "skill": "Lance", "to": 10}, "not_an_increase"),
        ({"kind": "raise_skill", "skill": "Lance", "to": "x"}, "invalid_int"),
        ({"kind": "raise_skill", "skill": "", "to": 3}, "required"),
        ({"kind": "new_skill", "skill": "Lance", "aspect": "PH", "default_means": "PU", "to": 1}, "duplicate_skill"),
        ({"kind": "new_skill", "skill": "Nage", "aspect": "XX", "default_means": "PU", "to": 1}, "invalid_choice"),
        ({"kind": "means_exchange", "from": "PU", "to": "RE"}, "no_means_exchange"),
        ({"kind": "decline_means_exchange"}, "no_means_exchange"),
        ({"kind": "buy_aspect"}, "unsupported"),
    ],
)
def test_it_rejects_bad_purchases(request_, code):
    result = SYSTEM.purchase(berthiaume(), request_, {"xp": 500})
    assert not result.ok
    assert code in {e.code for e in result.errors}
    assert all(e.message.fr and e.message.en for e in result.errors)


def test_it_asks_for_the_aspect_of_an_ambiguous_skill():
    """L485-L488: the same name under two aspects is two skills."""
    sheet = berthiaume()
    sheet["skills"].append({"name": "Lance", "aspect": "ME", "default_means": "PR", "nc": 3, "creation_nc": 0})
    result = SYSTEM.purchase(sheet, {"kind": "raise_skill", "skill": "Lance", "to": 4}, {"xp": 99})
    assert result.errors[0].code == "ambiguous_skill"
    ok = SYSTEM.purchase(sheet, {"kind": "raise_skill", "skill": "Lance", "aspect": "ME", "to": 4}, {"xp": 99})
    assert ok.ok and ok.sheet["skills"][2]["nc"] == 4


def test_it_exchanges_means_on_an_aspect_increase():
    """L650-L653: one point between two means, constraints kept."""
    sheet = SYSTEM.purchase(berthiaume(), {"kind": "raise_skill", "skill": "Équitation", "to": 13}, {"xp": 15}).sheet
    sheet["means"] = {"PU": 3, "RE": -2, "MA": 0, "PR": 0, "EX": 0, "PE": -1}
    bad = SYSTEM.purchase(sheet, {"kind": "means_exchange", "from": "RE", "to": "PU"}, {"xp": 0})
    assert "means_pair" in {e.code for e in bad.errors}  # Pu 4 − Ré −3 = 7 > 5
    same = SYSTEM.purchase(sheet, {"kind": "means_exchange", "from": "PU", "to": "PU"}, {"xp": 0})
    assert "same_means" in {e.code for e in same.errors}
    good = SYSTEM.purchase(sheet, {"kind": "means_exchange", "from": "PU", "to": "PE"}, {"xp": 0})
    assert good.ok
    assert good.sheet["means"]["PU"] == 2 and good.sheet["means"]["PE"] == 0
    assert SYSTEM.derive(good.sheet)["pending_means_exchanges"] == 0
    again = SYSTEM.purchase(good.sheet, {"kind": "means_exchange", "from": "PU", "to": "PE"}, {"xp": 0})
    assert again.errors[0].code == "no_means_exchange"


def test_it_applies_the_anti_abuse_limit():
    """Footnote L655-L665: with "top 5", a sixth skill learnt at 1 gives no aspect-PX."""
    skills = [{"name": f"S{i}", "aspect": "ME", "default_means": "PR", "nc": 10, "creation_nc": 10} for i in range(5)]
    sheet = free_sheet({"PH": 10, "ME": 10, "MY": 10}, skills)
    limited = {"aspect_feeding_skills": "top5"}
    new = SYSTEM.purchase(
        sheet,
        {"kind": "new_skill", "skill": "Champignons", "aspect": "ME", "default_means": "PE", "to": 1},
        {"xp": 1},
        limited,
    )
    assert new.ok and new.entries[0].data["aspect_px_gained"] == 0
    assert new.sheet["skills"][-1]["aspect_px_granted"] == 0
    assert SYSTEM.derive(new.sheet)["aspect_px"]["ME"] == 0
    top = SYSTEM.purchase(new.sheet, {"kind": "raise_skill", "skill": "S0", "to": 11}, {"xp": 11}, limited)
    assert top.entries[0].data["aspect_px_gained"] == 1
    assert SYSTEM.derive(top.sheet)["aspect_px"]["ME"] == 1
    # Unlimited: the same new skill feeds Mental.
    free = SYSTEM.purchase(
        sheet, {"kind": "new_skill", "skill": "Champignons", "aspect": "ME", "default_means": "PE", "to": 1}, {"xp": 1}
    )
    assert free.entries[0].data["aspect_px_gained"] == 1


def test_it_enters_the_top_n_part_way_through_a_raise():
    """G11: each level is checked after it is gained (ties: the earliest skill wins)."""
    skills = [{"name": f"S{i}", "aspect": "PH", "default_means": "PU", "nc": 3, "creation_nc": 3} for i in range(5)]
    skills.append(
        {"name": "New", "aspect": "PH", "default_means": "PU", "nc": 0, "creation_nc": 0, "aspect_px_granted": 0}
    )
    sheet = free_sheet({"PH": 10, "ME": 10, "MY": 10}, skills)
    result = SYSTEM.purchase(
        sheet, {"kind": "raise_skill", "skill": "New", "to": 5}, {"xp": 15}, {"aspect_feeding_skills": "top5"}
    )
    assert result.entries[0].data["aspect_px_gained"] == 2  # levels 4 and 5 only (3 ties with older skills)


def test_it_suggests_only_configured_awards():
    assert SYSTEM.suggest_session_awards(berthiaume(), {"resolutions": []}) == []
    facts = {"resolutions": [{"tags": ["success", "critical_triggered"]}, {"tags": ["failure"]}], "present": True}
    drafts = SYSTEM.suggest_session_awards(berthiaume(), facts, {"px_per_session": 5, "px_per_critical": 2})
    assert [(d.amount, d.kind) for d in drafts] == [(5, "system_award"), (2, "system_award")]


def test_it_recomputes_progression_idempotently():
    entries = [
        {"currency": "xp", "amount": 15, "kind": "gm_award"},
        {"currency": "xp", "amount": -20, "kind": "purchase"},
    ]
    first = SYSTEM.apply_progression(berthiaume(), entries)
    second = SYSTEM.apply_progression(first.sheet, entries)
    assert first.balances == second.balances == {"xp": -5}
    assert {"code": "negative_xp_balance", "balance": -5} in first.flags


@given(st.integers(min_value=0, max_value=40), st.lists(st.integers(min_value=0, max_value=60), max_size=5))
def test_it_ladders_independently_of_order(start, chunks):
    """§5.3 (DERIVED): the ladder depends only on the start and the total aspect-PX."""
    aspect, px, total_increases = start, 0, 0
    for chunk in chunks:
        aspect, px, inc = aspect_ladder(aspect, px + chunk)
        total_increases += inc
    assert (aspect, px, total_increases) == aspect_ladder(start, sum(chunks))
    assert px <= aspect
    assert aspect_px_cost(start, aspect) + px == sum(chunks)
