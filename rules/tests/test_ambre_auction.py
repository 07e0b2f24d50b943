"""Ambre: the attribute auction state machine (spec §6, D17)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ambre import auction as A
from rules.base import RulesError

PLAYERS = ["P1", "P2", "P3", "P4"]


def run(state, *events):
    for event in events:
        state = A.apply(state, event)
    return state


def bid(player, amount, attribute=None):
    event = {"type": "bid", "player": player, "amount": amount}
    if attribute:
        event["attribute"] = attribute
    return event


def passes(*players, attribute=None):
    return [{"type": "pass", "player": p, **({"attribute": attribute} if attribute else {})} for p in players]


def psyche_closed():
    state = A.new_auction(PLAYERS)
    return run(
        state, bid("P1", 5), bid("P2", 10), bid("P1", 15), bid("P3", 16), bid("P1", 25), *passes("P2", "P3", "P4")
    )


def test_d17_auction_result():
    state = psyche_closed()
    assert state.lots["psy"]["status"] == "closed" and state.lots["phy"]["status"] == "open"
    res = A.results(state)["players"]
    summary = {
        p: (v["points"]["psy"], v["ranks"]["psy"]["label"], v["ranks"]["psy"]["true_position"], v["remaining"])
        for p, v in res.items()
    }
    assert summary == {
        "P1": (25, "dominant", 1, 75),
        "P2": (10, "ranked", 3, 90),
        "P3": (16, "ranked", 2, 84),
        "P4": (0, "amberite", None, 100),
    }
    assert A.results(state)["ladders"]["psy"]["public"] == ["P1", "P3", "P2"]


def test_d17_equal_bid_is_rejected():
    state = A.new_auction(PLAYERS)
    state = run(state, bid("P1", 25))
    with pytest.raises(RulesError) as exc:
        A.apply(state, bid("P2", 25))
    assert exc.value.errors[0].code == "bid_too_low" and exc.value.errors[0].path == "amount"


def test_d17_secret_rank_after_buy_up_and_comparison():
    state = A.apply(psyche_closed(), {"type": "buy_up", "player": "P3", "attribute": "psy", "amount": 10})
    ranks = A.results(state)["players"]
    assert ranks["P3"]["points"]["psy"] == 26 and ranks["P3"]["remaining"] == 74
    assert (ranks["P3"]["ranks"]["psy"]["true_position"], ranks["P3"]["ranks"]["psy"]["public_position"]) == (1, 2)
    assert ranks["P3"]["ranks"]["psy"]["secret"] is True
    assert ranks["P1"]["ranks"]["psy"]["public_label"] == "dominant" and not ranks["P1"]["ranks"]["psy"]["secret"]
    state = A.apply(state, {"type": "comparison", "attribute": "psy", "players": ["P1", "P3"]})
    res = A.results(state)
    assert res["ladders"]["psy"]["public"] == ["P3", "P1", "P2"]
    assert not any(v["ranks"]["psy"]["secret"] for v in res["players"].values())


def test_d17_downgrade_refund_and_exclusion():
    state = A.apply(psyche_closed(), {"type": "downgrade", "player": "P4", "attribute": "cbt", "rank": "human"})
    res = A.results(state)["players"]["P4"]
    assert res["remaining"] == 125 and res["points"]["cbt"] == -25 and res["ranks"]["cbt"]["label"] == "human"
    state = run(state, *passes("P1", "P2", "P3", "P4"))  # Physique: nobody bids
    state = run(state, *passes("P1", "P2", "P3", "P4"))  # Endurance
    assert state.lots["cbt"]["status"] == "open"
    with pytest.raises(RulesError) as exc:
        A.apply(state, bid("P4", 5))
    assert exc.value.errors[0].code == "downgraded"
    state = run(state, bid("P2", 5), *passes("P1", "P3"))
    assert state.status == "closed"
    ledger = A.ledger(state, "P4")
    assert [(e.kind, e.amount) for e in ledger] == [("rank_refund", 25)]
    assert sum(e.amount for e in A.ledger(state, "P1")) == -25


def test_invalid_events():
    state = A.new_auction(PLAYERS)
    cases = [
        ({"type": "steal"}, "unknown_event"),
        (bid("P9", 5), "unknown_player"),
        (bid("P1", 0), "invalid_amount"),
        (bid("P1", "5"), "invalid_int"),
        (bid("P1", 101), "insufficient_points"),
        (bid("P1", 5, "phy"), "lot_not_open"),
        (bid("P1", 5, "luck"), "unknown_attribute"),
        ({"type": "downgrade", "player": "P1", "attribute": "psy", "rank": "elf"}, "invalid_rank"),
        ({"type": "buy_up", "player": "P1", "attribute": "psy", "amount": 5}, "lot_not_closed"),
        ({"type": "cancel_downgrade", "player": "P1", "attribute": "psy"}, "not_downgraded"),
        ({"type": "join", "player": "P1"}, "invalid_player"),
    ]
    for event, code in cases:
        with pytest.raises(RulesError) as exc:
            A.apply(state, event)
        assert exc.value.errors[0].code == code, event
    with pytest.raises(RulesError):
        A.new_auction([])
    with pytest.raises(RulesError):
        A.new_auction(["a", "a"])
    with pytest.raises(RulesError):
        A.new_auction(["a"], {"mode": "sealed"})


def test_cannot_downgrade_after_bidding_and_closed_lots_are_final():
    state = run(A.new_auction(PLAYERS), bid("P1", 5))
    with pytest.raises(RulesError) as exc:
        A.apply(state, {"type": "downgrade", "player": "P1", "attribute": "psy", "rank": "chaosian"})
    assert exc.value.errors[0].code == "already_bid"
    closed = psyche_closed()
    with pytest.raises(RulesError) as exc:
        A.apply(closed, bid("P2", 40, "psy"))
    assert exc.value.errors[0].code == "lot_closed"


def test_apply_never_mutates_and_state_is_json():
    state = A.new_auction(PLAYERS)
    before = state.to_dict()
    after = A.apply(state, bid("P1", 5))
    assert state.to_dict() == before and after.lots["psy"]["high"] == ["P1", 5]
    restored = A.AuctionState.from_dict(json.loads(json.dumps(after.to_dict())))
    assert restored == after
    assert A.apply(after.to_dict(), bid("P2", 6)).lots["psy"]["high"] == ["P2", 6]


def test_gm_close_and_debt_limit():
    state = A.new_auction(PLAYERS, {"debt_limit": 10})
    state = run(state, bid("P1", 110), {"type": "close"})
    assert state.lots["psy"]["status"] == "closed" and A.results(state)["players"]["P1"]["remaining"] == -10
    with pytest.raises(RulesError):
        A.apply(state, bid("P1", 1))


def test_blind_mode():
    state = A.new_auction(["a", "b"], {"mode": "blind"})
    assert all(lot["status"] == "open" for lot in state.lots.values())
    state = run(state, bid("a", 20, "psy"), bid("b", 20, "psy"), bid("a", 10, "cbt"), bid("a", 12, "cbt"))
    assert A.view(state, "b")["lots"]["psy"].get("high") is None
    assert A.view(state, "b")["me"]["points"]["psy"] == 20 and "state" not in A.view(state, "b")
    assert "state" in A.view(state, gm=True)
    for attr in ("psy", "phy", "end", "cbt"):
        state = run(state, *passes("a", "b", attribute=attr))
    assert state.status == "closed"
    res = A.results(state)["players"]
    assert res["a"]["points"]["cbt"] == 12 and res["a"]["remaining"] == 68
    assert res["a"]["ranks"]["psy"]["label"] == "dominant"  # equal points: the earlier holder
    assert res["b"]["ranks"]["psy"]["true_position"] == 2
    equal = A.new_auction(["a", "b"], {"mode": "blind", "tie": "equal"})
    equal = run(equal, bid("a", 20, "psy"), bid("b", 20, "psy"), {"type": "close", "attribute": "psy"})
    assert {v["ranks"]["psy"]["label"] for v in A.results(equal)["players"].values()} == {"dominant"}


def test_late_joiner_allocates_by_buy_up_and_is_secret():
    state = A.apply(psyche_closed(), {"type": "join", "player": "P5", "budget": 80})
    state = A.apply(state, {"type": "buy_up", "player": "P5", "attribute": "psy", "amount": 20})
    rank = A.results(state)["players"]["P5"]["ranks"]["psy"]
    assert rank["true_position"] == 2 and rank["public_position"] is None and rank["secret"] is True


def test_open_view_hides_other_points():
    state = psyche_closed()
    view = A.view(state, "P2")
    assert view["lots"]["psy"]["public_ladder"] == ["P1", "P3", "P2"]
    assert view["me"]["points"]["psy"] == 10 and "P1" not in json.dumps(view["me"])
    assert view["current"] == "phy"


events = st.one_of(
    st.builds(lambda p, a: {"type": "bid", "player": p, "amount": a}, st.sampled_from(PLAYERS), st.integers(-5, 130)),
    st.builds(lambda p: {"type": "pass", "player": p}, st.sampled_from(PLAYERS)),
    st.builds(
        lambda p, a, r: {"type": "downgrade", "player": p, "attribute": a, "rank": r},
        st.sampled_from(PLAYERS),
        st.sampled_from(["psy", "phy", "end", "cbt"]),
        st.sampled_from(["human", "chaosian"]),
    ),
    st.builds(
        lambda p, a, n: {"type": "buy_up", "player": p, "attribute": a, "amount": n},
        st.sampled_from(PLAYERS),
        st.sampled_from(["psy", "phy", "end", "cbt"]),
        st.integers(1, 40),
    ),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(events, max_size=40))
def test_auction_invariants(evts):
    state = A.new_auction(PLAYERS)
    for event in evts:
        try:
            state = A.apply(state, event)
        except RulesError as exc:
            assert exc.errors and exc.errors[0].code
    res = A.results(state)
    for data in res["players"].values():
        assert data["remaining"] >= 0  # no debt allowed by default
        assert data["remaining"] == 100 + data["refunds"] - data["karma_spent"]
        for a in data["points"].values():
            assert a >= 0 or a in (-25, -10)
    for attr, lot in state.lots.items():
        amounts = [h["amount"] for h in lot["history"]]
        assert amounts == sorted(amounts) and len(set(amounts)) == len(amounts)
        if lot["status"] == "closed":
            ladder = res["ladders"][attr]
            positions = [ladder["ranks"][p]["true_position"] for g in ladder["true"] for p in g]
            assert positions == sorted(positions)


def test_a_downgrade_changed_after_spending_its_refund_is_refused():
    """Issue #19 item 2, the example ``test_auction_invariants`` found: human (+25), bid, then chaosian."""
    state = A.new_auction(PLAYERS)
    state = run(
        state,
        {"type": "downgrade", "player": "P1", "attribute": "phy", "rank": "human"},
        bid("P1", 111),
    )
    with pytest.raises(RulesError) as exc:
        A.apply(state, {"type": "downgrade", "player": "P1", "attribute": "phy", "rank": "chaosian"})
    assert exc.value.errors[0].code == "refund_spent"
    with pytest.raises(RulesError):
        A.apply(state, {"type": "cancel_downgrade", "player": "P1", "attribute": "phy"})
    assert A.results(state)["players"]["P1"]["remaining"] == 14
    # Unspent refunds may still change: 100 + 25 - 20 = 105, then chaosian: 100 + 10 - 20 = 90.
    state = run(
        A.new_auction(PLAYERS),
        {"type": "downgrade", "player": "P1", "attribute": "phy", "rank": "human"},
        bid("P1", 20),
        {"type": "downgrade", "player": "P1", "attribute": "phy", "rank": "chaosian"},
    )
    assert A.results(state)["players"]["P1"]["remaining"] == 90


