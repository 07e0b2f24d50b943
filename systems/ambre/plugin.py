"""Ambre's registration in the generic apps (:mod:`characters.plugins`).

* roster: the auction's button (members) or "open an auction" (GMs), and the
  public ladders of the closed attributes (names only, best first);
* wizard, step "attributes": where the attributes come from (the auction);
* character read model: the public ladder positions (public part) and the
  ranks as the owner may know them, with the secret flag (L18: owner and GMs);
* sheet context: whether the character took part in an auction (the rules
  then lock the attributes), and what the auction already charged of a
  creation ledger line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Sum
from django.http import HttpRequest

from campaigns.access import is_gm, role_of
from campaigns.models import Campaign
from characters import plugins
from characters.models import Character, LedgerEntry
from characters.plugins import Panel, SheetPart, SystemPlugin
from characters.sheetform import msg
from rules.ambre import SYSTEM
from rules.ambre import auction as rules_auction
from rules.ambre import tables as T
from rules.base import LedgerDraft
from systems.ambre.access import auction_of
from systems.ambre.labels import RANK_LABELS
from systems.ambre.models import Auction
from systems.ambre.services import RESULTS_REASON

#: Ledger kinds the auction writes (its bids and the refunds of downgraded ranks).
AUCTION_KINDS = (LedgerEntry.Kind.AUCTION_BID, LedgerEntry.Kind.RANK_REFUND)


def attribute_label(attribute: str) -> str:
    label = T.ATTRIBUTE_LABELS.get(attribute)
    return msg(label) if label is not None else attribute


def public_ladder(auction: Auction | None) -> list[dict[str, Any]]:
    """The public ladder of each closed attribute (names only, best first)."""
    if auction is None:
        return []
    names = {str(c.pk): c.name for c in Character.objects.filter(pk__in=auction.character_ids())}
    return [
        {"label": attribute_label(attr), "names": [names.get(p, "?") for p in data["public"]]}
        for attr, data in rules_auction.ladders(auction.state).items()
        if data.get("closed")
    ]


def roster_panels(request: HttpRequest, campaign: Campaign) -> list[Panel]:
    auction = Auction.objects.filter(campaign=campaign).first()
    toolbar = Panel(
        "ambre/_roster_toolbar.html",
        {
            "auction": auction,
            "can_see_auction": role_of(request.user, campaign) is not None,  # the auction page: members only
            "can_open": is_gm(request.user, campaign) and (auction is None or auction.status == Auction.Status.CLOSED),
        },
        slot="toolbar",
    )
    ladder = public_ladder(auction)
    return [toolbar] + ([Panel("ambre/_roster_ladder.html", {"rows": ladder})] if ladder else [])


def wizard_panels(request: HttpRequest, character: Character, step: str, sheet: dict[str, Any]) -> list[Panel]:
    if step != "attributes":
        return []
    return [Panel("ambre/_wizard_attributes.html", {"auction": auction_of(character)})]


def public_ranks(character: Character) -> list[dict[str, Any]]:
    """The character's places in the closed public ladders (none in blind mode, L5)."""
    auction = auction_of(character)
    if auction is None:
        return []
    positions = rules_auction.public_positions(auction.state, str(character.pk))
    return [{"attribute": a, "label": attribute_label(a), "position": n} for a, n in positions.items()]


def known_ranks(derived: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ranks as the owner may know them (the sheet's derived values, L18), secret flag included."""
    attributes = derived.get("attributes") if isinstance(derived, Mapping) else None
    if not isinstance(attributes, Mapping):
        return []
    out = []
    for attr in T.ATTRIBUTES:
        info = attributes.get(attr)
        if not isinstance(info, Mapping):
            continue
        rank = str(info.get("label") or "")
        out.append(
            {
                "attribute": attr,
                "label": attribute_label(attr),
                "points": info.get("points"),
                "rank": rank,
                "rank_label": str(RANK_LABELS.get(rank, rank)),
                "public_position": info.get("public_position"),
                "secret": bool(info.get("secret")),
            }
        )
    return out


def sheet_parts(character: Character, derived: Mapping[str, Any]) -> list[SheetPart]:
    parts = [SheetPart("public_ranks", public_ranks(character), "ambre/_public_ranks.html")]
    ranks = known_ranks(derived)
    if ranks:
        parts.append(SheetPart("ranks", ranks, "ambre/_ranks.html", full_only=True))
    return parts


def sheet_context(character: Character) -> dict[str, Any]:
    return {"in_auction": auction_of(character) is not None}


def already_paid(character: Character, draft: LedgerDraft) -> int:
    """What the auction already charged for an attribute line of the creation ledger."""
    path = str(draft.data.get("path", ""))
    if not path.startswith("attributes."):
        return 0
    attribute = path.split(".", 1)[1]
    entries = LedgerEntry.objects.filter(
        character=character, kind__in=AUCTION_KINDS, currency=draft.currency, data__attribute=attribute
    )
    return int(entries.aggregate(total=Sum("amount"))["total"] or 0)


PLUGIN = SystemPlugin(
    system=SYSTEM.slug,
    urls="systems.ambre.urls",
    api_urls="systems.ambre.api_urls",
    wizard_panels=wizard_panels,
    roster_panels=roster_panels,
    sheet_parts=sheet_parts,
    sheet_context=sheet_context,
    already_paid=already_paid,
    version_reasons=(RESULTS_REASON,),
)


def register() -> None:
    plugins.register(PLUGIN)
