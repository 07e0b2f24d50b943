"""Seed line references are data for the GM's rules reference, never player text."""

from __future__ import annotations

from rules import available_systems
from rules.base import Field, Msg, field_refs, reference_text


def test_it_reads_the_references_of_a_field_s_label_help_and_choices() -> None:
    field = Field(
        "x",
        "choice",
        Msg("Dé (L406)", "Die (L406)"),
        help=Msg("Voir L599-L602.", "See L599-L602."),
        choices=(("a", Msg("A (L41/L418)", "A (L41/L418)")),),
    )
    assert field_refs(field) == ["L406", "L599-L602", "L41/L418"]
    assert field.label.get("fr") == "Dé" and field.help is not None and field.help.get("en") == "See."


def test_it_writes_the_references_in_words_in_both_languages() -> None:
    assert reference_text(["L406"]) == Msg("Texte source, ligne 406", "Source text, line 406")
    assert reference_text(["L599-L602", "L610"]) == Msg(
        "Texte source, lignes 599 à 602, 610", "Source text, lines 599–602, 610"
    )
    assert reference_text(["L41/L418", "L41"]) == Msg("Texte source, lignes 41, 418", "Source text, lines 41, 418")
    assert reference_text(["L246–258"]) == Msg("Texte source, lignes 246 à 258", "Source text, lines 246–258")
    assert reference_text([]) is None


def test_every_system_declares_references_on_some_of_its_fields() -> None:
    for system in available_systems():
        fields = [*system.sheet_fields(), *system.campaign_settings_fields()]
        for kind_fields in system.test_kinds().values():
            fields += kind_fields
        texts = [reference_text(field_refs(f)) for f in fields]
        assert any(texts), system.slug
        for text in filter(None, texts):
            assert "L" not in text.fr.replace("Texte", "") and "line" in text.en
