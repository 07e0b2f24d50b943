"""Demo tables: one per rule system, with the demo GM and players, a scene
with posts, a whisper, a GM-only note and rolls (system tests where the
system has dice)."""

from __future__ import annotations

import secrets
from typing import Any

from django.test import override_settings

from campaigns import services
from campaigns.models import Board, Campaign, Membership, PlaySession, Role

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
#: A system test per system for the demo scene (None: diceless, a plain comparison).
DEMO_TESTS: dict[str, dict[str, Any]] = {
    "ambre": {"kind": "comparison", "a_value": 40, "b_value": 35, "a_label": "Iris", "b_label": "Garde"},
    "clefs-de-l-aube": {"kind": "action", "aspect": 3, "means": 2, "nd": 3},
    "sms": {"kind": "action", "score": 3, "die": 6},
    "altaride": {"kind": "test", "target": 12, "label": "Escalade"},
}


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
        starter = campaign.rule_system.starter_settings()
        if any(key not in (campaign.system_settings or {}) for key in starter):  # the GM's edits are kept
            campaign.system_settings = {**starter, **(campaign.system_settings or {})}
            campaign.save(update_fields=["system_settings"])
        if not campaign.invite_token:
            campaign.invite_token = secrets.token_urlsafe(24)
            campaign.save(update_fields=["invite_token"])
        for username, role in (("mj", Role.GM), ("joueuse", Role.PLAYER), ("joueur", Role.PLAYER)):
            Membership.objects.update_or_create(campaign=campaign, user=users[username], defaults={"role": role})
        if not campaign.boards.exists():
            for position, (name, kind) in enumerate(DEFAULT_BOARDS):
                Board.objects.create(campaign=campaign, name=name, kind=kind, position=position)
        if not campaign.threads.exists():
            _scene(campaign, users)
        campaigns[system] = campaign
    context["campaigns"] = campaigns


@override_settings(TABLEE_POST_RATE="0/m")
def _scene(campaign: Campaign, users: dict[str, Any]) -> None:
    mj, iris, hugo = users["mj"], users["joueuse"], users["joueur"]
    if campaign.system == "altaride" and not PlaySession.objects.filter(campaign=campaign).exists():
        services.open_session(mj, campaign, title="Le réveil")
    ic = campaign.boards.order_by("position").first()
    ooc = campaign.boards.order_by("position")[1] if campaign.boards.count() > 1 else ic
    rules_thread = services.create_thread(
        mj,
        ooc,
        title="Bienvenue à la table",
        body="Bienvenue ! Lisez le **pitch**, créez vos personnages, et postez au moins *deux fois par semaine*.",
        sticky=True,
    )
    services.create_post(iris, rules_thread, body="Merci @mj, j'ai hâte !")
    scene = services.create_thread(
        mj,
        ic,
        title="Prologue",
        body="> La nuit tombe sur la ville.\n\nLes portes se referment derrière vous. Que faites-vous ?",
    )
    services.create_post(iris, scene, body="Je me glisse le long du mur, à l'affût du moindre bruit.")
    # The characters do not exist yet (characters.demo runs later): the GM rolls a test typed in full.
    # A player's tests are built from the sheet ("What you can roll" on the sheet page).
    services.create_post(
        mj,
        scene,
        body="Voyons si la garde t'entend.",
        roll_requests=[{"system_test": DEMO_TESTS[campaign.system], "label": "Discrétion"}],
    )
    services.create_post(
        hugo, scene, body="I keep watch on the gate.", roll_requests=[{"expression": "2d6+1", "label": "Vigilance"}]
    )
    services.create_post(
        hugo, scene, body="(Psst, MJ : mon personnage cache une lettre.)", visibility="whisper", recipients=[mj]
    )
    services.create_post(
        mj,
        scene,
        body="Note : la garde est achetée par Rebma.",
        visibility="gm",
        roll_requests=[{"expression": "1d20", "label": "Réaction de la garde", "secret": True}],
    )
    services.create_post(mj, scene, body="Un bruit de pas résonne dans la ruelle. @joueuse, à toi.", turn_for=[iris])
