"""Live channel of the combat app: ``encounter:<id>``.

Whoever may read the encounter's thread may listen; GMs (and co-GMs) are
flagged so GM-only events (``gms_only``) reach only them. Events carry only
ids and sequence numbers: the fragment views apply permissions.
"""

from __future__ import annotations

from typing import Any

from campaigns.access import can_read_forum, is_gm
from combat.models import Encounter
from live.registry import Viewer, register


def encounter_viewer(user: Any, encounter_id: int) -> Viewer | None:
    encounter = Encounter.objects.select_related("campaign").filter(pk=encounter_id).first()
    if encounter is None or not can_read_forum(user, encounter.campaign):
        return None
    return Viewer(user.pk if user.is_authenticated else None, is_gm(user, encounter.campaign))


register("encounter", encounter_viewer)
