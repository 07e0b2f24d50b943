"""Demo data: a closed session with confirmed awards in the Ambre and Altaride tables.

Idempotent: the demo session is found by its title; awards are confirmed
once (the job then runs after the demo command commits).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Max
from django.utils import timezone

import rules
from campaigns.models import PlaySession
from characters import ledger
from characters.models import Character

DEMO_TITLE = "Séance de démonstration (progression)"
DEMO_CHARACTERS = {
    "ambre": [("joueuse", "Llewella"), ("joueur", "Bleys")],
    "altaride": [("joueuse", "Ysolde"), ("joueur", "Garance")],
}


def _characters(campaign: Any, users: dict[str, Any], system: str) -> list[Character]:
    existing = list(
        Character.objects.filter(campaign=campaign, is_npc=False, status=Character.Status.APPROVED).order_by("pk")
    )
    if existing:
        return existing
    rule_system = rules.get_system(system)
    out = []
    for username, name in DEMO_CHARACTERS[system]:
        character, _created = Character.objects.get_or_create(
            campaign=campaign,
            name=name,
            defaults={
                "owner": users[username],
                "system": system,
                "sheet": rule_system.default_sheet(),
                "schema_version": rule_system.schema_version,
                "status": Character.Status.APPROVED,
            },
        )
        out.append(character)
    return out


def populate(context: dict[str, Any]) -> None:
    from progression import services
    from progression.models import SessionReview

    users = context["users"]
    for system in ("ambre", "altaride"):
        campaign = context.get("campaigns", {}).get(system)
        if campaign is None:
            continue
        characters = _characters(campaign, users, system)
        if system == "ambre":
            for character in characters:
                ledger.append_entry(
                    character, "karma", 20, "gm_award", note="Karma de démonstration", key=f"demo:karma:{character.pk}"
                )
        session = PlaySession.objects.filter(campaign=campaign, title=DEMO_TITLE).first()
        if session is None:
            number = (PlaySession.objects.filter(campaign=campaign).aggregate(n=Max("number"))["n"] or 0) + 1
            session = PlaySession.objects.create(
                campaign=campaign,
                number=number,
                title=DEMO_TITLE,
                status=PlaySession.Status.CLOSED,
                closed_at=timezone.now(),
                opened_by=users["mj"],
            )
        review = SessionReview.objects.filter(session=session).first()
        if review is not None and review.status == SessionReview.Status.CONFIRMED:
            continue
        facts = {"gm_award": "20"} if system == "altaride" else {}
        entries = {
            c.pk: {
                "present": True,
                "facts": facts,
                "amounts": {},
                "suggested": {},
                "extra": 3 if n == 0 else 0,
                "extra_note": "Belle scène" if n == 0 else "",
            }
            for n, c in enumerate(characters)
        }
        services.confirm_session_awards(users["mj"], session, entries=entries)
