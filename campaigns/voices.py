"""The characters a member speaks as and rolls for: a port campaigns declares, characters fills.

Why a port (dependency inversion) rather than moving code up: writing a post, the forum's
central write (:func:`campaigns.services.create_post`), must check the character a post speaks
as and build a test from that character's sheet; the post form offers those characters. The
characters app sits above campaigns (README.md, "Architecture") and already depends on it (a character belongs
to a campaign), so moving ``create_post`` or the post form into it would put the forum's core in
the sheets' app. Instead campaigns states here the few questions it asks, and the characters app
answers them (:class:`characters.voices.CharacterVoices`, registered in its
``AppConfig.ready()``). Campaigns code reads only plain attributes of a character: ``pk``,
``name``, ``campaign_id``, ``owner_id``, ``is_npc``, ``status``, ``version``, ``current_sheet()``.
Without a registered port nobody has a character (posts speak as their author).
"""

from __future__ import annotations

from typing import Any, Protocol

from campaigns.models import Campaign

#: Statuses a character's ``status`` may take that campaigns reads (the characters app's words).
DEAD, RETIRED = "dead", "retired"
#: Statuses of a player character whose sheet can be rolled (a draft, a retired or a dead one cannot).
PLAYABLE_STATUSES = frozenset({"approved"})


class Voices(Protocol):
    def get(self, character: Any) -> Any | None:
        """The character given as an instance or a primary key, or ``None``."""

    def post_voices(self, user: Any, campaign: Campaign, *, is_gm: bool) -> tuple[list[Any], list[Any]]:
        """The post form's characters: those ``user`` may speak as (a player: their own; a GM: their
        own and the NPCs), and those they may roll sheet tests for."""

    def rollable(self, user: Any, campaign: Campaign) -> Any:
        """The characters ``user`` may roll sheet tests for (a queryset: ``.filter(pk=...)`` works).

        A player: their own approved characters. A GM or co-GM: every approved player character
        (to roll for a player, with GM-only inputs) and the NPCs still in play."""

    def may_roll(self, user: Any, character: Any) -> bool:
        """Whether ``character`` is one of :meth:`rollable` for ``user``, read on the loaded character
        (no query but the reader's role in its campaign, when it is not their own)."""

    def sheet_at(self, character_id: Any, version: Any) -> tuple[dict[str, Any], int] | None:
        """The sheet (and its schema version) of that version of the character, or ``None``."""


class NoCharacters:
    """Without the characters app: nobody has a character."""

    def get(self, character: Any) -> Any | None:
        return None

    def post_voices(self, user: Any, campaign: Campaign, *, is_gm: bool) -> tuple[list[Any], list[Any]]:
        return [], []

    def rollable(self, user: Any, campaign: Campaign) -> Any:
        return campaign.__class__.objects.none()

    def may_roll(self, user: Any, character: Any) -> bool:
        return False

    def sheet_at(self, character_id: Any, version: Any) -> tuple[dict[str, Any], int] | None:
        return None


_voices: Voices = NoCharacters()


def register(voices: Voices) -> None:
    global _voices
    _voices = voices


def voices() -> Voices:
    return _voices
