"""The attribute auction as a pure state machine (L5, L17–L22, L26).

The seed only says that attributes are "établis à l'occasion de la mise aux
enchères au début de la campagne" (L5), that bids are points above the
Amberite rank (L17), that downgrading to chaosian/human returns 10/25 points
(L18), that the same 100 points (L22) pay for everything, and defines ranked,
dominant and secret ranks (L18). The procedure below is the spec's
recommendation (§6.2), modelled on the original Amber DRPG auction:

* Attributes are auctioned one at a time, in the seed's order by default
  (Psyché, Physique, Endurance, Combat, L7–L13).
* Before bidding in an attribute a player may downgrade it to chaosian (+10)
  or human (+25); he then takes no part in that attribute's auction.
* Open ascending bids: a bid is an integer strictly greater than the current
  high bid (so no two bids are equal), within the player's remaining points
  (plus the ``debt_limit``, 0 by default). Bids are binding: a player pays his
  HIGHEST bid in the attribute even when outbid; his points A = that bid.
* Passes: the attribute closes when every other participant has passed since
  the last bid (or everyone, if nobody bid), or when the GM closes it.
* Ranking: bidders by A descending; position 1 is dominant, the others ranked;
  non-bidders Amberite, downgraded players chaosian/human.
* Blind mode (L5 "sans connaître son classement"): every attribute is open at
  once, bids are sealed and may be revised (any amount >= 0), a pass confirms;
  nobody but the GM sees the others' figures or the ladder.
* After closing, private buy-ups raise a player's A without touching the
  public ladder; overtaking someone makes his rank SECRET (L18), visible to
  him and the GM, until the GM records a comparison of the pair.
* Late joiners (L22) join with a GM-set budget and allocate by buy-ups.

The state is plain JSON (``to_dict``/``from_dict``) so the web app stores it
in a ``JSONField``; :func:`apply` never mutates its input and raises
:class:`~rules.base.RulesError` for an illegal event.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rules.ambre import ranks as R
from rules.ambre import tables as T
from rules.base import LedgerDraft, Msg, RulesError, error

DOWNGRADES = {"human": (T.HUMAN_POINTS, 25), "chaosian": (T.CHAOSIAN_POINTS, 10)}
EVENT_TYPES = ("downgrade", "cancel_downgrade", "bid", "pass", "close", "buy_up", "comparison", "join")


@dataclass
class AuctionState:
    """JSON-serialisable auction state (never mutated by :func:`apply`)."""

    players: list[str]
    budgets: dict[str, int]
    attributes: list[str]
    mode: str = "open"
    debt_limit: int = 0
    tie: str = "earlier"
    status: str = "running"  # "running" | "closed" (every attribute closed)
    current: int = 0  # open mode: index of the attribute being auctioned
    lots: dict[str, dict[str, Any]] = field(default_factory=dict)
    buy_ups: dict[str, dict[str, int]] = field(default_factory=dict)  # attr -> player -> points (creation pool)
    external: dict[str, dict[str, int]] = field(default_factory=dict)  # attr -> player -> points paid by karma
    since: dict[str, dict[str, int]] = field(default_factory=dict)  # attr -> player -> seq of current value
    public: dict[str, list[str]] = field(default_factory=dict)  # attr -> public ladder, best first
    #: attr -> player -> his points when last compared (auction close or a GM comparison).
    public_points: dict[str, dict[str, int]] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    version: int = 1

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AuctionState:
        if isinstance(data, AuctionState):
            return copy.deepcopy(data)
        if not isinstance(data, dict):
            raise RulesError([error("", "invalid_state", "État d'enchères invalide.", "Invalid auction state.")])
        known = {f for f in cls.__dataclass_fields__}
        return cls(**copy.deepcopy({k: v for k, v in data.items() if k in known}))


def _fail(path: str, code: str, fr: str, en: str, **fmt: Any) -> RulesError:
    return RulesError([error(path, code, fr, en, **fmt)])


def _new_lot(status: str) -> dict[str, Any]:
    return {"status": status, "downgrades": {}, "bids": {}, "high": None, "passed": [], "history": []}


def new_auction(players: Sequence[str], settings: dict[str, Any] | None = None) -> AuctionState:
    """Open an auction. ``settings``: ``budget`` (int, default 100, L22) or
    ``budgets`` ({player: int}), ``attributes`` (order), ``mode`` ("open" |
    "blind"), ``debt_limit`` (points a bid may go below 0, default 0) and
    ``tie`` ("earlier" | "equal", for equal points after buy-ups)."""
    settings = settings or {}
    players = list(players or [])
    errors = []
    if not players:
        errors.append(error("players", "required", "Au moins un joueur.", "At least one player."))
    if any(not isinstance(p, str) or not p for p in players):
        errors.append(error("players", "invalid_player", "Identifiant de joueur invalide.", "Invalid player id."))
    if len(set(players)) != len(players):
        errors.append(error("players", "duplicate_player", "Joueur en double.", "Duplicate player."))
    attributes = list(settings.get("attributes") or T.ATTRIBUTES)
    if sorted(attributes) != sorted(set(attributes)) or any(a not in T.ATTRIBUTES for a in attributes):
        errors.append(error("attributes", "invalid_choice", "Attributs invalides.", "Invalid attributes."))
    mode = settings.get("mode", "open")
    if mode not in ("open", "blind"):
        errors.append(error("mode", "invalid_choice", "Mode invalide.", "Invalid mode."))
    budget = settings.get("budget", T.STARTING_BUDGET)
    budgets = dict(settings.get("budgets") or {})
    for p in players:
        value = budgets.get(p, budget)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            errors.append(error("budgets", "invalid_int", "Budget invalide.", "Invalid budget."))
            break
        budgets[p] = value
    debt = settings.get("debt_limit", 0) or 0
    if isinstance(debt, bool) or not isinstance(debt, int) or debt < 0:
        errors.append(error("debt_limit", "invalid_int", "Limite de dette invalide.", "Invalid debt limit."))
    if errors:
        raise RulesError(errors)
    state = AuctionState(
        players=players,
        budgets={p: budgets[p] for p in players},
        attributes=attributes,
        mode=mode,
        debt_limit=debt,
        tie=settings.get("tie", "earlier"),
    )
    for index, attr in enumerate(attributes):
        state.lots[attr] = _new_lot("open" if mode == "blind" or index == 0 else "pending")
        state.buy_ups[attr], state.external[attr], state.since[attr], state.public[attr] = {}, {}, {}, []
    _advance(state)
    return state


# --------------------------------------------------------------------------
# Accounting
# --------------------------------------------------------------------------
def points(state: AuctionState, player: str, attr: str) -> int:
    """Signed attribute points A of ``player`` (downgrade, bid, buy-ups)."""
    lot = state.lots[attr]
    if player in lot["downgrades"]:
        base = DOWNGRADES[lot["downgrades"][player]][0]
    else:
        base = lot["bids"].get(player, 0)
    return base + state.buy_ups[attr].get(player, 0) + state.external[attr].get(player, 0)


def refunds(state: AuctionState, player: str) -> int:
    return sum(DOWNGRADES[lot["downgrades"][player]][1] for lot in state.lots.values() if player in lot["downgrades"])


def spent(state: AuctionState, player: str) -> int:
    """Creation points paid: highest bid per attribute + buy-ups from the pool."""
    total: int = sum(lot["bids"].get(player, 0) for lot in state.lots.values())
    return total + sum(b.get(player, 0) for b in state.buy_ups.values())


def remaining(state: AuctionState, player: str) -> int:
    return state.budgets[player] + refunds(state, player) - spent(state, player)


# --------------------------------------------------------------------------
# Transitions
# --------------------------------------------------------------------------
def _eligible(state: AuctionState, attr: str) -> list[str]:
    lot = state.lots[attr]
    return [p for p in state.players if p not in lot["downgrades"]]


def _close(state: AuctionState, attr: str) -> None:
    lot = state.lots[attr]
    lot["status"] = "closed"
    bidders = [p for p, a in lot["bids"].items() if a > 0]
    bidders.sort(key=lambda p: (-lot["bids"][p], state.since[attr].get(p, 0)))
    # In blind mode this baseline is never shown to players (see :func:`view`).
    state.public[attr] = bidders
    state.public_points[attr] = {p: points(state, p, attr) for p in state.players}


def _maybe_close(state: AuctionState, attr: str) -> None:
    lot = state.lots[attr]
    if lot["status"] != "open":
        return
    eligible = _eligible(state, attr)
    high = lot["high"][0] if lot["high"] else None
    waiting = [p for p in eligible if p not in lot["passed"] and (state.mode == "blind" or p != high)]
    if not waiting:
        _close(state, attr)


def _advance(state: AuctionState) -> None:
    """Close lots nobody can bid in and open the next one (open mode)."""
    if state.mode == "blind":
        for attr in state.attributes:
            _maybe_close(state, attr)
    else:
        while state.current < len(state.attributes):
            attr = state.attributes[state.current]
            lot = state.lots[attr]
            if lot["status"] == "pending":
                lot["status"] = "open"
            _maybe_close(state, attr)
            if lot["status"] != "closed":
                break
            state.current += 1
    if all(lot["status"] == "closed" for lot in state.lots.values()):
        state.status = "closed"


def _amount(event: dict[str, Any], minimum: int) -> int:
    value = event.get("amount")
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail("amount", "invalid_int", "Entrez un nombre entier.", "Enter a whole number.")
    if value < minimum:
        raise _fail(
            "amount",
            "invalid_amount",
            "Le montant doit être au moins {n}.",
            "The amount must be at least {n}.",
            n=minimum,
        )
    return value


def _check_funds(state: AuctionState, player: str, extra: int) -> None:
    if extra > 0 and remaining(state, player) - extra < -state.debt_limit:
        raise _fail(
            "amount",
            "insufficient_points",
            "Points insuffisants : il vous reste {n}.",
            "Not enough points: {n} left.",
            n=remaining(state, player),
        )


def _check_refund_loss(state: AuctionState, player: str, lost: int) -> None:
    """Refuse taking back a downgrade refund the player has already spent.

    L18: the human rank "rend 25pts", the chaosian rank "rend 10 points"; those
    points join the same pool as the 100 of L22, so a bid may spend them. Going
    back from human to chaosian (or to Amberite) returns 15 (or 25) points to
    the rank; it is refused when the pool would then fall below ``-debt_limit``
    (the seed's loan, L389, happens in play, not at the auction: 0 by default).
    """
    if lost > 0 and remaining(state, player) - lost < -state.debt_limit:
        raise _fail(
            "rank",
            "refund_spent",
            "Impossible : vous avez déjà dépensé les points rendus par ce rang (il vous reste {n}).",
            "Not possible: you already spent the points this rank returned ({n} left).",
            n=remaining(state, player),
        )


def apply(state: AuctionState | dict[str, Any], event: dict[str, Any]) -> AuctionState:
    """Apply one event and return the NEW state (the input is untouched).

    Events: ``{"type": "downgrade", "player", "attribute", "rank":
    "human"|"chaosian"}``, ``cancel_downgrade``, ``{"type": "bid", "player",
    "attribute"?, "amount"}``, ``{"type": "pass", "player", "attribute"?}``,
    ``{"type": "close", "attribute"?}`` (GM, e.g. timeout), ``{"type":
    "buy_up", "player", "attribute", "amount", "external"?}`` (after closing;
    ``external`` = paid by karma outside the creation pool), ``{"type":
    "comparison", "attribute", "players": [a, b]}`` (GM) and ``{"type":
    "join", "player", "budget"}`` (GM, late joiner).
    """
    state = AuctionState.from_dict(state.to_dict() if isinstance(state, AuctionState) else state)
    if not isinstance(event, dict) or not isinstance(event.get("type"), str) or event["type"] not in EVENT_TYPES:
        raise _fail("type", "unknown_event", "Événement inconnu.", "Unknown event.")
    kind = event["type"]
    player: str = event["player"] if isinstance(event.get("player"), str) else ""  # "" is nobody's name
    if kind == "join":
        budget = event.get("budget", T.STARTING_BUDGET)
        if not player or player in state.players:
            raise _fail("player", "invalid_player", "Joueur invalide ou déjà présent.", "Invalid or existing player.")
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise _fail("budget", "invalid_int", "Budget invalide.", "Invalid budget.")
        state.players.append(player)
        state.budgets[player] = budget
        return _record(state, event)
    if kind not in ("close", "comparison") and player not in state.players:
        raise _fail(
            "player", "unknown_player", "Ce joueur ne participe pas aux enchères.", "This player is not in the auction."
        )
    attr = event.get("attribute")
    if attr is None and state.mode == "open" and state.current < len(state.attributes):
        attr = state.attributes[state.current]
    if not isinstance(attr, str) or attr not in state.lots:
        raise _fail("attribute", "unknown_attribute", "Attribut inconnu.", "Unknown attribute.")
    lot = state.lots[attr]

    if kind in ("buy_up", "comparison"):
        if lot["status"] != "closed":
            raise _fail(
                "attribute",
                "lot_not_closed",
                "Les enchères de cet attribut ne sont pas closes.",
                "This attribute's auction is not closed.",
            )
        if kind == "buy_up":
            amount = _amount(event, 1)
            after = points(state, player, attr) + amount
            if after < 0 and after != T.CHAOSIAN_POINTS:
                raise _fail(
                    "amount",
                    "invalid_attribute_rank",
                    "Un attribut négatif vaut −10 ou −25 (L18).",
                    "A negative attribute is −10 or −25 (L18).",
                )
            bucket = state.external if event.get("external") else state.buy_ups
            if not event.get("external"):
                _check_funds(state, player, amount)
            bucket[attr][player] = bucket[attr].get(player, 0) + amount
            state.seq += 1
            state.since[attr][player] = state.seq
            return _record(state, event, bump=False)
        pair = event.get("players")
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or any(p not in state.players for p in pair)
            or pair[0] == pair[1]
        ):
            raise _fail(
                "players", "invalid_pair", "Deux joueurs différents attendus.", "Two different players expected."
            )
        current = {p: points(state, p, attr) for p in state.players}
        state.public[attr] = R.record_comparison(state.public[attr], current, pair[0], pair[1])
        compared = state.public_points.setdefault(attr, {})
        for p in pair:
            compared[p] = current[p]
        return _record(state, event)

    if lot["status"] == "closed":
        raise _fail(
            "attribute",
            "lot_closed",
            "Les enchères de cet attribut sont closes.",
            "This attribute's auction is closed.",
        )
    if kind == "close":
        _close(state, attr)
        _advance(state)
        return _record(state, event)
    if kind == "downgrade":
        rank = event.get("rank")
        if not isinstance(rank, str) or rank not in DOWNGRADES:
            raise _fail(
                "rank", "invalid_rank", "Rang invalide : humain ou chaosien.", "Invalid rank: human or chaosian."
            )
        if lot["bids"].get(player):
            raise _fail(
                "rank", "already_bid", "Vous avez déjà enchéri sur cet attribut.", "You already bid on this attribute."
            )
        # Changing human (+25) to chaosian (+10) takes back 15 points the player may have bid elsewhere already.
        old = lot["downgrades"].get(player)
        _check_refund_loss(state, player, (DOWNGRADES[old][1] if old else 0) - DOWNGRADES[rank][1])
        lot["downgrades"][player] = rank
        lot["passed"] = [p for p in lot["passed"] if p != player]
        _maybe_close(state, attr)
        _advance(state)
        return _record(state, event)
    if kind == "cancel_downgrade":
        if player not in lot["downgrades"]:
            raise _fail("rank", "not_downgraded", "Aucune rétrogradation à annuler.", "No downgrade to cancel.")
        _check_refund_loss(state, player, DOWNGRADES[lot["downgrades"][player]][1])
        del lot["downgrades"][player]
        return _record(state, event)
    if lot["status"] != "open":
        raise _fail(
            "attribute",
            "lot_not_open",
            "Cet attribut n'est pas encore aux enchères.",
            "This attribute is not up for auction yet.",
        )
    if player in lot["downgrades"]:
        raise _fail(
            "player",
            "downgraded",
            "Attribut rétrogradé : vous ne participez pas à ses enchères.",
            "Downgraded attribute: you take no part in its auction.",
        )
    if kind == "pass":
        if player not in lot["passed"]:
            lot["passed"].append(player)
        _maybe_close(state, attr)
        _advance(state)
        return _record(state, event)
    # bid
    previous = lot["bids"].get(player, 0)
    if state.mode == "blind":
        amount = _amount(event, 0)
        _check_funds(state, player, amount - previous)
        lot["bids"][player] = amount
        lot["passed"] = [p for p in lot["passed"] if p != player]
    else:
        high = lot["high"][1] if lot["high"] else 0
        amount = _amount(event, 1)
        if amount <= high:
            raise _fail("amount", "bid_too_low", "L'enchère doit dépasser {n}.", "The bid must exceed {n}.", n=high)
        _check_funds(state, player, amount - previous)
        lot["bids"][player] = amount
        lot["high"] = [player, amount]
        lot["passed"] = []
    state.seq += 1
    state.since[attr][player] = state.seq
    lot["history"].append({"player": player, "amount": amount, "seq": state.seq})
    _maybe_close(state, attr)
    _advance(state)
    return _record(state, event, bump=False)


def _record(state: AuctionState, event: dict[str, Any], bump: bool = True) -> AuctionState:
    if bump:
        state.seq += 1
    state.log.append({"seq": state.seq, **copy.deepcopy(event)})
    return state


# --------------------------------------------------------------------------
# Results and views
# --------------------------------------------------------------------------
def ladders(state: AuctionState | dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per attribute: public ladder, true ladder and each player's rank."""
    state = AuctionState.from_dict(state if isinstance(state, dict) else state.to_dict())
    out = {}
    for attr in state.attributes:
        current = {p: points(state, p, attr) for p in state.players}
        if state.lots[attr]["status"] != "closed":
            out[attr] = {"public": [], "true": [], "ranks": {}, "closed": False}
            continue
        data = R.ladder(current, state.public[attr], state.since[attr], state.tie)
        data["closed"] = True
        out[attr] = data
    return out


def known_ranks(state: AuctionState | dict[str, Any], player: str) -> dict[str, dict[str, Any]]:
    """What ``player`` may know of his ranks: :func:`rules.ambre.ranks.known_rank`
    per attribute (public positions only; closed attributes, else his base rank).
    Blind mode (L5 "sans connaître son classement"): no position at all."""
    state = AuctionState.from_dict(state if isinstance(state, dict) else state.to_dict())
    out = {}
    for attr in state.attributes:
        a = points(state, player, attr)
        public = state.public.get(attr) or []
        closed = state.lots[attr]["status"] == "closed"
        shown = closed and state.mode == "open" and player in public
        position = public.index(player) + 1 if shown else None
        before = (state.public_points.get(attr) or {}).get(player) if closed else a
        out[attr] = R.known_rank(a, position, before)
    return out


def public_positions(state: AuctionState | dict[str, Any], player: str) -> dict[str, int]:
    """``player``'s places in the closed public ladders (the public part of a sheet, L18).

    Blind mode (L5 "sans connaître son classement"): none.
    """
    state = AuctionState.from_dict(state if isinstance(state, dict) else state.to_dict())
    if state.mode == "blind":
        return {}
    out = {}
    for attr in state.attributes:
        public = state.public.get(attr) or []
        if state.lots[attr]["status"] == "closed" and player in public:
            out[attr] = public.index(player) + 1
    return out


def results(state: AuctionState | dict[str, Any]) -> dict[str, Any]:
    """Points, ranks and karma per player, plus the ladders (the GMs' view).

    ``players[p]`` = ``{"points": {attr: A}, "ranks": {attr: {...}},
    "known_ranks": {attr: {...}}, "karma_spent", "refunds", "budget",
    "remaining"}``. ``ranks`` carry the true label and position and the
    ``secret`` flag from everyone's points: GMs only. ``known_ranks`` is what
    the player himself may know (:func:`known_ranks`).
    """
    state = AuctionState.from_dict(state if isinstance(state, dict) else state.to_dict())
    table = ladders(state)
    players = {}
    for p in state.players:
        ranks = {}
        for attr in state.attributes:
            info = table[attr]["ranks"].get(p)
            if info is None:
                a = points(state, p, attr)
                info = {
                    "points": a,
                    "label": R.ladder({p: a})["ranks"][p]["label"],
                    "true_position": None,
                    "public_position": None,
                    "secret": False,
                    "public_label": None,
                }
            ranks[attr] = info
        players[p] = {
            "points": {attr: points(state, p, attr) for attr in state.attributes},
            "ranks": ranks,
            "known_ranks": known_ranks(state, p),
            "karma_spent": spent(state, p),
            "refunds": refunds(state, p),
            "budget": state.budgets[p],
            "remaining": remaining(state, p),
        }
    return {"status": state.status, "players": players, "ladders": table}


def ledger(state: AuctionState | dict[str, Any], player: str) -> list[LedgerDraft]:
    """Ledger drafts of one player's auction (refunds and highest bids)."""
    state = AuctionState.from_dict(state if isinstance(state, dict) else state.to_dict())
    entries = []
    for attr in state.attributes:
        lot = state.lots[attr]
        label = T.ATTRIBUTE_LABELS[attr]
        if player in lot["downgrades"]:
            entries.append(
                LedgerDraft(
                    "karma",
                    DOWNGRADES[lot["downgrades"][player]][1],
                    "rank_refund",
                    Msg(f"Rang rétrogradé : {label.fr}", f"Downgraded rank: {label.en}"),
                    {"attribute": attr, "rank": lot["downgrades"][player]},
                )
            )
        bid = lot["bids"].get(player, 0) + state.buy_ups[attr].get(player, 0)
        if bid:
            entries.append(
                LedgerDraft(
                    "karma",
                    -bid,
                    "auction_bid",
                    Msg(f"Enchères : {label.fr}", f"Auction: {label.en}"),
                    {"attribute": attr, "points": bid},
                )
            )
    return entries


def view(state: AuctionState | dict[str, Any], viewer: str | None = None, gm: bool = False) -> dict[str, Any]:
    """What ``viewer`` may see (GMs see everything).

    Open mode: the current high bid and bidder, passes and downgrades are
    public; after closing, the public ladder (ids only); point values are the
    owner's. Blind mode: only one's own figures. ``me["ranks"]`` are the
    viewer's :func:`known_ranks` (public positions only, L18): another
    player's buy-up never changes what the viewer sees.
    """
    state = AuctionState.from_dict(state if isinstance(state, dict) else state.to_dict())
    if gm:
        return {"state": state.to_dict(), "results": results(state)}
    res = results(state)
    lots = {}
    for attr in state.attributes:
        lot = state.lots[attr]
        entry: dict[str, Any] = {
            "status": lot["status"],
            "downgrades": dict(lot["downgrades"]),
            "own_bid": lot["bids"].get(viewer, 0) if viewer else 0,
            "passed": viewer in lot["passed"] if viewer else False,
        }
        if state.mode == "open":
            entry["high"] = lot["high"]
            entry["passes"] = list(lot["passed"])
            entry["public_ladder"] = list(state.public[attr]) if lot["status"] == "closed" else []
        lots[attr] = entry
    mine = res["players"].get(viewer) if viewer else None
    if mine is not None:
        mine = {k: v for k, v in mine.items() if k != "known_ranks"}
        mine["ranks"] = res["players"][viewer]["known_ranks"]
    return {
        "mode": state.mode,
        "status": state.status,
        "players": list(state.players),
        "current": state.attributes[state.current]
        if state.mode == "open" and state.current < len(state.attributes)
        else None,
        "lots": lots,
        "me": mine,
    }
