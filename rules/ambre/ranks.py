"""Attribute ladders of a campaign: ranked, dominant and secret ranks (L18).

"rang dominant": the character with the most points in the attribute;
"rang classé": between Amberite and dominant; "rang secret": "rang classé
dont la dernière comparaison a été faussé par l'évolution du personnage qui
était auparavant inférieur dans l'attribut" (L18).

Reading (spec §6.3, §8 #20): the *overtaking* character's rank is secret; it
is visible to him and the GMs only. The public ladder is the order last made
public (auction close or a GM-recorded comparison); the true ladder orders
the current points. Ties (equal points) follow the ``auction_tie`` setting:
"earlier" (the earlier holder of the value ranks first, default) or "equal".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def true_order(points: dict[str, int], since: dict[str, int] | None = None, tie: str = "earlier") -> list[list[str]]:
    """Characters with A > 0 grouped by position, best first."""
    since = since or {}
    ranked = [p for p, a in points.items() if a > 0]
    ranked.sort(key=lambda p: (-points[p], since.get(p, 0), p))
    groups: list[list[str]] = []
    for pid in ranked:
        if groups and tie == "equal" and points[groups[-1][0]] == points[pid]:
            groups[-1].append(pid)
        else:
            groups.append([pid])
    return groups


def ladder(
    points: dict[str, int],
    public_order: Sequence[str] | None = None,
    since: dict[str, int] | None = None,
    tie: str = "earlier",
) -> dict[str, Any]:
    """True and public positions with rank labels for one attribute.

    ``points``: signed attribute points per character; ``public_order``: ids
    of the public ladder, best first. Returns ``{"true": [[ids]...],
    "public": [ids], "ranks": {id: {...}}}``.
    """
    groups = true_order(points, since, tie)
    public = [p for p in (public_order or []) if p in points]
    public_pos: dict[str, int] = {}
    for index, pid in enumerate(public, start=1):
        public_pos.setdefault(pid, index)  # the first place of an id listed twice, as list.index
    true_pos: dict[str, int] = {}
    # Equal groups share a position number (first index of the group).
    position = 1
    for group in groups:
        for pid in group:
            true_pos[pid] = position
        position += len(group)
    ranks: dict[str, Any] = {}
    for pid, a in points.items():
        base = "human" if a <= -25 else "chaosian" if a < 0 else "amberite" if a == 0 else "ranked"
        tp = true_pos.get(pid)
        pp = public_pos.get(pid)  # a dict: a campaign of thousands stays linear
        label = "dominant" if base == "ranked" and tp == 1 else base
        effective_public = pp if pp is not None else len(public) + 1
        secret = base == "ranked" and tp is not None and bool(public) and tp < effective_public
        public_label = base if base != "ranked" else ("dominant" if pp == 1 else "ranked" if pp else "unranked")
        ranks[pid] = {
            "points": a,
            "label": label,
            "true_position": tp,
            "public_position": pp,
            "secret": secret,
            "public_label": public_label,
        }
    return {"true": groups, "public": public, "ranks": ranks}


def known_rank(points: int, public_position: int | None, public_points: int | None = None) -> dict[str, Any]:
    """What a player may know of his own rank: public positions only (L18).

    L18 defines the ladder by comparisons: "rang secret (rang classé dont la
    dernière comparaison a été faussé par l'évolution du personnage qui était
    auparavant inférieur dans l'attribut)". Between two comparisons a player
    knows his own points and the last public ladder, nothing of the others'
    buy-ups. So his label follows his *public* position ("dominant" = public
    position 1) and never moves because someone else bought up (the
    overtaken player would learn of the purchase). ``secret`` is what the
    overtaker knows of himself: he was publicly below someone (not publicly
    dominant) and his points rose since the last comparison
    (``public_points``: his points then; ``None`` without a public position
    = never compared, from 0). Whether
    he really passed anyone needs the others' points: only the GMs see the
    true ladder (:func:`ladder`).
    """
    base = "human" if points <= -25 else "chaosian" if points < 0 else "amberite" if points == 0 else "ranked"
    pp = public_position if isinstance(public_position, int) and not isinstance(public_position, bool) else None
    if base != "ranked":
        public_label = base
    else:
        public_label = "dominant" if pp == 1 else "ranked" if pp else "unranked"
    if isinstance(public_points, int) and not isinstance(public_points, bool):
        before = public_points
    else:  # never compared: a late joiner (L22) starts from 0; an older sheet's comparison value is unknown
        before = points if pp else 0
    secret = base == "ranked" and pp != 1 and points > before
    return {
        "points": points,
        "label": "dominant" if public_label == "dominant" else base,
        "public_position": pp,
        "public_label": public_label,
        "secret": secret,
    }


def record_comparison(public_order: Sequence[str], points: dict[str, int], a: str, b: str) -> list[str]:
    """A GM-recorded comparison of ``a`` and ``b`` (L18 "dernière comparaison"):
    the public order of that pair is corrected to their true order."""
    order = [p for p in public_order]
    if points.get(a, 0) == points.get(b, 0):
        return order
    winner, loser = (a, b) if points.get(a, 0) > points.get(b, 0) else (b, a)
    if winner in order and loser in order and order.index(winner) < order.index(loser):
        return order
    if winner in order:
        order.remove(winner)
    if loser not in order:
        if points.get(loser, 0) > 0:
            order.append(loser)
        else:
            order.append(winner)
            return order
    order.insert(order.index(loser), winner)
    return order
