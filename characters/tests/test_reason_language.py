"""A sheet version's reason reads in the reader's language, placeholders included (#23)."""

from __future__ import annotations

import pytest
from django.utils import translation

from characters.views.history import _reason_in_reader_language


@pytest.mark.parametrize(
    ("stored", "fr", "en"),
    [
        ("brouillon enregistré", "brouillon enregistré", "draft saved"),
        ("ramené en jeu : Démo : le coup n'était pas mortel", None, "brought back: Démo : le coup n'était pas mortel"),
        ("brought back: oops", "ramené en jeu : oops", "brought back: oops"),
        ("dés de création lancés : 3, 4, 6", "dés de création lancés : 3, 4, 6", "creation dice rolled: 3, 4, 6"),
        ("something a member wrote", "something a member wrote", "something a member wrote"),
    ],
)
def test_it_writes_a_stored_reason_in_the_reader_s_language(stored: str, fr: str | None, en: str) -> None:
    with translation.override("en"):
        assert _reason_in_reader_language(stored) == en
    with translation.override("fr"):
        assert _reason_in_reader_language(stored) == (fr or stored)
