"""Campaign-wide progression steps that need every character at once.

The rules interface is per character (``apply_progression``); a few effects
compare characters. A system may provide ``campaign_progression(sheets,
settings) -> {character_id: {"sheet": new_sheet, "state": {...}}}``; if it
does not, the adapters below call the system's own pure functions. No game
arithmetic lives here: the ladders come from :mod:`rules.ambre.ranks`.

Ambre (L18, spec §6.3): after buy-ups, each attribute's *true* ladder is
recomputed from the current points; the *public* ladder is the order last
made public, read from the sheets' ``ladder.<attr>.public_position``.
The true ladder goes to the GMs' snapshot (``state["ranks"]``); what the
owner may know (public positions only) to ``state["known_ranks"]``
(:func:`rules.ambre.ranks.known_rank`). Nothing of the true ladder is
written on a sheet.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from rules.base import RuleSystem

Sheets = dict[int, dict[str, Any]]
Step = Callable[[Sheets, dict[str, Any]], dict[int, dict[str, Any]]]


def ambre_ladders(sheets: Sheets, settings: dict[str, Any]) -> dict[int, dict[str, Any]]:
    from rules.ambre import ranks
    from rules.ambre import tables as T
    from rules.ambre.derive import attribute_points

    tie = (settings or {}).get("auction_tie") or "earlier"
    out: dict[int, dict[str, Any]] = {
        pk: {"sheet": copy.deepcopy(sheet), "state": {"ranks": {}}} for pk, sheet in sheets.items()
    }
    for attr in T.ATTRIBUTES:
        points = {str(pk): attribute_points(sheet, attr) for pk, sheet in sheets.items()}
        public_positions = {
            str(pk): ((sheet.get("ladder") or {}).get(attr) or {}).get("public_position")
            for pk, sheet in sheets.items()
        }
        public_order = sorted(
            (pid for pid, pos in public_positions.items() if isinstance(pos, int) and not isinstance(pos, bool)),
            key=lambda pid: (public_positions[pid], int(pid)),
        )
        # "since": the earlier public holder ranks first on equal points.
        order_index = {pid: n for n, pid in enumerate(public_order)}
        since = {pid: order_index.get(pid, len(public_order) + int(pid)) for pid in points}
        table = ranks.ladder(points, public_order, since, tie if tie in ("earlier", "equal") else "earlier")
        for pid, info in table["ranks"].items():
            pk = int(pid)
            sheet = out[pk]["sheet"]
            ladder = sheet.setdefault("ladder", {})
            if not isinstance(ladder, dict):
                ladder = sheet["ladder"] = {}
            slot = ladder.setdefault(attr, {})
            if not isinstance(slot, dict):
                slot = ladder[attr] = {}
            # The true position is the GMs' (L18): never on the sheet, whose owner and history would show
            # another character's buy-up (older sheets stored it: dropped here).
            slot.pop("true_position", None)
            slot.setdefault("public_position", None)
            out[pk]["state"].setdefault("known_ranks", {})[attr] = ranks.known_rank(
                info["points"], slot.get("public_position"), slot.get("public_points")
            )
            out[pk]["state"]["ranks"][attr] = {
                "points": info["points"],
                "label": info["label"],
                "true_position": info["true_position"],
                "public_position": info["public_position"],
                "secret": bool(info["secret"]),
            }
    return out


ADAPTERS: dict[str, Step] = {"ambre": ambre_ladders}


def campaign_step(system: RuleSystem) -> Step | None:
    declared = getattr(system, "campaign_progression", None)
    if callable(declared):
        return declared  # type: ignore[no-any-return]
    return ADAPTERS.get(system.slug)
