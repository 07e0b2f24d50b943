"""Markdown is rendered safely: no script, no event handler, no javascript: URL survives."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from campaigns.markup import find_mentions, quote_markdown, render_markdown

XSS_PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<iframe src=javascript:alert(1)></iframe>",
    "[clique](javascript:alert(1))",
    "[clique](JaVaScRiPt:alert(1))",
    "[clique](  javascript:alert(1))",
    "[clique](&#106;avascript:alert(1))",
    "[clique](java\tscript:alert(1))",
    "[clique](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[clique](vbscript:msgbox(1))",
    "![img](javascript:alert(1))",
    '![img](x" onerror="alert(1))',
    "<a href='javascript:alert(1)'>x</a>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    "<body onload=alert(1)>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<details open ontoggle=alert(1)>",
    "``<script>alert(1)</script>``",
    "<<script>script>alert(1)<</script>/script>",
    '[a](https://ok.example/" onmouseover="alert(1))',
    "<object data=javascript:alert(1)>",
    "<form action=javascript:alert(1)><button>x</button></form>",
    "<input autofocus onfocus=alert(1)>",
    '<a href="&#x6A;avascript:alert(1)">x</a>',
    "[x]: javascript:alert(1)\n\n[ref][x]",
]

ALLOWED_TAGS = {
    "p", "br", "hr", "em", "strong", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "span", "img",
}  # fmt: skip


class TagCollector(HTMLParser):
    """The real tags and attributes of the output (not text that looks like them)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def assert_safe(html: str) -> None:
    parser = TagCollector()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag in ALLOWED_TAGS, (tag, html)
        for name, value in attrs:
            assert not name.startswith("on"), (name, html)
            assert name != "style", html
            if name in ("href", "src", "action", "data"):
                scheme = re.sub(r"[\x00-\x20]", "", value or "").lower()
                assert not scheme.startswith(("javascript:", "vbscript:", "data:")), (value, html)


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_it_neutralises_xss_payloads(payload: str) -> None:
    html = render_markdown(payload, mentionable=["mj"])
    assert_safe(html)
    assert "<script" not in html.lower()


def test_the_checker_would_catch_a_dangerous_output() -> None:
    with pytest.raises(AssertionError):
        assert_safe('<a href="javascript:alert(1)">x</a>')
    with pytest.raises(AssertionError):
        assert_safe('<img src="x" onerror="alert(1)">')


def test_it_keeps_ordinary_markdown() -> None:
    html = render_markdown("**gras** *italique* ~~barré~~\n\n> citation\n\n- a\n- b\n\n[lien](https://example.org)")
    assert "<strong>gras</strong>" in html
    assert "<em>italique</em>" in html
    assert "<del>barré</del>" in html or "<s>barré</s>" in html
    assert "<blockquote>" in html
    assert "<li>a</li>" in html
    assert 'href="https://example.org"' in html
    assert 'rel="nofollow noopener noreferrer"' in html


def test_it_highlights_known_mentions_only_outside_code() -> None:
    html = render_markdown("Salut @mj et @inconnu, `@mj`", mentionable=["mj"])
    assert '<span class="mention">@mj</span>' in html
    assert "@inconnu" in html and 'class="mention">@inconnu' not in html
    assert "<code>@mj</code>" in html


def test_it_finds_mentions() -> None:
    assert find_mentions("bonjour @joueuse et @mj. mail a@b.fr") == {"joueuse", "mj"}


def test_it_quotes_a_post() -> None:
    assert quote_markdown("ligne 1\nligne 2", "Iris") == "> **Iris**\n> ligne 1\n> ligne 2\n\n"
