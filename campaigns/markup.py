"""Markdown rendering of posts (*mise en forme*): markdown-it-py then nh3.

Raw HTML in the source is escaped by markdown-it (``html=False``); the
rendered HTML is then cleaned by nh3 (ammonia) with a small allow-list, so no
script, no event handler attribute and no ``javascript:``/``data:`` URL
survives, whatever the parser does. Links get ``rel="nofollow noopener
noreferrer"``. Mentions (``@username``) of known members become highlighted
spans after cleaning (the username is escaped).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

import nh3
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True})
_md.enable(["table", "strikethrough"])

ALLOWED_TAGS = {
    "p", "br", "hr", "em", "strong", "del", "s", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td", "span", "img",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
    "code": {"class"},
}
URL_SCHEMES = {"http", "https", "mailto"}

MENTION_RE = re.compile(r"(?<![\w@/.])@([\w.+-]{2,150})")
_TAG_SPLIT_RE = re.compile(r"(<[^>]*>)")


def find_mentions(text: str) -> set[str]:
    """Usernames mentioned as ``@username`` in a Markdown source."""
    return {name.rstrip(".") for name in MENTION_RE.findall(text or "")}


def sanitize(raw_html: str) -> str:
    """Clean HTML with the allow-list (the last line of defence)."""
    return nh3.clean(
        raw_html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="nofollow noopener noreferrer",
        strip_comments=True,
    )


def _highlight_mentions(cleaned: str, usernames: set[str]) -> str:
    if not usernames:
        return cleaned
    lowered = {u.lower() for u in usernames}
    out: list[str] = []
    in_code = 0
    in_link = 0
    for part in _TAG_SPLIT_RE.split(cleaned):
        if part.startswith("<"):
            tag = part[1:].lstrip("/").split(" ", 1)[0].split(">", 1)[0].lower()
            closing = part.startswith("</")
            if tag in ("code", "pre"):
                in_code += -1 if closing else 1
            elif tag == "a":
                in_link += -1 if closing else 1
            out.append(part)
            continue
        if in_code > 0 or in_link > 0:
            out.append(part)
            continue

        def repl(match: re.Match[str]) -> str:
            name = match.group(1).rstrip(".")
            if name.lower() not in lowered:
                return match.group(0)
            rest = match.group(1)[len(name) :]
            return f'<span class="mention">@{html.escape(name)}</span>{rest}'

        out.append(MENTION_RE.sub(repl, part))
    return "".join(out)


def render_markdown(text: str, *, mentionable: Iterable[str] = ()) -> str:
    """Markdown source → safe HTML."""
    cleaned = sanitize(_md.render(text or ""))
    return _highlight_mentions(cleaned, set(mentionable))


def quote_markdown(text: str, author: str) -> str:
    """A Markdown quotation of a post, for the reply box."""
    lines = (text or "").strip().splitlines() or [""]
    quoted = "\n".join("> " + line for line in lines)
    return f"> **{author}**\n{quoted}\n\n"
