"""Label/value punctuation follows the reader's language (#23): French
"Rigidité : souple" (no-break space), English "Rigidity: flexible"."""

from __future__ import annotations

import re
from pathlib import Path

from django.template import Context, Template
from django.utils import translation

from config.typography import colon_for

ROOT = Path(__file__).resolve().parent.parent


def test_the_colon_tag_follows_the_active_language() -> None:
    template = Template("{{ label }}{% colon %}{{ value }}")
    with translation.override("fr"):
        assert template.render(Context({"label": "Rigidité", "value": "souple"})) == "Rigidité\u00a0: souple"
    with translation.override("en"):
        assert template.render(Context({"label": "Rigidity", "value": "flexible"})) == "Rigidity: flexible"
    assert colon_for(None) == "\u00a0: "
    assert colon_for("en-gb") == ": "


def test_no_template_writes_a_french_colon_that_english_pages_would_show() -> None:
    offenders = []
    for path in ROOT.glob("*/**/templates/**/*.html"):
        rel = path.relative_to(ROOT).parts
        if any(part.startswith(".") or part == "site-packages" for part in rel):
            continue  # virtualenvs and caches (.venv, .ci/cache): other projects' templates
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = re.sub(r"\{#.*?#\}", "", line)
            if "blocktranslate" in code:  # a translated sentence carries its own punctuation
                continue
            # " : " reads French on an English page; "</a>:" reads English on a French one.
            if re.search(r"[a-z}>] : ", code) or re.search(r"(</a>|</strong>|%\}):( |$)", code):
                offenders.append(f"{path.relative_to(ROOT)}:{n}")
    assert not offenders, offenders
