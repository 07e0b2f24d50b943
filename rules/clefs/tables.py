"""Rule tables of *Les Clefs de l'Aube* as data (seed 002, line refs "Lnnn").

Everything the text prints as a table or a fixed number lives here, so the
other modules hold only procedures. Codes are the spec's canonical codes
(PH/ME/MY, PU/RE/MA/PR/EX/PE); the seed's alternative abbreviations ("Mt"
L379, "Rs" L589) are accepted on input through :data:`ASPECT_ALIASES` and
:data:`MEANS_ALIASES`.
"""

from __future__ import annotations

from rules.base import Msg

SLUG = "clefs-de-l-aube"

# ---------------------------------------------------------------------------
# Aspects (aspects, L201-L241)
# ---------------------------------------------------------------------------
#: The three aspects (aspects), L209-L234.
ASPECTS: tuple[str, ...] = ("PH", "ME", "MY")
ASPECT_LABELS: dict[str, Msg] = {
    "PH": Msg("Physique (Ph)", "Physical (Ph)"),
    "ME": Msg("Mental (Me)", "Mental (Me)"),
    "MY": Msg("Mystique (My)", "Mystic (My)"),
}
ASPECT_ALIASES: dict[str, str] = {
    "PH": "PH",
    "PHYSIQUE": "PH",
    "PHYSICAL": "PH",
    "ME": "ME",
    "MT": "ME",
    "MENTAL": "ME",
    "MY": "MY",
    "MYSTIQUE": "MY",
    "MYSTIC": "MY",
}

# ---------------------------------------------------------------------------
# Means (moyens, "profil", L247-L351)
# ---------------------------------------------------------------------------
#: The six means (moyens), L262-L313, in the seed's order.
MEANS: tuple[str, ...] = ("PU", "RE", "MA", "PR", "EX", "PE")
MEANS_LABELS: dict[str, Msg] = {
    "PU": Msg("Puissance (Pu)", "Power (Pu)"),
    "RE": Msg("Résistance (Ré)", "Resistance (Ré)"),
    "MA": Msg("Manœuvre (Ma)", "Manoeuvre (Ma)"),
    "PR": Msg("Précision (Pr)", "Precision (Pr)"),
    "EX": Msg("Expression (Ex)", "Expression (Ex)"),
    "PE": Msg("Perception (Pe)", "Perception (Pe)"),
}

#: The causes the rules themselves write in a condition's free-text ``source`` (its "Cause",
#: L739-L746: "à cause d'une blessure..."): a handicap a confrontation inflicts, one the game
#: master sets during a fight. Shown in their place; a cause a GM types is shown as typed.
CONDITION_SOURCE_LABELS: tuple[tuple[str, Msg], ...] = (
    ("harm", Msg("Blessure au combat", "Wound from a fight")),
    ("gm", Msg("Décision du meneur", "Game master's ruling")),
)
MEANS_ALIASES: dict[str, str] = {
    "PU": "PU",
    "PUISSANCE": "PU",
    "POWER": "PU",
    "RE": "RE",
    "RÉ": "RE",
    "RS": "RE",
    "RÉSISTANCE": "RE",
    "RESISTANCE": "RE",
    "MA": "MA",
    "MANŒUVRE": "MA",
    "MANOEUVRE": "MA",
    "MANEUVER": "MA",
    "PR": "PR",
    "PRÉCISION": "PR",
    "PRECISION": "PR",
    "EX": "EX",
    "EXPRESSION": "EX",
    "PE": "PE",
    "PERCEPTION": "PE",
}

#: Means range "normalement de -5 à +5" (L318), hard at creation (L578-L579).
MEANS_MIN, MEANS_MAX = -5, 5
#: Pair constraints (contraintes, L321-L341): first may exceed second by at most 5, the reverse is free.
MEANS_PAIRS: tuple[tuple[str, str], ...] = (("PU", "RE"), ("MA", "PR"), ("EX", "PE"))
MEANS_PAIR_MAX_EXCESS = 5

