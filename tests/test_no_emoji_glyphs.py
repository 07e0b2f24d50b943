"""No page depends on an emoji font (issue #23: "give the 🎲 glyph a text alternative that
does not depend on an emoji font"): templates and the apps' code name no pictographic emoji
(U+1F000–U+1FAFF). Symbols of the fonts every system ships (✓ ✘ ⚠ ⚑ ☰ ✕) stay allowed;
a picture is an image with a text alternative (``static/img/die.svg``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EMOJI = re.compile("[\U0001f000-\U0001faff]")
SCANNED = ("templates", "static/js", "rules", "config", "accounts", "live", "campaigns", "characters", "combat")
SCANNED += ("progression", "rhythm", "moderation", "api", "systems")


def _offenders() -> list[str]:
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in (".html", ".py", ".js", ".txt") or "tests" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if EMOJI.search(line):
                    out.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return out


def test_the_scan_sees_an_emoji() -> None:
    assert EMOJI.search("🎲 3") and EMOJI.search("🔒") and not EMOJI.search("✓ ⚠ ☰ ✕")


def test_no_page_needs_an_emoji_font() -> None:
    found = _offenders()
    assert not found, "\n".join(found)
