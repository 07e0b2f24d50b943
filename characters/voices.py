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
from config.prepared import PreparedQuery


def _gm_voices(campaign_id: int, user_id: int) -> QuerySet[Character]:
    return Character.objects.filter(
        Q(owner_id=user_id) | Q(is_npc=True) | Q(status__in=voices.PLAYABLE_STATUSES), campaign_id=campaign_id
    ).order_by("name", "pk")


def _player_voices(campaign_id: int, user_id: int) -> QuerySet[Character]:
    return Character.objects.filter(campaign_id=campaign_id, owner_id=user_id, is_npc=False).order_by("name", "pk")


_VOICE_PROBES = {"campaign_id": (930_000_001, 940_000_002), "user_id": (950_000_003, 960_000_004)}
#: The post form's voices, on every thread page: compiled once per process (config.prepared).
_GM_VOICES = PreparedQuery(_gm_voices, _VOICE_PROBES)
_PLAYER_VOICES = PreparedQuery(_player_voices, _VOICE_PROBES)


def _rolls_for(character: Character, user_id: int, *, is_gm: bool) -> bool:
    """Whether a reader (a GM of the campaign, or not) may roll sheet tests for ``character``: the
    rule :meth:`CharacterVoices.rollable` queries, read on a character already loaded."""
    if character.is_npc:
        return is_gm and character.status not in (voices.DEAD, voices.RETIRED)
    return character.status in voices.PLAYABLE_STATUSES and (is_gm or character.owner_id == user_id)


class CharacterVoices:
    """:class:`campaigns.voices.Voices` over :class:`characters.models.Character`."""

    def get(self, character: Any) -> Character | None:
        if isinstance(character, Character):
            return character
        return Character.objects.filter(pk=character).first()

    def post_voices(self, user: Any, campaign: Campaign, *, is_gm: bool) -> tuple[list[Any], list[Any]]:
        if is_gm:
            # One query: their own characters and the NPCs speak; the playable PCs and the NPCs still
            # in play roll from their sheet (as :meth:`rollable` gives them a GM).
            rows = _GM_VOICES.all(campaign_id=campaign.pk, user_id=user.pk)
            speaking = [c for c in rows if c.owner_id == user.pk or c.is_npc]
            return speaking, [c for c in rows if _rolls_for(c, user.pk, is_gm=True)]
        # One query: a player's voices are their characters; those approved can also roll from their sheet.
        mine = _PLAYER_VOICES.all(campaign_id=campaign.pk, user_id=user.pk)
        return mine, [c for c in mine if _rolls_for(c, user.pk, is_gm=False)]

    def may_roll(self, user: Any, character: Any) -> bool:
        if user is None or not user.is_authenticated or not isinstance(character, Character):
            return False
        if _rolls_for(character, user.pk, is_gm=False):
            return True  # their own playable character: no need to ask for their role
        return _rolls_for(character, user.pk, is_gm=True) and access.is_gm(user, character.campaign)

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