# ---------------------------------------------------------------------------
# Combinations (combinaisons, L353-L422): GM aid only, never on the sheet
# ---------------------------------------------------------------------------
#: "il est très important que cette liste reste indicative uniquement et ne
#: soit pas reproduit par exemple sur la feuille du personnage" (L360-L363).
COMBINATIONS: dict[tuple[str, str], Msg] = {
    ("PH", "PU"): Msg("Force", "Strength"),
    ("ME", "PU"): Msg("Concentration", "Concentration"),
    ("MY", "PU"): Msg("Mana", "Mana"),
    ("PH", "RE"): Msg("Endurance", "Endurance"),
    ("ME", "RE"): Msg("Volonté", "Will"),
    ("MY", "RE"): Msg("Foi", "Faith"),
    ("PH", "MA"): Msg("Agilité", "Agility"),
    ("ME", "MA"): Msg("Analyse", "Analysis"),
    ("MY", "MA"): Msg("Qi", "Qi"),
    ("PH", "PR"): Msg("Dextérité", "Dexterity"),
    ("ME", "PR"): Msg("Minutie", "Meticulousness"),
    ("MY", "PR"): Msg("Clairvoyance", "Clairvoyance"),
    ("PH", "EX"): Msg("Grâce", "Grace"),
    ("ME", "EX"): Msg("Persuasion", "Persuasion"),
    ("MY", "EX"): Msg("Aura", "Aura"),
    ("PH", "PE"): Msg("Cinq sens physique", "Five physical senses"),
    ("ME", "PE"): Msg("Vigilance", "Vigilance"),
    ("MY", "PE"): Msg("Sixième sens", "Sixth sense"),
}

# ---------------------------------------------------------------------------
# Skills (compétences, L429-L497)
# ---------------------------------------------------------------------------
NC_MIN, NC_MAX = 0, 20  # "Le niveau de compétence va de 0 à 20" (L432-L434)
BC_OFFSET = 10  # BC = NC - 10 (L493-L495)
#: Table "le niveau de compétence" (L441-L473): (minimum NC, French, English).
SKILL_LEVELS: tuple[tuple[int, Msg], ...] = (
    (0, Msg("profane (non-initié)", "layman (uninitiated)")),
    (5, Msg("apprenti (débutant)", "apprentice (beginner)")),
    (10, Msg("disciple (professionnel)", "disciple (professional)")),
    (15, Msg("compagnon (expert)", "journeyman (expert)")),
    (20, Msg("maître (génie)", "master (genius)")),
)

# ---------------------------------------------------------------------------
# Creation (la création des personnages, L517-L621)
# ---------------------------------------------------------------------------
#: Aspect methods: (die count per result, die sides, modifier, total) for
#: the two rolled results; the third is ``total - (a + b)``. L522-L537.
ASPECT_METHODS: dict[str, dict[str, int] | None] = {
    "ROLL_STANDARD": {"dice": 2, "sides": 6, "modifier": 3, "total": 30},  # 2x(2d6+3), 30 - sum, L523-L524
    "ROLL_LOW": {"dice": 2, "sides": 6, "modifier": -2, "total": 20},  # footnote L529-L532
    "FIXED_10": None,  # "mettre 10 points partout" L525
}
ASPECT_METHOD_LABELS: dict[str, Msg] = {
    "ROLL_STANDARD": Msg("Tirage : 2 × (2d6+3), le 3e = 30 − somme", "Roll: 2 × (2d6+3), 3rd = 30 − sum"),
    "ROLL_LOW": Msg("Tirage faible : 2 × (2d6−2), le 3e = 20 − somme", "Low roll: 2 × (2d6−2), 3rd = 20 − sum"),
    "FIXED_10": Msg("10 partout", "10 everywhere"),
}
FIXED_ASPECT_VALUE = 10
#: Aspect exchanges: "5 échanges de 1 point" (total, reading G8), never above 15 nor below 5 (L550-L553).
ASPECT_EXCHANGES = 5
ASPECT_EXCHANGE_MAX, ASPECT_EXCHANGE_MIN = 15, 5

MEANS_METHODS: tuple[str, ...] = ("ZERO", "ROLL")  # L573-L576
MEANS_METHOD_LABELS: dict[str, Msg] = {
    "ZERO": Msg("Tous à zéro", "All zero"),
    "ROLL": Msg("Tirage : 3 × (2d6−7) et leurs inverses", "Roll: 3 × (2d6−7) and their opposites"),
}
#: The creation methods in the order the wizard offers them (aspects L522-L537, means L573-L576).
CREATION_METHODS: dict[str, tuple[str, ...]] = {
    "aspect": ("ROLL_STANDARD", "ROLL_LOW", "FIXED_10"),
    "means": ("ROLL", "ZERO"),
}
#: Every creation method's name (aspects and means).
CREATION_METHOD_LABELS: dict[str, Msg] = {**ASPECT_METHOD_LABELS, **MEANS_METHOD_LABELS}
MEANS_ROLL = {"count": 3, "dice": 2, "sides": 6, "modifier": -7}
MEANS_EXCHANGE_POINTS = 5  # "jusqu'à 5 points d'échange" L577-L578

