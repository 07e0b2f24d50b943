"""Punctuation that follows the reader's language (a template builtin, see ``TEMPLATES``).

French sets a no-break space before a colon ("Rigidité : souple"); English
does not ("Rigidity: flexible"). Templates write ``{{ label }}{% colon %}{{ value }}``
instead of a literal " : ", which read as a slip on every English page (#23).
"""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

register = template.Library()

NO_BREAK_SPACE = "\u00a0"


def colon_for(language: str | None) -> str:
    """The separator between a label and its value in ``language``."""
    if (language or "fr").split("-")[0] == "fr":
        return NO_BREAK_SPACE + ": "
    return ": "


@register.simple_tag
def colon() -> str:
    return colon_for(get_language())
