"""Readable names of the rules' purchase kinds (*types d'achat*).

The rules declare each purchase kind's fields (``purchase_fields()``) but not
a name for the kind itself, so the app keeps a small bilingual table here;
an unknown kind falls back to its key made readable ("raise_talent" →
"Raise talent"), never to the raw code.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

PURCHASE_KIND_LABELS = {
    # Ambre
    "attribute": pgettext_lazy("purchase kind", "Attribute points"),
    "power": pgettext_lazy("purchase kind", "New power"),
    "power_level": pgettext_lazy("purchase kind", "Power level"),
    "artefact": pgettext_lazy("purchase kind", "Artefact"),
    "shadow": pgettext_lazy("purchase kind", "Personal shadow"),
    "construct": pgettext_lazy("purchase kind", "Construct"),
    "ally": pgettext_lazy("purchase kind", "Ally"),
    # Les Clefs de l'Aube
    "raise_skill": pgettext_lazy("purchase kind", "Raise a skill"),
    "new_skill": pgettext_lazy("purchase kind", "New skill"),
    "means_exchange": pgettext_lazy("purchase kind", "Means exchange"),
    "decline_means_exchange": pgettext_lazy("purchase kind", "Decline the means exchange"),
    # SMS
    "raise_module": pgettext_lazy("purchase kind", "Raise a module"),
    "new_module": pgettext_lazy("purchase kind", "New module"),
    # Altaride
    "talent": pgettext_lazy("purchase kind", "Talent"),
    "raise_talent": pgettext_lazy("purchase kind", "Raise a talent"),
    "skill": pgettext_lazy("purchase kind", "Skill"),
    "endurance": pgettext_lazy("purchase kind", "Endurance"),
    "school": pgettext_lazy("purchase kind", "Magic school"),
    "magic_level": pgettext_lazy("purchase kind", "Magic level"),
    "capacity": pgettext_lazy("purchase kind", "Capacity"),
    "aptitude": pgettext_lazy("purchase kind", "Aptitude"),
    "guild_spell": pgettext_lazy("purchase kind", "Guild spell"),
}


def purchase_kind_label(kind: str) -> str:
    """The kind's name in the current language; unknown keys made readable."""
    label = PURCHASE_KIND_LABELS.get(kind)
    if label is not None:
        return str(label)
    return str(kind).replace("_", " ").replace("-", " ").strip().capitalize()