#: Creation skill packages (L596-L606). "custom" is the GM's "en donner plus".
SKILL_PACKAGES: dict[str, tuple[int, ...] | None] = {
    "standard": (10, 10, 5, 5, 5),  # "deux compétences à disciple (10) et trois à apprenti (5)"
    "compagnon": (15, 5),  # two disciples and two apprentices traded for one compagnon (15)
    "custom": None,  # GM grants more (L599-L600)
    "free": None,  # no creation checks (NPCs made by the GM); not in the text
}
SKILL_PACKAGE_LABELS: dict[str, Msg] = {
    "standard": Msg("Standard : 2 disciples (10), 3 apprentis (5)", "Standard: 2 disciples (10), 3 apprentices (5)"),
    "compagnon": Msg("Échange : 1 compagnon (15) et 1 apprenti (5)", "Trade: 1 journeyman (15) and 1 apprentice (5)"),
    "custom": Msg("Compétences accordées par le Gardien", "Skills granted by the GM"),
    "free": Msg("Libre (PNJ, pas de contrôle de création)", "Free (NPC, no creation checks)"),
}

# ---------------------------------------------------------------------------
# Resolution (les actions, L691-L1109)
# ---------------------------------------------------------------------------
D20 = 20
AUTO_FAILURE_MAX_CA = 1  # "Une CA inférieure ou égale à 1 est normalement un échec automatique" L724-L726
AUTO_SUCCESS_MIN_CA = 20  # "une CA supérieure ou égale à 20 est normalement une réussite automatique" L726-L727

LEVELS: tuple[str, ...] = ("AUTO_SUCCESS", "SUCCESS", "FAILURE", "AUTO_FAILURE")
LEVEL_LABELS: dict[str, Msg] = {
    "AUTO_SUCCESS": Msg("réussite automatique", "automatic success"),
    "SUCCESS": Msg("réussite normale", "normal success"),
    "FAILURE": Msg("échec normal", "normal failure"),
    "AUTO_FAILURE": Msg("échec automatique", "automatic failure"),
}
SUCCESS_LEVELS = frozenset({"AUTO_SUCCESS", "SUCCESS"})
#: A natural 1 on the critical die names the result (section "les prouesses et maladresses exceptionnelles",
#: L993-L994; examples "une prouesse exceptionnelle" L1015, "Maladresse exceptionnelle" L1034).
EXCEPTIONAL_LABELS: dict[str, Msg] = {
    "SUCCESS": Msg("prouesse exceptionnelle", "exceptional feat"),
    "FAILURE": Msg("maladresse exceptionnelle", "exceptional fumble"),
}

#: Table "les difficultés" (L837-L869); the table's labels win over L826-L827 (reading G7).
DIFFICULTIES: tuple[tuple[int, Msg], ...] = (
    (0, Msg("normale", "normal")),
    (5, Msg("très difficile", "very difficult")),
    (10, Msg("extrêmement difficile", "extremely difficult")),
    (15, Msg("presque impossible", "almost impossible")),
    (20, Msg("légendaire", "legendary")),
)

#: Critical die sizes (dé critique): d10 usual, d8/d6 when stressful, d12/d20 when unsuited (L1052-L1058).
CRIT_DIE_SIZES: tuple[int, ...] = (6, 8, 10, 12, 20)
CRIT_DIE_DEFAULT = 10
CRIT_TRIGGER = 1  # "un 1 naturel sur le dé critique" L1006
CRIT_EXPLODE_ON = 20  # "S'il obtient encore un 20 ... relance encore le d20" L1008-L1010

#: Multiple actions (actions multiples, L1078-L1087).
MULTI_STEP = 3  # "un handicap cumulatif de 3 points supplémentaires"
UNPLANNED_STEP = 5  # "une pénalité de -5 par action supplémentaire"

# ---------------------------------------------------------------------------
# Campaign setting choices
# ---------------------------------------------------------------------------
ANTI_ABUSE_CHOICES: dict[str, int | None] = {"unlimited": None, "top5": 5, "top10": 10}  # footnote L655-L659
