"""Quick NPCs (issue #23): the GM's stat line of an Ambre NPC or creature.

An NPC is not bought with creation points: "un démon ne peut pas être
'acheté' avec des points de karma" (L344) and the spec's reading for
creatures is that the GM enters their numbers (ambre.md §8 #11 (g)). The
stat line is the sheet's own numbers: the four attributes (L18) and the
twelve characteristics (L400-L420), nothing else; the rest keeps the
default sheet. No number is added here.
"""

from __future__ import annotations

from functools import cache

from rules.ambre import schema
from rules.base import Field, pick_fields

ATTRIBUTES = ("attributes.psy", "attributes.phy", "attributes.end", "attributes.cbt")


@cache
def quick_npc_fields() -> tuple[Field, ...]:
    """The attributes, then the characteristics (their sheet fields, labels and ranges)."""
    fields = schema.sheet_fields()
    characteristics = tuple(f.path for f in fields if f.path.startswith("characteristics."))
    return pick_fields(fields, *ATTRIBUTES, *characteristics)
