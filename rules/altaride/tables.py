"""Rule tables of Mythe d'Altaride, Édition Action 2.1, as data.

Line references (``L55``) are 1-based lines of the seed
``shared/seeds/004_82be985d1ac26aab.txt``. The seed announces four tables whose
bodies are missing (spec A1): the talent and skill-level cost tables are
DERIVED here from the stated formulas (L59, L79); the skill list and the
weapons table are not reconstructible and come from GM-edited campaign
catalogues (see :mod:`rules.altaride.schema`), never from invented numbers.
"""

from __future__ import annotations

from rules.base import Msg

# ---------------------------------------------------------------------------
# Domains and talents (Domaines, Talents) L27-L47; grouping by list order (A3).
# ---------------------------------------------------------------------------
#: Domain code -> its three talent codes ("3 premières lettres", L89; GÉN stored GEN).
DOMAINS: dict[str, tuple[str, str, str]] = {
    "PHYSIQUE": ("HAB", "PER", "VIG"),
    "MENTAL": ("ESP", "GEN", "SCI"),
    "SOCIAL": ("AFF", "DOM", "EXP"),
    "OCCULTE": ("INC", "MAN", "RUN"),
}

DOMAIN_LABELS: dict[str, Msg] = {
    "PHYSIQUE": Msg("Physique", "Physical"),
    "MENTAL": Msg("Mental", "Mental"),
    "SOCIAL": Msg("Social", "Social"),
    "OCCULTE": Msg("Occulte", "Occult"),
}

TALENTS: tuple[str, ...] = tuple(t for trio in DOMAINS.values() for t in trio)

TALENT_LABELS: dict[str, Msg] = {
    "HAB": Msg("Habileté", "Dexterity"),
    "PER": Msg("Perception", "Perception"),
    "VIG": Msg("Vigueur", "Vigour"),
    "ESP": Msg("Esprit", "Wits"),
    "GEN": Msg("Génie", "Genius"),
    "SCI": Msg("Science", "Science"),
    "AFF": Msg("Affection", "Affection"),
    "DOM": Msg("Domination", "Domination"),
    "EXP": Msg("Expression", "Expression"),
    "INC": Msg("Incantation", "Incantation"),
    "MAN": Msg("Manipulations", "Manipulations"),
    "RUN": Msg("Runes", "Runes"),
}

TALENT_DOMAIN: dict[str, str] = {t: d for d, trio in DOMAINS.items() for t in trio}

# ---------------------------------------------------------------------------
# Endurance pools (Endurances) L113-L120. EL comes from the *Social* domain.
# ---------------------------------------------------------------------------
POOLS: tuple[str, ...] = ("EP", "EM", "EL", "EO")
POOL_DOMAIN: dict[str, str] = {"EP": "PHYSIQUE", "EM": "MENTAL", "EL": "SOCIAL", "EO": "OCCULTE"}
POOL_LABELS: dict[str, Msg] = {
    "EP": Msg("Endurance Physique", "Physical Endurance"),
    "EM": Msg("Endurance Mentale", "Mental Endurance"),
    "EL": Msg("Endurance Lucidité", "Lucidity Endurance"),
    "EO": Msg("Endurance Occulte", "Occult Endurance"),
}

# ---------------------------------------------------------------------------
# Creation (Création) L51, L55, L63, L77, L83, L126, L144.
# ---------------------------------------------------------------------------
CREATION_TOTAL = 4500  # L51 "un capital de 4500 points"
CREATION_TALENT_POOL = 4000  # L51 "4000 points ... exclusivement réservés à l'augmentation des Talents"
CREATION_OTHER_POOL = 500  # L51 "Les 500 autres points"
TALENT_BASE = 5  # L63 "Le score de base est automatiquement de 5" (A2)
TALENT_CREATION_MIN = 5  # L55 "entre 5 et 15"
TALENT_CREATION_MAX = 15  # L55, L63
TALENT_ANTHROPOID_MAX = 20  # L55, L63 "limité à 20 pour les créatures antropoïdes"
SKILL_CREATION_MAX_LEVEL = 15  # L83 "la phase de création le limite à 15"
SKILL_CREATION_MAX_CR = 15  # L77 "impossible de dépasser un score de Chances de réussite de 15"
SCRUPLES_BASE = 10  # L126
SCRUPLES_MIN, SCRUPLES_MAX = 1, 20  # L124 "notée sur 20" (bounds: A37)

