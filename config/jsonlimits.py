"""Input depth is bounded before any recursive work.

:func:`check_json_depth` bounds the nesting of a JSON document before it is
parsed (API bodies through :class:`BoundedJSONParser`, JSON fields of forms
through :func:`loads`), so a sheet nested 500 levels deep is refused at once
with a clear 400 instead of costing seconds of recursive validation or a
RecursionError. The limit is ``TABLEE_MAX_JSON_DEPTH`` (32 by default; a
character sheet nests fewer than 6 levels).
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import APIException
from rest_framework.parsers import JSONParser


class JSONTooDeep(ValueError):
    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit

    def message(self) -> str:
        return _("This JSON document is nested too deeply (more than %(limit)s levels).") % {"limit": self.limit}


def max_json_depth() -> int:
    return int(getattr(settings, "TABLEE_MAX_JSON_DEPTH", 32))


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def check_json_depth(text: str | bytes, limit: int | None = None) -> None:
    """Raise :class:`JSONTooDeep` if ``text`` nests arrays/objects deeper than ``limit``.

    Linear and without recursion, before anything parses the document:
    strings are blanked out (brackets inside them do not count), then only
    the brackets are walked.
    """
    limit = max_json_depth() if limit is None else limit
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    depth = 0
    for byte in brackets:
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                raise JSONTooDeep(limit)
        else:
            depth -= 1


def loads(text: str | bytes) -> Any:
    """``json.loads`` after :func:`check_json_depth` (:class:`JSONTooDeep` is a ``ValueError``)."""
    check_json_depth(text)
    return json.loads(text)


class JSONTooDeepError(APIException):
    """400 ``too_deep``: the body nests deeper than ``TABLEE_MAX_JSON_DEPTH`` (its own message kept)."""

    status_code = 400
    default_code = "too_deep"


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing documents nested too deeply before parsing them."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict[str, Any] | None = None) -> Any:
        data = stream.read() if stream is not None else b""
        try:
            check_json_depth(data)
        except JSONTooDeep as exc:
            raise JSONTooDeepError(exc.message()) from exc
        return super().parse(io.BytesIO(data), media_type, parser_context)
