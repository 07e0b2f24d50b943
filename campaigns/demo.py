"""Demo tables: one per rule system, with the demo GM and players."""

from __future__ import annotations

from typing import Any

from campaigns.models import Board, Campaign, Membership, Role

DEMO_CAMPAIGNS = [
    ("ambre-les-ombres-de-rebma", "Les Ombres de Rebma", "ambre", "Une intrigue de cour entre Ambre et Rebma."),
    ("clefs-la-porte-d-orient", "La Porte d'Orient", "clefs-de-l-aube", "Une enquête à l'aube d'un monde neuf."),
    ("sms-les-chemins-de-loreval", "Les Chemins de Loreval", "sms", "Voyage à travers l'Omnivers de Loreval."),
    ("altaride-le-mythe-eveille", "Le Mythe éveillé", "altaride", "Aventures épiques sur Altaride."),
]
DEFAULT_BOARDS = [
    ("En jeu", Board.Kind.IN_CHARACTER),
    ("Hors jeu", Board.Kind.OUT_OF_CHARACTER),
    ("Règles et organisation", Board.Kind.META),
]


def populate(context: dict[str, Any]) -> None:
    users = context["users"]
    campaigns = {}
    for slug, title, system, pitch in DEMO_CAMPAIGNS:
        campaign, _ = Campaign.objects.update_or_create(
            slug=slug,
            defaults={
                "title": title,
                "system": system,
                "pitch": pitch,
                "is_public": True,
                "recruiting": True,
                "language": "fr",
                "created_by": users["mj"],
            },
        )
        for username, role in (("mj", Role.GM), ("joueuse", Role.PLAYER), ("joueur", Role.PLAYER)):
            Membership.objects.update_or_create(campaign=campaign, user=users[username], defaults={"role": role})
        if not campaign.boards.exists():
            for position, (name, kind) in enumerate(DEFAULT_BOARDS):
                Board.objects.create(campaign=campaign, name=name, kind=kind, position=position)
        campaigns[system] = campaign
    context["campaigns"] = campaigns
