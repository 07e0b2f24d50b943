"""Bilingual messages (:class:`Msg`), seed line references, field errors.

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

JSON = Any
Lang = Literal["fr", "en"]


# --------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------
@dataclass(frozen=True, init=False)
class Msg:
    """A bilingual message (French first: it is the default language)."""

    fr: str
    en: str

    def __init__(self, fr: str, en: str) -> None:
        # A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``;
        # writing the instance dict is the same result at half the cost (a result builds several).
        d = self.__dict__
        d["fr"] = fr
        d["en"] = en

    def get(self, lang: str = "fr") -> str:
        """The text for a reader: seed line references ("(L406)") removed.

        References belong to docstrings and to the GM's optional "rules
        reference" (``refs()``), never to player text."""
        return strip_line_refs(self.raw(lang))

    def raw(self, lang: str = "fr") -> str:
        """The text as written, line references included."""
        return self.en if (lang or "fr").startswith("en") else self.fr

    def refs(self) -> list[str]:
        """The seed line references cited by this message ("L406", "L599-L602")."""
        return line_refs(self.fr) or line_refs(self.en)

    def format(self, **kwargs: Any) -> Msg:
        return Msg(self.fr.format(**kwargs), self.en.format(**kwargs))

    def to_dict(self) -> dict[str, str]:
        return {"fr": self.get("fr"), "en": self.get("en")}

    def __eq__(self, other: object) -> bool:
        # Any two messages with the same texts are equal, a :class:`LazyMsg` written or not.
        if isinstance(other, Msg):
            return self.fr == other.fr and self.en == other.en
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.fr, self.en))


class LazyMsg(Msg):
    """A :class:`Msg` whose texts are written the first time one is read.

    A rules call builds a summary for every result; most results are read as numbers (a bench, a
    replay, a bulk job) and only a few are shown. ``render(*args)`` returns ``(fr, en)``; it must be
    a plain function of its arguments (module level, so a result still pickles). Equal to the
    :class:`Msg` it renders to."""

    def __init__(self, render: Callable[..., tuple[str, str]], *args: Any) -> None:
        d = self.__dict__
        d["_render"] = render
        d["_args"] = args

    def __getattr__(self, name: str) -> str:
        # Called only while ``fr``/``en`` are not yet in the instance dict.
        if name != "fr" and name != "en":
            raise AttributeError(name)
        d = self.__dict__
        if "_render" not in d:  # being unpickled or copied: no texts yet
            raise AttributeError(name)
        d["fr"], d["en"] = d["_render"](*d["_args"])
        return d[name]  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (Msg, (self.fr, self.en))  # a copy or a pickle is the written message


_REF = r"L\d{2,5}(?:\s?[-–/]\s?L?\d{2,5})*"
_REF_RE = re.compile(_REF)
_PAREN_RE = re.compile(r"\s*\(([^()]*)\)")
_BARE_RE = re.compile(
    r"(?:\b(?:at|see|cf\.|note|footnote|example|exemple|voir|en)\s+)?\b" + _REF + r"\b(?:\s+literal|\s+littéral)?"
)


def line_refs(text: str) -> list[str]:
    """Seed line references ("L406", "L599-L602") cited in ``text``."""
    return _REF_RE.findall(text or "")


@lru_cache(maxsize=8192)
def strip_line_refs(text: str) -> str:
    """``text`` without its seed line references.

    "(L406)" disappears; "(GM, L456)" keeps "(GM)"; a parenthesis made only
    of references and their glue words ("footnote L655-L665", "L434
    literal") disappears; a bare "L173." or "at L583" is removed and the
    punctuation around it tidied."""
    if not text or not _REF_RE.search(text):
        return text

    def paren(match: re.Match[str]) -> str:
        parts = [p for p in re.split(r"\s*[,;]\s*", match.group(1)) if p.strip()]
        kept = [p for p in parts if not _REF_RE.search(p)]
        if len(kept) == len(parts):
            return match.group(0)
        return f" ({', '.join(kept)})" if kept else ""

    out = _PAREN_RE.sub(paren, text)
    out = _BARE_RE.sub("", out)
    out = re.sub(r"^\s*[:.,;/]+\s*", "", out)
    out = re.sub(r"\s+([.,])", r"\1", out)
    out = re.sub(r"([.,;:])[.,;:/]+", r"\1", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    if out in {".", ":", ";", ","}:
        return ""
    if out and out[0].islower() and _REF_RE.match(text.lstrip()):
        out = out[0].upper() + out[1:]  # "L456: rarely allowed." → "Rarely allowed."
    return out


@dataclass(frozen=True)
class FieldError:
    """A validation error attached to a dotted path of the sheet or request.

    ``path`` is ``""`` for errors about the whole object. ``code`` is stable
    and machine-readable (the API exposes it), ``message`` is for people.
    """

    path: str
    code: str
    message: Msg

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "code": self.code}
        if lang:
            data["message"] = self.message.get(lang)
        else:
            data["message"] = self.message.to_dict()
        return data


class RulesError(ValueError):
    """Raised when a request cannot be resolved; carries field errors."""

    def __init__(self, errors: Sequence[FieldError]):
        self.errors = list(errors)
        super().__init__("; ".join(f"{e.path}: {e.message.en}" for e in self.errors))


def error(path: str, code: str, fr: str, en: str, **fmt: Any) -> FieldError:
    """Shorthand to build a :class:`FieldError` with a formatted message."""
    return FieldError(path, code, Msg(fr, en).format(**fmt) if fmt else Msg(fr, en))
