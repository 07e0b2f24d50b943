"""Errors of the character services: rule errors per field, stale versions."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from characters.sheetform import msg
from rules.base import FieldError, Msg


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------
class SheetInvalid(ValidationError):
    """Field errors from the rules engine, keyed by dotted path ("" = whole sheet)."""

    def __init__(self, errors: list[FieldError]):
        self.field_errors = list(errors)
        grouped: dict[str, list[str]] = {}
        for e in self.field_errors:
            grouped.setdefault(e.path or "__all__", []).append(msg(e.message))
        super().__init__(grouped)


class VersionConflict(ValidationError):
    """Someone saved the sheet since the form was opened (optimistic check)."""

    def __init__(self, expected: int, current: int):
        self.expected, self.current = expected, current
        super().__init__(
            {
                "__all__": [
                    _(
                        "This sheet was changed by someone else while you were editing it "
                        "(you started from version %(expected)s, it is now version %(current)s). "
                        "Your edit was not saved: reload the page to see the changes, then apply yours again."
                    )
                    % {"expected": expected, "current": current}
                ]
            },
            code="version_conflict",
        )


def _error(path: str, code: str, fr: str, en: str) -> FieldError:
    return FieldError(path, code, Msg(fr, en))
