"""Demo characters: one approved PC per system for "joueuse", a draft for "joueur",
and, in the Ambre campaign, an attribute auction under way (Psyche closed).

Idempotent: existing characters (by campaign and name) and auctions are kept.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from django.db import transaction

from characters import services
from characters.models import Character
from systems.ambre import services as auction_services
from systems.ambre.models import Auction
from systems.clefs import services as clefs_services


def _ambre(system: Any, name: str) -> dict[str, Any]:
    sheet = system.default_sheet()
    sheet["name"] = name
    sheet["powers"] = [{"power": "atouts", "level": 5, "via_marelle_brisee": False, "selections": ""}]
    sheet["background"] = "Élevé à la cour d'Ambre, exilé en Ombre."
    return sheet


def _clefs(system: Any, name: str) -> dict[str, Any]:
    sheet = system.default_sheet()
    sheet["skills"] = [
        {"name": skill, "aspect": aspect, "default_means": means, "nc": nc}
        for skill, aspect, means, nc in (
            ("Épée", "PH", "PU", 10),
            ("Érudition", "ME", "PE", 10),
            ("Équitation", "PH", "MA", 5),
            ("Éloquence", "ME", "EX", 5),
            ("Rituels", "MY", "PR", 5),
        )
    ]
    sheet["notes"] = "Messagère de la Porte d'Orient."
    return sheet


def _sms(system: Any, name: str) -> dict[str, Any]:
    from rules.sms import creation

    sheet = creation.apply_race(system.default_sheet(), "elfin")
    sheet["concept"] = "Éclaireuse elfine des Chemins de Loreval."
    return sheet


def _altaride(system: Any, name: str) -> dict[str, Any]:
    """Talents and a starter-catalogue skill bought at creation from the 500 points (L51, L79):
    Mains Nues is the skill the text names (the campaign's starter catalogue)."""
    sheet = system.default_sheet()
    if name == "Tordek":
        sheet["talents"].update({"HAB": 10, "PER": 9, "VIG": 13, "ESP": 8, "DOM": 11})
        sheet["skills"] = [{"key": "mains_nues", "level": 6, "formula": ""}]
    else:
        sheet["talents"].update({"HAB": 12, "PER": 11, "VIG": 10, "ESP": 9, "EXP": 8})
        sheet["skills"] = [{"key": "mains_nues", "level": 4, "formula": ""}]
    return sheet


SHEETS = {"ambre": _ambre, "clefs-de-l-aube": _clefs, "sms": _sms, "altaride": _altaride}
NAMES = {
    "ambre": ("Fiona", "Julian"),
    "clefs-de-l-aube": ("Ilyane", "Orso"),
    "sms": ("Sylve", "Brock"),
    "altaride": ("Maëlis", "Tordek"),
}


def _make(campaign: Any, owner: Any, name: str, sheet: dict[str, Any], status: str, gm: Any) -> Character:
    character = Character.objects.filter(campaign=campaign, name=name).first()
    if character is not None:
        return character
    character = services.create_character(owner, campaign, name=name, public_description=f"{name}, personnage de démo.")
    services.save_sheet(owner, character, sheet=copy.deepcopy(sheet), expected_version=character.version)
    character.refresh_from_db()
    if status == "approved" and services.evaluate_character(character).valid:
        services.submit_character(owner, character)
        services.approve_character(gm, Character.objects.get(pk=character.pk), comment="Bienvenue à la table !")
    return Character.objects.get(pk=character.pk)


def populate(context: dict[str, Any]) -> None:
    users = context["users"]
    campaigns = context.get("campaigns") or {}
    gm = users["mj"]
    with transaction.atomic():
        for slug, campaign in campaigns.items():
            maker = SHEETS.get(slug)
            if maker is None:
                continue
            system = campaign.rule_system
            first, second = NAMES[slug]
            if slug == "ambre":
                # Ambre PCs stay drafts until the auction gives their attributes.
                a = _make(campaign, users["joueuse"], first, maker(system, first), "draft", gm)
                b = _make(campaign, users["joueur"], second, maker(system, second), "draft", gm)
                _auction(campaign, gm, a, b)
            else:
                _make(campaign, users["joueuse"], first, maker(system, first), "approved", gm)
                _make(campaign, users["joueur"], second, maker(system, second), "draft", gm)
            if slug == "clefs-de-l-aube":
                _clefs_roll_demo(campaign, users["joueur"])
    stdout = context.get("stdout")
    if stdout is not None:
        stdout.write("characters: demo characters and an Ambre auction ready")


def _auction(campaign: Any, gm: Any, a: Character, b: Character) -> None:
    if Auction.objects.filter(campaign=campaign).exists():
        return
    auction = auction_services.open_auction(gm, campaign, characters=[a, b])
    for character, event in (
        (a, {"type": "bid", "attribute": "psy", "amount": 12}),
        (b, {"type": "bid", "attribute": "psy", "amount": 18}),
        (a, {"type": "pass", "attribute": "psy"}),
        (b, {"type": "bid", "attribute": "phy", "amount": 6}),
    ):
        auction = auction_services.auction_act(character.owner, auction, character=character, event=event)


def _clefs_roll_demo(campaign: Any, owner: Any) -> None:
    """Orso's creation dice are rolled on the server, means placed validly."""
    character = Character.objects.filter(campaign=campaign, name="Orso").first()
    if character is None or (character.sheet.get("creation") or {}).get("roll"):
        return
    character = clefs_services.clefs_creation_roll(
        owner, character, aspect_method="ROLL_STANDARD", means_method="ROLL", expected_version=character.version
    )
    sheet = copy.deepcopy(character.sheet)
    record = sheet["creation"]["roll"]
    for values in itertools.permutations(record["means_values"]):
        placed = dict(zip(("PU", "RE", "MA", "PR", "EX", "PE"), values, strict=True))
        trial = copy.deepcopy(sheet)
        trial["creation"]["means_assigned"] = dict(placed)
        trial["means"] = dict(placed)
        if not character.rule_system.validate_sheet(trial):
            sheet = trial
            break
    services.save_sheet(owner, character, sheet=sheet, expected_version=character.version)
