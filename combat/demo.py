"""Demo fights: one encounter in progress in each demo campaign (idempotent).

Ambre, thread "Embuscade au Bois d'Arden": Iris's and Hugo's Ambre characters (or,
when they have none yet, the spec's reference Cendre and Ariane, whose round
gives rules/ambre.md §7.2 D4–D6) against Borel, a quick NPC with GM-only
stats, and two Rebma guards. Round 1 is resolved and summarised in the
thread; round 2 waits for declarations, Iris has already declared.

Clefs de l'Aube, SMS and Altaride (:func:`populate_others`): the players'
demo characters against an NPC; round 1 resolved with seeded dice (the draws
are chained rolls like any other), a wound carried to a sheet, round 2 open.
"""

from __future__ import annotations

from typing import Any

from django.test.utils import override_settings

from combat import services
from combat.models import Encounter

TITLE = "Embuscade au Bois d'Arden"

#: Reference characters of the Ambre spec §7.2 (attribute points, characteristics).
REFERENCE = {
    "Ariane": (
        {"psy": 0, "phy": 20, "end": -10, "cbt": 30},
        {"mental": 10, "concentration": 10, "volonte": 5, "force": 15, "dexterite": 10, "rapidite": 20,
         "adaptation": 5, "regeneration": 5, "resistance": 5, "hab_distance": 15, "hab_cac": 30, "strategie": 10},
    ),
    "Borel": (
        {"psy": 40, "phy": 0, "end": 5, "cbt": -25},
        {"mental": 25, "concentration": 25, "volonte": 15, "force": 5, "dexterite": 10, "rapidite": 10,
         "adaptation": 5, "regeneration": 5, "resistance": 20, "hab_distance": 0, "hab_cac": 0, "strategie": 0},
    ),
    "Cendre": (
        {"psy": 0, "phy": 10, "end": 15, "cbt": 25},
        {"mental": 10, "concentration": 5, "volonte": 10, "force": 10, "dexterite": 10, "rapidite": 15,
         "adaptation": 10, "regeneration": 10, "resistance": 20, "hab_distance": 10, "hab_cac": 35, "strategie": 5},
    ),
}  # fmt: skip


def _stats(name: str) -> dict[str, Any]:
    attributes, characteristics = REFERENCE[name]
    return {"attributes": dict(attributes), "characteristics": dict(characteristics)}


def _character(campaign: Any, owner: Any, name: str) -> Any:
    """The owner's Ambre character, or a demo one built from the spec's reference."""
    from characters.models import Character

    existing = Character.objects.filter(campaign=campaign, owner=owner, is_npc=False).order_by("pk").first()
    if existing is not None:
        return existing
    sheet = campaign.rule_system.default_sheet()
    sheet.update(_stats(name))
    sheet["name"] = name
    character, _ = Character.objects.get_or_create(
        campaign=campaign,
        name=name,
        defaults={"owner": owner, "system": campaign.system, "sheet": sheet, "status": Character.Status.APPROVED},
    )
    return character


def populate(context: dict[str, Any]) -> None:
    """Every demo fight (the demo command calls this)."""
    _ambre(context)
    from combat.demo_others import populate_others

    populate_others(context)


@override_settings(TABLEE_POST_RATE="0/m")
def _ambre(context: dict[str, Any]) -> None:
    campaign = context.get("campaigns", {}).get("ambre")
    if campaign is None or Encounter.objects.filter(campaign=campaign, title=TITLE).exists():
        return
    from campaigns.models import Board
    from campaigns.services import create_thread

    users = context["users"]
    mj, iris, hugo = users["mj"], users["joueuse"], users["joueur"]
    board = campaign.boards.filter(kind=Board.Kind.IN_CHARACTER).first() or campaign.boards.first()
    thread = create_thread(
        mj, board, title=TITLE, body="Des silhouettes surgissent d'entre les chênes. **Combat !** Déclarez vos actions."
    )
    encounter = services.create_encounter(mj, thread, title=TITLE)
    (cendre,) = services.add_participant(mj, encounter, character=_character(campaign, iris, "Cendre"), side="allies")
    (ariane,) = services.add_participant(mj, encounter, character=_character(campaign, hugo, "Ariane"), side="allies")
    (borel,) = services.add_participant(mj, encounter, name="Borel", sheet=_stats("Borel"), side="opponents")
    guards = services.add_participant(
        mj, encounter, name="Garde de Rebma", sheet=_stats("Cendre"), count=2, side="opponents"
    )
    services.set_gm_notes(mj, encounter, notes="Borel est un agent de Rebma : il fuit s'il tombe sous 10 de vie.")
    services.start_encounter(mj, encounter)
    services.declare_action(mj, borel, data={"action": "psychic", "note": "Il sonde l'esprit d'Ariane."}, target=ariane)
    services.declare_action(
        hugo, ariane, data={"action": "melee", "note": "Ariane fond sur Cendre, trompée par l'illusion."}, target=cendre
    )
    services.declare_action(iris, cendre, data={"action": "melee", "note": "Cendre charge Borel."}, target=borel)
    services.reveal_declarations(mj, encounter)
    services.resolve_round(mj, encounter)
    services.end_round(mj, encounter, expected_round=1)
    services.declare_action(iris, cendre, data={"action": "melee", "note": "Cendre achève Borel."}, target=borel)
    services.declare_action(mj, guards[0], data={"action": "melee"}, target=cendre)
    out = context.get("stdout")
    if out is not None:
        out.write(f"Demo fight: /combat/{encounter.pk}/")
