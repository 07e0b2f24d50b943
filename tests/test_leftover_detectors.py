"""The crawl's detectors find what they must (and the rules reference is told apart)."""

from __future__ import annotations

from tests.leftovers import PATTERNS, foreign_words, number_format_issue, page_text, punctuation_issue


def _hits(text: str) -> list[str]:
    return [name for name, pattern in PATTERNS.items() if pattern.search(text)]


def test_it_reads_form_controls_and_the_attributes_a_reader_meets() -> None:
    page = page_text(
        '<select name="a"><optgroup label="Armes"><option value="x">Épée</option></optgroup></select>'
        '<input type="text" value="None"><input type="submit" value="Save"><input type="hidden" value="secret_key">'
        '<button hx-confirm="Delete it?" aria-label="Close">×</button><img alt="Dé"><textarea>{"a": 1}</textarea>'
    )
    texts = [c.text for c in page.chunks]
    assert {"Armes", "Épée", "None", "Save", "Delete it?", "Close", "Dé", '{"a": 1}'} <= set(texts)
    assert "secret_key" not in texts
    assert [c.user for c in page.chunks if c.text in ("None", '{"a": 1}', "Save")] == [True, False, True]


def test_it_collects_htmx_fragments_with_the_query_each_option_sends() -> None:
    page = page_text(
        '<div hx-get="/x/badge/"></div><select name="test_kind" hx-get="/c/roll-fields/">'
        '<option value="">—</option><option value="action">A</option><option value="fall">B</option></select>'
    )
    assert page.fragments == [
        "/x/badge/",
        "/c/roll-fields/",
        "/c/roll-fields/?test_kind=action",
        "/c/roll-fields/?test_kind=fall",
    ]


def test_it_tells_the_rules_reference_apart() -> None:
    page = page_text(
        '<p>Score</p><details class="rules-ref" data-rules-ref><summary>§</summary><span>L95</span></details>'
        "<p>Après</p>"
    )
    assert [(c.text, c.in_ref) for c in page.chunks] == [("Score", False), ("§", True), ("L95", True), ("Après", False)]
    assert page.refs == 1


def test_it_finds_leftovers() -> None:
    assert _hits("Score (L95)") == ["line reference"]
    assert _hits("{'a': 1}") == ["python repr"]
    assert _hits('[{"a": 1}]') == ["raw json"]
    assert _hits("None") == ["None/True/False"]
    assert _hits("wound_points") == ["snake_case key"]
    assert _hits("Circonstances (±1..±3 chacune)") == ["range notation"]
    assert _hits("Blessures : 2") == []
    assert foreign_words("État : active", "en") == ["État"]
    assert foreign_words("Status: dead", "fr") == ["Status", "dead"]
    assert number_format_issue("Poids 2.5 kg", "fr") == "2.5"
    assert number_format_issue("1,000 points", "fr") == "1,000"
    assert number_format_issue("Poids 2,5 kg", "fr") is None
    assert number_format_issue("Weight 2,5", "en") == "2,5"
    assert number_format_issue("2d6+3, 12:30, v1.2", "fr") is None
    assert punctuation_issue("Psyche : 25", "en") == "e :"
    assert punctuation_issue("Statut: brouillon", "fr") == "t:"
    assert punctuation_issue("Psyché : 25 ; 12:30", "fr") is None and punctuation_issue("Psyche: 25", "en") is None


def test_it_knows_the_stored_values_that_must_be_shown_by_their_label() -> None:
    from tests.test_demo_leftovers import _machine_words

    fr, en = _machine_words("fr"), _machine_words("en")
    assert "active" in fr and "out_of_combat" in fr and "allies" in fr  # "État : active" fails in French
    assert "out_of_combat" in en and "created" not in en  # "created" is an English label (a version's reason)


def test_no_form_shows_django_s_dashed_empty_choice() -> None:
    """A blank choice reads as a word or a dash, never Django's "---------" (#23)."""
    import importlib
    from pathlib import Path

    from django import forms

    root = Path(__file__).resolve().parent.parent
    for path in root.glob("*/forms.py"):
        module = importlib.import_module(f"{path.parent.name}.forms")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, forms.BaseForm) and value is not forms.Form:
                for name, field in getattr(value, "base_fields", {}).items():
                    label = getattr(field, "empty_label", None)
                    assert label != "---------", f"{path.parent.name}.{value.__name__}.{name}"
