"""URL converters shared by every app."""

from __future__ import annotations


class IdConverter:
    """A database id: 1 to 18 digits. Longer numbers are not ids (404),
    instead of overflowing the database integer (a server error)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