# ---------------------------------------------------------------------------
# Prices (L59, L79, L115, L126, L140-L144, L157-L161, L217, L221, L223).
# ---------------------------------------------------------------------------
TALENT_STEP_FACTOR = 5  # L59/L220: step to t costs 5 x t
ENDURANCE_POINT_COST = 2  # L115
SCRUPLES_POINT_COST = 1  # L126
SCHOOL_ACCESS_COST = 100  # L140, L144, L218
SORCIERS_ACCESS_COST = 0  # L142
MAGIC_LEVEL_FACTOR = 10  # L157
ELEMENT_LEVEL_FACTOR = 5  # L159
MAGIC_LEVEL_MAX = 10  # L157 "Toutes les Écoles possèdent 10 niveaux"
DEFAULT_GRIMOIRE_LEVEL = 5  # L161 "reçoit un grimoire de niveau 5"
CAPACITY_LEVEL_FACTOR = 5  # L221 "niveau x 5"
DIE_LOWERING_COST = 1  # L217 "un point d'Expérience permet de baisser de 1 point le score du dé"
SESSION_AWARD_MIN, SESSION_AWARD_MAX = 15, 50  # L213
NATURAL_ONE_XP = 1  # L101, L213

# ---------------------------------------------------------------------------
# Resolution (L97-L109, L119, L173-L181, L185-L204).
# ---------------------------------------------------------------------------
DIE = 20
NATURAL_CRIT_SUCCESS = 1  # L101
NATURAL_CRIT_FAILURE = 20  # L100
STUN_DIE_MODIFIER = 1  # L185 "le jet de dé est donc majoré de 1 point"
VIG_MIN_MALUS_PER_POINT = 5  # L204
DAMAGE_EXTRA_LIMIT = 1  # L196 "Chacun de ces bonus/malus ne peut excéder 1 point"
OBJECT_RUNES_SCORE = 10  # L181 "Un objet normal possède un score en Runes de 10"
DEATH_THRESHOLD = -5  # L117 "meurt à -5"
MADNESS_THRESHOLD = -5  # L118 "S'il tombe à -5 ou pire"
EL_REGEN_PER_ROUND = 1  # L119

OUTCOMES: dict[str, Msg] = {
    "crit_success": Msg("réussite critique", "critical success"),
    "success": Msg("réussite", "success"),
    "failure": Msg("échec", "failure"),
    "crit_failure": Msg("échec critique", "critical failure"),
}

SKILL_CATEGORIES: tuple[tuple[str, Msg], ...] = (
    ("intellectuelle", Msg("Intellectuelle", "Intellectual")),
    ("guerriere", Msg("Guerrière", "Martial")),
    ("corporelle", Msg("Corporelle", "Physical")),
    ("relationnelle", Msg("Relationnelle", "Social")),
)  # L87

DAMAGE_TYPES: tuple[tuple[str, Msg], ...] = (
    ("physique", Msg("Physique (blesser)", "Physical (wound)")),
    ("lucidite", Msg("Lucidité (assommer)", "Lucidity (stun)")),
)  # L185

