"""Detectors for developer leftovers in rendered pages (used by the demo crawl test)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlencode

# Text of a page that a reader sees: element text, the labels of form
# controls and the attributes a reader meets (tooltips, accessible names,
# placeholders, confirmations), not scripts, styles or code blocks.
_SKIP_TAGS = {"script", "style", "code", "pre", "svg", "template"}
_TEXT_ATTRS = ("title", "aria-label", "alt", "placeholder", "hx-confirm", "data-confirm", "aria-valuetext")
# Inputs whose ``value`` a reader sees (text the site pre-fills, button captions).
_VISIBLE_VALUE_TYPES = {"text", "search", "submit", "button", "reset", "email", "url", "tel", ""}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: The attribute marking the GM's optional "rules reference" element: seed
#: line references are allowed inside it, and only for GMs.
REF_ATTR = "data-rules-ref"


@dataclass
class Chunk:
    text: str
    in_ref: bool = False  # inside the GM's rules-reference element
    user: bool = False  # a form value (may be what a member typed)


@dataclass
class PageText:
    chunks: list[Chunk] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    fragments: list[str] = field(default_factory=list)  # htmx GET URLs, with the queries a control would send
    refs: int = 0  # rules-reference elements met


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = PageText()
        self._skip = 0
        self._stack: list[tuple[str, bool]] = []  # (tag, opens a rules reference)
        self._ref = 0
        self._select: tuple[str, str] | None = None  # (hx-get URL, name) of an htmx <select>
        self._options: list[str] = []
        self._textarea = False

    def _add(self, text: str, user: bool = False) -> None:
        if text and text.strip():
            self.page.chunks.append(Chunk(text.strip(), in_ref=self._ref > 0, user=user))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v or "") for k, v in attrs}
        opens_ref = REF_ATTR in a
        if opens_ref:
            self.page.refs += 1
            self._ref += 1
        if tag not in _VOID:
            self._stack.append((tag, opens_ref))
        elif opens_ref:
            self._ref -= 1
        if tag in _SKIP_TAGS:
            self._skip += 1
        if tag == "a" and a.get("href"):
            self.page.links.append(a["href"])
        if a.get("hx-get"):
            self.page.fragments.append(a["hx-get"])
            if tag == "select" and a.get("name"):
                self._select = (a["hx-get"], a["name"])
                self._options = []
        if tag == "option" and self._select is not None and a.get("value"):
            self._options.append(a["value"])
        if tag == "optgroup" and a.get("label"):
            self._add(a["label"])
        if tag == "textarea":
            self._textarea = True
        if tag == "input" and a.get("value") and a.get("type", "").lower() in _VISIBLE_VALUE_TYPES:
            self._add(a["value"], user=a.get("type", "").lower() not in {"submit", "button", "reset"})
        if self._skip:
            return
        for name in _TEXT_ATTRS:
            self._add(a.get(name, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS and self._skip:
            self._skip -= 1
        if tag == "textarea":
            self._textarea = False
        if tag == "select" and self._select is not None:
            url, name = self._select
            sep = "&" if "?" in url else "?"
            self.page.fragments += [f"{url}{sep}{urlencode({name: v})}" for v in self._options]
            self._select = None
        # Close up to the matching open tag (HTML lets some end tags be omitted).
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                for _t, opened in self._stack[i:]:
                    if opened:
                        self._ref -= 1
                del self._stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._add(data, user=self._textarea)


def page_text(html: str) -> PageText:
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return parser.page


def visible_text(html: str) -> tuple[list[str], list[str]]:
    page = page_text(html)
    return [c.text for c in page.chunks], page.links


PATTERNS: dict[str, re.Pattern[str]] = {
    "line reference": re.compile(r"\(L\d{2,5}(?:[-–]L?\d+)?\)|\bL\d{2,5}\b"),
    "python repr": re.compile(
        r"\{'[a-z_]+': |\['[^']*', '|<[A-Za-z]+ object at 0x|\bQuerySet\b|\(\('|\bMsg\(|\w+Error\("
    ),
    "raw json": re.compile(r'\{"[a-z_]+": |\[\{"|^\[\]$|^\{\}$'),
    "None/True/False": re.compile(
        r"(?:[=:(\[]\s*(?:None|True|False)(?=$|[\s,.;)\]]))|^(?:None|True|False|null|true|false)$"
    ),
    "range notation": re.compile(r"(?<![.\w])[±-]?\d+\.\.[±-]?\d+"),
    "snake_case key": re.compile(r"(?<![\w./@#:=-])[a-z]+_[a-z_]+(?![\w./@(-])"),
}
# A number written the English way in a French text: "2.5", "1,000" (French: "2,5", "1 000").
FRENCH_NUMBER = re.compile(r"(?<![\w.,/:-])\d+\.\d+(?![\w.]|\.\d)|(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w,])")
ENGLISH_NUMBER = re.compile(r"(?<![\w.,/:-])\d+,\d+(?![\w,])")


def number_format_issue(text: str, page_lang: str) -> str | None:
    """A number written in the other language's format, if any."""
    pattern = FRENCH_NUMBER if page_lang == "fr" else ENGLISH_NUMBER
    match = pattern.search(text)
    return match.group(0) if match else None


# French typography in an English text ("Psyche : 25") and English typography in a French one ("Statut: brouillon").
# After a word only: SMS's module notation "Nom (5) : 2" is the seed's own (L34-46), like "2d6".
_FRENCH_COLON = re.compile(r"[A-Za-z] [:;?!](?=\s|$)")
_ENGLISH_COLON = re.compile(r"[A-Za-zÀ-ÿ)][:;](?=\s)")


def punctuation_issue(text: str, page_lang: str) -> str | None:
    """Punctuation set in the other language's way, if any."""
    pattern = _FRENCH_COLON if page_lang == "en" else _ENGLISH_COLON
    match = pattern.search(text)
    return match.group(0) if match else None


# Words that give away a page in the other language. Short, unambiguous
# words only ("page", "action", "total", "note" are both French and English).
ENGLISH_ONLY = frozenset(
    """the and with your you this that from which none yes edit save delete cancel back new players player
    character characters approved submitted rejected pending draft closed open name key default means
    skill skills level formula weapon weapons remaining attribute attributes history
    print show hide send posts reply thread threads board boards members member campaign campaigns
    settings sheet search results result turn wounds wound spent left only seen by
    status created updated sign login logout password account profile language
    state round rounds attack defence defense damage health hit miss ally enemy enemies side sides
    dead alive unconscious wounded waiting ready done error forbidden found denied refused""".split()
)
FRENCH_ONLY = frozenset(
    """les des une avec pour dans sur est sont vous votre vos aucun aucune personnage personnages joueur
    joueuse joueurs campagne campagnes fil fils supprimer annuler retour nouveau nouvelle
    enregistrer envoyer afficher masquer historique imprimer valider refuser approuvé approuvée soumis
    brouillon fermé fermée ouvert ouverte nom clé défaut niveau compétence compétences arme armes restants
    restant réglages fiche recherche résultat blessure blessures statut créé connexion déconnexion
    compte profil langue également état actif inactif mort morte vivant blessé blessée
    dégâts camp camps allié alliés ennemi ennemis attaque défense introuvable refusé erreur""".split()
)
_WORD_RE = re.compile(r"[A-Za-zÀ-ÿ']+")


def foreign_words(text: str, page_lang: str) -> list[str]:
    """Words of ``text`` that belong to the other language."""
    vocabulary = ENGLISH_ONLY if page_lang == "fr" else FRENCH_ONLY
    return [w for w in _WORD_RE.findall(text) if w.lower() in vocabulary]
