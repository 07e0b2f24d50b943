"""The API's JSON parser: JSON, and no NUL character in any string.

PostgreSQL refuses ``\\u0000`` in text and ``jsonb`` (a server error at save
time); the form fields refuse it already (Django's
``ProhibitNullCharactersValidator``), JSON documents (sheets, system tests,
declarations) are checked here, once for every route.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions

from config.jsonlimits import BoundedJSONParser

#: How deep a document may nest before it is refused (a 1,000-deep list is no sheet).
MAX_DEPTH = 64


def nul_path(value: Any, prefix: str = "", depth: int = 0) -> str | None:
    """The dotted path of the first string (or key) holding a NUL character, else ``None``."""
    if depth > MAX_DEPTH:
        return prefix
    if isinstance(value, str):
        return prefix if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if "\x00" in str(key):
                return prefix
            found = nul_path(item, path, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = nul_path(item, f"{prefix}.{index}" if prefix else str(index), depth + 1)
            if found is not None:
                return found
    return None


class StrictJSONParser(BoundedJSONParser):
    """The depth-bounded parser (:class:`config.jsonlimits.BoundedJSONParser`) that also answers
    400 (field ``path``, code ``null_characters_not_allowed``)
    for a NUL character anywhere in the document."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        path = nul_path(data)
        if path is not None:
            message = exceptions.ErrorDetail(str(_("Null characters are not allowed.")), "null_characters_not_allowed")
            raise exceptions.ValidationError({path: [message]})
        return data
