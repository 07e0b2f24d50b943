"""Live channel of the characters app: ``character:<id>``.

Its events carry ids and the sheet's version only; who may listen is the
character read model's rule for the full sheet (:func:`characters.read.can_see_full`).
"""

from __future__ import annotations

from typing import Any

from campaigns.access import is_gm
from characters.models import Character
from characters.read import can_see_full
from live.registry import Viewer, register


def character_viewer(user: Any, character_id: int) -> Viewer | None:
    """Sheet events: whoever sees the full sheet (owner, GM, co-GM)."""
    character = Character.objects.select_related("campaign").filter(pk=character_id).first()
    if character is None or not can_see_full(user, character):
        return None
    return Viewer(user.pk, is_gm(user, character.campaign))


register("character", character_viewer)