def test_an_overtaken_player_sees_no_change_when_another_buys_up():
    """Issue #19 item 1 (L18): public positions only; the overtaker alone sees his rank as secret."""
    state = psyche_closed()  # public ladder P1 (25) > P3 (16) > P2 (10)
    before = A.view(state, "P1")["me"]
    state = A.apply(state, {"type": "buy_up", "player": "P3", "attribute": "psy", "amount": 20})
    after = A.view(state, "P1")["me"]
    assert after["ranks"] == before["ranks"]
    assert after["ranks"]["psy"] == {
        "points": 25,
        "label": "dominant",
        "public_position": 1,
        "public_label": "dominant",
        "secret": False,
    }
    assert "true_position" not in json.dumps(after)
    mine = A.view(state, "P3")["me"]["ranks"]["psy"]
    assert mine["points"] == 36 and mine["public_position"] == 2 and mine["secret"] is True
    assert mine["label"] == "ranked"  # not "dominant": that would tell him P1 did not buy up too
    # The GM sees the truth; a recorded comparison makes it public and clears the secret.
    assert A.results(state)["players"]["P3"]["ranks"]["psy"]["label"] == "dominant"
    state = A.apply(state, {"type": "comparison", "attribute": "psy", "players": ["P1", "P3"]})
    assert A.view(state, "P1")["me"]["ranks"]["psy"]["public_position"] == 2
    assert A.view(state, "P3")["me"]["ranks"]["psy"] == {
        "points": 36,
        "label": "dominant",
        "public_position": 1,
        "public_label": "dominant",
        "secret": False,
    }


def test_blind_mode_shows_players_no_position():
    state = A.new_auction(["a", "b"], {"mode": "blind"})
    state = run(state, bid("a", 20, "psy"), bid("b", 10, "psy"), {"type": "close", "attribute": "psy"})
    assert A.view(state, "b")["me"]["ranks"]["psy"]["public_position"] is None


def test_public_positions_are_the_public_ladder_and_none_in_blind_mode():
    state = psyche_closed()
    assert A.public_positions(state, "P2") == {"psy": 3}
    state = A.apply(state, {"type": "buy_up", "player": "P2", "attribute": "psy", "amount": 30})
    assert A.public_positions(state, "P2") == {"psy": 3}  # a buy-up is private (L18)
    blind = A.new_auction(["a", "b"], {"mode": "blind"})
    blind = run(blind, bid("a", 20, "psy"), {"type": "close", "attribute": "psy"})
    assert A.public_positions(blind, "a") == {}