# ---------------------------------------------------------------------------
# Schools of sorcery (Écoles de Sorcellerie) L146-L153.
# ---------------------------------------------------------------------------
SCHOOLS: dict[str, Msg] = {
    "elementalistes": Msg("Élémentalistes", "Elementalists"),
    "enchanteurs": Msg("Enchanteurs", "Enchanters"),
    "pretres": Msg("Prêtres", "Priests"),
    "seigneur_de_la_guerre": Msg("Seigneur de la Guerre", "Warlords"),
    "mages_aventuriers": Msg("Mages-aventuriers", "Adventurer-mages"),
    "sorciers": Msg("Sorciers", "Sorcerers"),
}
ELEMENTALISTS = "elementalistes"
SORCIERS = "sorciers"  # no magic levels (L157), guild spells instead (L165-L169)

ELEMENTS: dict[str, Msg] = {
    "eau": Msg("Eau", "Water"),
    "air": Msg("Air", "Air"),
    "terre": Msg("Terre", "Earth"),
    "feu": Msg("Feu", "Fire"),
    "tenebres": Msg("Ténèbres", "Darkness"),
}  # L148


def school_access_cost(school: str) -> int:
    """Price of joining a school: 100 XP, Sorciers 0 (L140, L142, L144)."""
    return SORCIERS_ACCESS_COST if school == SORCIERS else SCHOOL_ACCESS_COST


# ---------------------------------------------------------------------------
# Cost formulas (DERIVED tables, spec §3.4).
# ---------------------------------------------------------------------------
def talent_step_cost(new_score: int) -> int:
    """XP to raise a talent from ``new_score - 1`` to ``new_score``: 5 x new score (L59, L220)."""
    return TALENT_STEP_FACTOR * new_score


def talent_cost(from_score: int, to_score: int) -> int:
    """XP to raise a talent from ``from_score`` to ``to_score`` (0 if not higher), spec §3.4.1."""
    return sum(talent_step_cost(t) for t in range(from_score + 1, to_score + 1))


def skill_step_cost(new_level: int) -> int:
    """XP to raise a skill level to ``new_level``: the level sought (L79, L219)."""
    return new_level


def skill_cost(from_level: int, to_level: int) -> int:
    """XP from ``from_level`` to ``to_level``, spec §3.4.3 (0 → 15 = 120)."""
    return sum(skill_step_cost(n) for n in range(from_level + 1, to_level + 1))


def magic_level_step_cost(level: int, elemental: bool = False) -> int:
    """XP for magic level ``level`` (>= 2): 10 x level, or 5 x level per element (L157, L159).

    Level 1 comes with school access (A30): it is not priced here (returns 0).
    """
    if level <= 1:
        return 0
    return (ELEMENT_LEVEL_FACTOR if elemental else MAGIC_LEVEL_FACTOR) * level


def magic_level_cost(from_level: int, to_level: int, elemental: bool = False) -> int:
    """Cumulative magic level cost (1 → 10 = 540; per element 270), spec §3.4.4."""
    return sum(magic_level_step_cost(n, elemental) for n in range(from_level + 1, to_level + 1))


def capacity_cost(level: int) -> int:
    """XP for a capacity of level N: 5 x N (L221)."""
    return CAPACITY_LEVEL_FACTOR * level


def aptitude_step_cost(new_level: int, level1_cost: int) -> int:
    """XP for aptitude level ``new_level``: P1 (external table) for level 1, then n (L223)."""
    return level1_cost if new_level == 1 else new_level


def aptitude_cost(level: int, level1_cost: int) -> int:
    """Cumulative cost to reach aptitude ``level``: P1 + n(n+1)/2 - 1 (spec §3.4.5)."""
    if level <= 0:
        return 0
    return sum(aptitude_step_cost(n, level1_cost) for n in range(1, level + 1))


def scruples_cost(value: int) -> int:
    """Creation cost of Scruples away from 10: 1 XP per point (L126)."""
    return SCRUPLES_POINT_COST * abs(value - SCRUPLES_BASE)


def endurance_cost(points: int) -> int:
    """2 XP per Endurance point (L115)."""
    return ENDURANCE_POINT_COST * points
