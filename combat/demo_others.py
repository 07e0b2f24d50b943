"""Demo fights in the Clefs de l'Aube, SMS and Altaride demo campaigns (idempotent).

Each: the players' demo characters against an NPC, round 1 resolved with the
campaign's fair dice (chained rolls like any other), a wound carried to a player
character's sheet (the GM adds a mark when the dice spared everyone), round 2 open.
"""

from __future__ import annotations

from typing import Any

from django.test.utils import override_settings

from combat import services
from combat.models import Declaration, Encounter

TITLES = {
    "clefs-de-l-aube": "Escarmouche à la Porte d'Orient",
    "sms": "Les loups des brumes",
    "altaride": "Les Crocs du col",
}


def _pcs(campaign: Any, users: dict[str, Any]) -> list[Any]:
    from characters.models import Character

    out = []
    for username in ("joueuse", "joueur"):
        character = (
            Character.objects.filter(campaign=campaign, owner=users[username], is_npc=False)
            .exclude(status__in=[Character.Status.DEAD, Character.Status.RETIRED])
            .order_by("pk")
            .first()
        )
        if character is not None:
            out.append(character)
    return out


def _answer_defences(users: dict[str, Any], encounter: Encounter, data: dict[str, Any]) -> None:
    for declaration in Declaration.objects.filter(round__encounter=encounter, defence_status="pending"):
        owner = declaration.target.controller if declaration.target else None
        if owner is not None:
            services.choose_defence(owner, declaration, data=data)


@override_settings(TABLEE_POST_RATE="0/m")
def populate_others(context: dict[str, Any]) -> None:
    from campaigns.models import Board
    from campaigns.services import create_thread

    users = context["users"]
    mj = users["mj"]
    for slug, title in TITLES.items():
        campaign = (context.get("campaigns") or {}).get(slug)
        if campaign is None or Encounter.objects.filter(campaign=campaign, title=title).exists():
            continue
        pcs = _pcs(campaign, users)
        if not pcs:
            continue
        board = campaign.boards.filter(kind=Board.Kind.IN_CHARACTER).first() or campaign.boards.first()
        thread = create_thread(mj, board, title=title, body="L'ennemi surgit. **Combat !** Déclarez vos actions.")
        encounter = services.create_encounter(mj, thread, title=title)
        heroes = [services.add_participant(mj, encounter, character=c)[0] for c in pcs]
        SCENES[slug](mj, users, encounter, heroes)
        out = context.get("stdout")
        if out is not None:
            out.write(f"Demo fight: /combat/{encounter.pk}/")


def _ensure_a_mark(mj: Any, encounter: Encounter, hero: Any, path: str, delta: int, reason: str) -> None:
    """The dice are fair (the campaign's committed seed): when they spared the hero, the GM marks her."""
    from combat.models import LogEntry

    if LogEntry.objects.filter(encounter=encounter, kind=LogEntry.Kind.CARRIED).exists():
        return
    hero.refresh_from_db()
    from rules.base import get_path

    services.adjust_value(mj, hero, path=path, value=int(get_path(hero.state, path) or 0) + delta, reason=reason)


def _clefs(mj: Any, users: dict[str, Any], encounter: Encounter, heroes: list[Any]) -> None:
    hero = heroes[0]
    (npc,) = services.add_participant(
        mj,
        encounter,
        name="Sentinelle de l'Aube",
        # The creation package of skills (a quick NPC is still checked against it, issue #19 item 6).
        sheet={
            "skills": [
                {"name": name, "aspect": aspect, "default_means": means, "nc": nc}
                for name, aspect, means, nc in (
                    ("Épée", "PH", "PU", 10),
                    ("Vigilance", "ME", "PE", 10),
                    ("Course", "PH", "RE", 5),
                    ("Intimidation", "ME", "EX", 5),
                    ("Rituels", "MY", "PR", 5),
                )
            ]
        },
    )
    services.start_encounter(mj, encounter)
    attack = {"action": "opposed", "aspect_code": "PH", "means_code": "PU", "skill_name": "Épée"}
    services.declare_action(hero.controller, hero, data=attack, target=npc)
    services.declare_action(
        mj, npc, data={**attack, "advantage": 8, "harm": 3, "harm_note": "entaille au bras"}, target=hero
    )
    services.reveal_declarations(mj, encounter)
    services.resolve_round(mj, encounter)
    services.end_round(mj, encounter, expected_round=1)
    services.declare_action(hero.controller, hero, data=attack, target=npc)


def _sms(mj: Any, users: dict[str, Any], encounter: Encounter, heroes: list[Any]) -> None:
    hero = heroes[0]
    (wolf,) = services.add_participant(
        mj, encounter, name="Loup des brumes", sheet={"npc": {"base_attack_die": 10, "base_defence_die": 6}}
    )
    services.start_encounter(mj, encounter)
    services.declare_action(
        hero.controller, hero, data={"action": "attack", "score": 3, "severity": "light"}, target=wolf
    )
    services.declare_action(mj, wolf, data={"action": "attack", "severity": "serious"}, target=hero)
    services.reveal_declarations(mj, encounter)
    _answer_defences(users, encounter, {"score": 1})  # Sylve's player parries as best she can
    services.resolve_round(mj, encounter)
    _ensure_a_mark(mj, encounter, hero, "fatigue.transient", 1, "Essoufflée par la course")
    services.end_round(mj, encounter, expected_round=1)


def _altaride(mj: Any, users: dict[str, Any], encounter: Encounter, heroes: list[Any]) -> None:
    hero = heroes[0]
    skill = {"skills": [{"key": "epee", "level": 4, "formula": "HAB+VIG"}]}
    (brigand,) = services.add_participant(mj, encounter, name="Brigand des Crocs", sheet=skill)
    services.start_encounter(mj, encounter)
    # An ambush: the brigand strikes first; Maëlis's player, caught unawares, does not defend.
    services.declare_action(
        mj, brigand, data={"action": "attack", "skill": "epee", "damage_x": 1, "modifier": 2}, target=hero
    )
    services.reveal_declarations(mj, encounter)
    _answer_defences(users, encounter, {"defence": "none"})
    services.resolve_round(mj, encounter)
    _ensure_a_mark(mj, encounter, hero, "endurance.EP", -2, "Éboulis traîtres")
    _spare(mj, hero)
    services.end_round(mj, encounter, expected_round=1)


def _spare(mj: Any, hero: Any) -> None:
    """The dice are fair: should they kill the demo's hero, the GM brings her back (recorded), so a
    newcomer meets a wounded character, not a dead one."""
    from characters.models import Character
    from characters.outcomes import revive_character

    character = Character.objects.get(pk=hero.character_id)
    if character.status == Character.Status.DEAD:
        revive_character(mj, character, reason="Démo : le coup n'était pas mortel")


SCENES = {"clefs-de-l-aube": _clefs, "sms": _sms, "altaride": _altaride}
