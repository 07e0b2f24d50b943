"""Detectors for developer leftovers in rendered pages (used by the demo crawl test)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Text of a page that a reader sees: element text and a few attributes, not
# scripts, styles, code blocks or form values the user typed.
_SKIP_TAGS = {"script", "style", "code", "pre", "textarea", "svg", "template"}
_TEXT_ATTRS = ("title", "aria-label", "alt", "placeholder")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.links: list[str] = []
        self._skip = 0
        self._user = 0  # inside user-written content (posts, descriptions)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in _SKIP_TAGS:
            self._skip += 1
        if tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")
        for name in _TEXT_ATTRS:
            if a.get(name):
                self.chunks.append(a[name] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.chunks.append(data.strip())


def visible_text(html: str) -> tuple[list[str], list[str]]:
    parser = _TextExtractor()
    parser.feed(html)
    return parser.chunks, parser.links


PATTERNS: dict[str, re.Pattern[str]] = {
    "line reference": re.compile(r"\(L\d{2,5}(?:[-–]L?\d+)?\)|\bL\d{3,5}\b"),
    "python repr": re.compile(r"\{'[a-z_]+': |\['[^']*', '|<[A-Za-z]+ object at 0x|\bQuerySet\b|\(\('"),
    "raw json": re.compile(r'\{"[a-z_]+": |\[\{"'),
    "None/True/False": re.compile(r"(?:[=:(\[]\s*(?:None|True|False)(?=$|[\s,.;)\]]))|^(?:True|False)$"),
    "snake_case key": re.compile(r"(?<![\w./@#:=-])[a-z]+_[a-z_]+(?![\w./@(-])"),
}

# Words that give away a page in the other language. Short, unambiguous
# words only ("page", "action", "total", "note" are both French and English).
ENGLISH_ONLY = frozenset(
    """the and with your you this that from which none yes edit save delete cancel back new players player
    character characters approved submitted rejected pending draft closed open name key default means
    skill skills level formula weapon weapons remaining attribute attributes history
    print show hide send posts reply thread threads board boards members member campaign campaigns
    settings sheet search results result turn wounds wound spent left only seen by
    status created updated sign login logout password account profile language""".split()
)
FRENCH_ONLY = frozenset(
    """les des une avec pour dans sur est sont vous votre vos aucun aucune personnage personnages joueur
    joueuse joueurs campagne campagnes fil fils supprimer annuler retour nouveau nouvelle
    enregistrer envoyer afficher masquer historique imprimer valider refuser approuvé approuvée soumis
    brouillon fermé fermée ouvert ouverte nom clé défaut niveau compétence compétences arme armes restants
    restant réglages fiche recherche résultat blessure blessures statut créé connexion déconnexion
    compte profil langue également""".split()
)
_WORD_RE = re.compile(r"[A-Za-zÀ-ÿ']+")


def foreign_words(text: str, page_lang: str) -> list[str]:
    """Words of ``text`` that belong to the other language."""
    vocabulary = ENGLISH_ONLY if page_lang == "fr" else FRENCH_ONLY
    return [w for w in _WORD_RE.findall(text) if w.lower() in vocabulary]
