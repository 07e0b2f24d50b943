"""The session recap: results, awards and purchases (GM details only to GMs)."""

from __future__ import annotations

from typing import Any

from campaigns.access import is_gm
from campaigns.models import PlaySession
from characters.models import LedgerEntry
from progression.models import (
    RecalculationRun,
    SessionAward,
    SessionResult,
    SessionReview,
)
from progression.services.access import is_owner


def recap(session: PlaySession, viewer: Any) -> dict[str, Any]:
    """What the recap page shows to ``viewer`` (GM details only to GMs)."""
    gm = is_gm(viewer, session.campaign)
    results = list(SessionResult.objects.filter(session=session).select_related("character"))
    awards = list(SessionAward.objects.filter(session=session).select_related("character", "created_by"))
    purchases = list(
        LedgerEntry.objects.filter(session=session, kind=LedgerEntry.Kind.PURCHASE).select_related("character")
    )
    if not gm:
        mine = {r.character_id for r in results if is_owner(viewer, r.character)}
        mine |= {a.character_id for a in awards if is_owner(viewer, a.character)}
        results = [r for r in results if r.character_id in mine]
        awards = [a for a in awards if a.character_id in mine]
        purchases = [p for p in purchases if p.character_id in mine]
    runs = list(RecalculationRun.objects.filter(session=session)[:20]) if gm else []
    return {
        "gm": gm,
        "results": results,
        "awards": awards,
        "purchases": purchases,
        "runs": runs,
        "review": SessionReview.objects.filter(session=session).first(),
    }
