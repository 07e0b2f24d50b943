"""The characters app's answers to :mod:`campaigns.voices` (who speaks as and rolls for which character).

Registered by :func:`register` in ``CharactersConfig.ready()``; campaigns asks these questions when
a post is written (the character it speaks as, the sheet a test reads) and when the post form is built.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from campaigns import access, voices
from campaigns.models import Campaign
from characters.models import Character, SheetVersion


class CharacterVoices:
    """:class:`campaigns.voices.Voices` over :class:`characters.models.Character`."""

    def get(self, character: Any) -> Character | None:
        if isinstance(character, Character):
            return character
        return Character.objects.filter(pk=character).first()

    def post_voices(self, user: Any, campaign: Campaign, *, is_gm: bool) -> tuple[list[Any], list[Any]]:
        characters = Character.objects.filter(campaign=campaign)
        if is_gm:
            # One query: their own characters and the NPCs speak; the playable PCs and the NPCs still
            # in play roll from their sheet (as :meth:`rollable` gives them a GM).
            rows = list(
                characters.filter(Q(owner=user) | Q(is_npc=True) | Q(status__in=voices.PLAYABLE_STATUSES)).order_by(
                    "name"
                )
            )
            speaking = [c for c in rows if c.owner_id == user.pk or c.is_npc]
            rolling = [
                c
                for c in rows
                if (c.is_npc and c.status not in (voices.DEAD, voices.RETIRED))
                or (not c.is_npc and c.status in voices.PLAYABLE_STATUSES)
            ]
            return speaking, rolling
        # One query: a player's voices are their characters; those approved can also roll from their sheet.
        mine = list(characters.filter(owner=user, is_npc=False))
        return mine, [c for c in mine if c.status in voices.PLAYABLE_STATUSES]

    def rollable(self, user: Any, campaign: Campaign) -> QuerySet[Character]:
        pcs = Character.objects.filter(campaign=campaign, is_npc=False, status__in=voices.PLAYABLE_STATUSES)
        if access.is_gm(user, campaign):
            npcs = Character.objects.filter(campaign=campaign, is_npc=True).exclude(
                status__in=(voices.DEAD, voices.RETIRED)
            )
            return (pcs | npcs).order_by("name")
        return pcs.filter(owner=user).order_by("name")

    def sheet_at(self, character_id: Any, version: Any) -> tuple[dict[str, Any], int] | None:
        found = SheetVersion.objects.filter(character_id=character_id, version=version).first()
        return None if found is None else (found.sheet, found.schema_version)


def register() -> None:
    voices.register(CharacterVoices())
