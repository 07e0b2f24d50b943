"""Rule tables of the Storytelling Modulary System (SMS v1) as Python data.

Every table cites the line of the seed ``seeds/003_2f455f1b43a71c78.txt``
it comes from (``L123``). Where the seed announces a table it does not give
(weapon base damage L583, disease boxes L615, archetype module lists
L893–985, bestiary entries L1039–1057) nothing is invented: the GM supplies
it through campaign settings.
"""

from __future__ import annotations

from typing import Any

from rules.base import Msg

# ---------------------------------------------------------------------------
# Modules (L18–87)
# ---------------------------------------------------------------------------
#: Module kinds (L20 «positif, résistif ou négatif»).
MODULE_KINDS: tuple[tuple[str, Msg], ...] = (
    ("positive", Msg("Positif", "Positive")),
    ("negative", Msg("Négatif", "Negative")),
    ("resistive", Msg("Résistif", "Resistive")),
)

#: Where a module comes from (spec §2.2, REC enum).
MODULE_SOURCES: tuple[tuple[str, Msg], ...] = (
    ("purchased", Msg("Acheté", "Purchased")),
    ("racial", Msg("Racial", "Racial")),
    ("archetype", Msg("Archétype", "Archetype")),
    ("temporary_magic", Msg("Magie temporaire", "Temporary magic")),
    ("npc", Msg("PNJ", "NPC")),
)

SCOPE_MIN, SCOPE_MAX = 1, 5  # L26 «une valeur entre 1 et 5»
CREATION_XP = 40  # L61, L691
RACE_PACKAGE_XP = 7  # L61 «représentent en tout 7 points»
NEGATIVE_XP_CAP = 10  # L67 «Ce gain est limité à 10 points»
CREATION_RANK_CAP = 3  # L71
ARCHETYPE_MAX_COST = 33  # L882

#: Predefined modules named in the text (L289–297, L384, L404–410, L565).
PREDEFINED_MODULES: tuple[tuple[str, Msg], ...] = (
    ("", Msg("Aucun module", "No module")),
    ("arcane_power", Msg("Pouvoir des arcanes", "Arcane power")),
    ("divine_power", Msg("Magie divine", "Divine magic")),
    ("natural_power", Msg("Magie naturelle", "Natural magic")),
    ("ritual_magic", Msg("Magie rituelle", "Ritual magic")),
    ("metamorphosis", Msg("Métamorphose", "Metamorphosis")),
    ("space_time", Msg("Espace-Temps", "Space-time")),
    ("soul_vision", Msg("Vision de l'âme", "Soul vision")),
    ("harmony", Msg("Harmonie", "Harmony")),
    ("conviction", Msg("Conviction", "Conviction")),
    ("heroism", Msg("Héroïsme", "Heroism")),
    ("intervention", Msg("Intervention", "Intervention")),
    ("spell_extension", Msg("Extension des sorts", "Spell extension")),
)

# ---------------------------------------------------------------------------
# Resolution (L89–129, L260–268)
# ---------------------------------------------------------------------------
ROLLING_DICE = (2, 4, 6, 8, 10, 12)  # L262
DIE_MAX = 12

#: Quality of result by (chosen die − GM die) (L109–117).
QUALITY_LABELS: dict[int, tuple[str, Msg]] = {
    -6: ("deplorable", Msg("déplorable", "deplorable")),
    -4: ("pathetic", Msg("minable", "pathetic")),
    -2: ("poor", Msg("mauvais", "poor")),
    0: ("average", Msg("moyen", "average")),
    2: ("good", Msg("bon", "good")),
    4: ("excellent", Msg("excellent", "excellent")),
    6: ("perfect", Msg("parfait", "perfect")),
}

#: Narrative stake on failure by die (L101, L124–129; D6→minor … D12→critical, spec Ambiguity 6).
STAKES: dict[str, Msg] = {
    "none": Msg("aucun enjeu", "no stake"),
    "minor": Msg("enjeu faible", "minor stake"),
    "moderate": Msg("enjeu moyen", "moderate stake"),
    "major": Msg("enjeu important", "major stake"),
    "critical": Msg("enjeu critique", "critical stake"),
}
STAKE_BY_DIE = {0: "none", 2: "none", 4: "none", 6: "minor", 8: "moderate", 10: "major", 12: "critical"}

#: Circumstance levels (L246–250).
CIRCUMSTANCES: dict[str, int] = {"slightly": 1, "advantaged": 2, "very": 3}

# ---------------------------------------------------------------------------
# Health (L131–162)
# ---------------------------------------------------------------------------
#: severity id -> (key, label, action-score penalty, die offset) (L137–140, L189–192, L424–430).
SEVERITIES: dict[int, dict[str, Any]] = {
    1: {"key": "light", "label": Msg("Blessure légère", "Light wound"), "penalty": 1, "offset": 0},
    2: {"key": "serious", "label": Msg("Blessure grave (moyenne)", "Serious wound"), "penalty": 2, "offset": 2},
    3: {"key": "critical", "label": Msg("Blessure critique", "Critical wound"), "penalty": 4, "offset": 4},
    4: {"key": "mortal", "label": Msg("Blessure mortelle", "Mortal wound"), "penalty": 0, "offset": 6},
    5: {"key": "annihilation", "label": Msg("Anéantissement", "Annihilation"), "penalty": 0, "offset": 8},
}
SEVERITY_IDS: dict[str, int] = {v["key"]: k for k, v in SEVERITIES.items()}
#: The shared severity scale (``rules.base.SEVERITIES``) of each wound (L133-L142): the critical wound is a
#: "grave" one; annihilation (L424), beyond the mortal wound, is "mortal" on the shared scale.
SHARED_SEVERITY: dict[str, str] = {
    "light": "light",
    "serious": "serious",
    "critical": "grave",
    "mortal": "mortal",
    "annihilation": "mortal",
}
SEVERITY_CHOICES: tuple[tuple[str, Msg], ...] = tuple((v["key"], v["label"]) for v in SEVERITIES.values())
WEAPON_SEVERITY_CHOICES = SEVERITY_CHOICES[:4]  # annihilation is magic only (L424)

FATIGUE_KINDS: tuple[tuple[str, Msg], ...] = (
    ("transient", Msg("Fatigue passagère", "Transient fatigue")),
    ("lasting", Msg("Fatigue durable", "Lasting fatigue")),
    ("persistent", Msg("Fatigue persistante (épuisement)", "Persistent fatigue (exhaustion)")),
)

STATUSES: tuple[tuple[str, Msg], ...] = (
    ("active", Msg("Actif", "Active")),
    ("out_of_combat", Msg("Hors de combat", "Out of combat")),
    ("dying", Msg("Mourant", "Dying")),
    ("stabilised", Msg("Stabilisé", "Stabilised")),
    ("dead", Msg("Mort", "Dead")),
)

#: Model B damage types (L605–670).
DAMAGE_TYPES: tuple[tuple[str, Msg], ...] = (
    ("blunt", Msg("Contondant", "Blunt")),
    ("lethal", Msg("Létal", "Lethal")),
    ("critical", Msg("Critique", "Critical")),
    ("elemental_lethal", Msg("Élémentaire létal", "Elemental lethal")),
    ("elemental_critical", Msg("Élémentaire critique", "Elemental critical")),
)
#: Power levels a spell gives up to reach a damage type (L654, L656 «un autre niveau de puissance»).
DAMAGE_TYPE_COST = {"blunt": 0, "lethal": 1, "critical": 2, "elemental_lethal": 2, "elemental_critical": 3}

# ---------------------------------------------------------------------------
# Equipment (L200–236)
# ---------------------------------------------------------------------------
ARMOUR_CATEGORIES: tuple[tuple[str, Msg], ...] = (
    ("0", Msg("0 – aucune / vêtement", "0 – none / clothing")),
    ("1", Msg("1 – légère", "1 – light")),
    ("2", Msg("2 – moyenne", "2 – medium")),
    ("3", Msg("3 – lourde", "3 – heavy")),
)
ARMOUR_KINDS: tuple[tuple[str, Msg], ...] = (
    ("custom", Msg("Catégorie saisie", "Category as entered")),
    ("leather", Msg("Armure de cuir", "Leather armour")),
)
RIGIDITY: tuple[tuple[str, Msg], ...] = (
    ("soft", Msg("Souple", "Soft")),
    ("solid", Msg("Solide", "Solid")),
)


# ---------------------------------------------------------------------------
# Races of the Omnivers de Loreval (L695–874)
# ---------------------------------------------------------------------------
def _m(name: str, scope: int, rank: int, kind: str | None = None) -> dict[str, Any]:
    """A racial module in the seed's notation ``Name (scope) rank``; a negative rank is a negative module.

    «Résistance…» modules are imported as resistive (spec Ambiguity 45).
    """
    if kind is None:
        kind = "negative" if rank < 0 else ("resistive" if name.startswith("Résistance") else "positive")
    return {"name": name, "scope": scope, "rank": abs(rank), "kind": kind}


#: key -> race. ``free_xp`` is the extra free experience (human +7 L711, mielfin +3 L785).
#: ``size_factor`` defaults are REC (spec Ambiguity 28; L591 names tifin and nelin as too small),
#: ``full_rest_hours`` REC from L745 (elfin 4 h vs human 8 h) and L834 (descar a quarter of a day).
RACES: dict[str, dict[str, Any]] = {
    "humain": {
        "label": Msg("Humain", "Human"),
        "line": "L701–711",
        "free_xp": 7,
        "size_factor": 5,
        "full_rest_hours": 8,
        "modules": [],
    },
    "tifin": {
        "label": Msg("Tifin", "Tifin"),
        "line": "L713–731",
        "free_xp": 0,
        "size_factor": 4,
        "full_rest_hours": 8,
        "modules": [
            _m("Petite taille", 5, -1),
            _m("Faible constitution", 5, -1),
            _m("Résistance à la peur", 2, 1),
            _m("Habile de ses doigts", 4, 1),
            _m("Opportuniste", 4, 1),
            _m("Agile", 5, 1),
            _m("Précision avec les armes à distance", 2, 1),
        ],
    },
    "elfin": {
        "label": Msg("Elfin", "Elfin"),
        "line": "L733–759",
        "free_xp": 0,
        "size_factor": 5,
        "full_rest_hours": 4,
        "modules": [
            _m("Résistance aux influences mentales", 2, 2),
            _m("Méditation", 2, 1),
            _m("Force physique limitée", 5, -1),
            _m("Grande agilité", 5, 1),
            _m("Sens aiguisés", 3, 1),
            _m("Vision nocturne", 2, 1),
            _m("Mémoire faillible", 4, -1),
        ],
    },
    "miorkin": {
        "label": Msg("Miorkin", "Miorkin"),
        "line": "L762–773",
        "free_xp": 0,
        "size_factor": 5,
        "full_rest_hours": 8,
        "modules": [
            _m("Force", 5, 1),
            _m("Un peu bête", 5, -1),
            _m("Vision dans le noir", 3, 1),
            _m("Soif de combat", 4, 1),
        ],
    },
    "mielfin": {
        "label": Msg("Mielfin", "Mielfin"),
        "line": "L775–785",
        "free_xp": 3,
        "size_factor": 5,
        "full_rest_hours": 8,
        "modules": [_m("Résistance aux influences mentales", 2, 1), _m("Vision accrue", 2, 1)],
    },
    "dudin": {
        "label": Msg("Dudin", "Dudin"),
        "line": "L787–801",
        "free_xp": 0,
        "size_factor": 5,
        "full_rest_hours": 8,
        "modules": [
            _m("Santé accrue", 5, 1),
            _m("Résistance aux poisons et maladie", 2, 1),
            _m("Manque d'initiative", 5, -1),
            _m("Vision dans le noir", 3, 1),
            _m("Doué avec les outils", 2, 1),
        ],
    },
    "nelin": {
        "label": Msg("Nelin", "Nelin"),
        "line": "L804–822",
        "free_xp": 0,
        "size_factor": 4,
        "full_rest_hours": 8,
        "modules": [
            _m("Petite taille", 5, -1),
            _m("Intelligence supérieure", 5, 1),
            _m("Force réduite", 5, -1),
            _m("Doué pour la magie", 4, 1),
            _m("Vision nocturne", 2, 1),
            _m("Foisonnement d'idée", 4, 1),
            _m("Compréhension des mécanismes", 2, 1),
        ],
    },
    "descar": {
        "label": Msg("Descar", "Descar"),
        "line": "L824–843",
        "free_xp": 0,
        "size_factor": 5,
        "full_rest_hours": 6,
        "modules": [
            _m("Hyper-solide", 5, 1),
            _m("Différences socio-culturelles importantes", 4, -2),
            _m("Logique imparable", 4, 1),
            _m("Résistance aux influences mentales", 2, 3),
        ],
    },
    "atark": {
        "label": Msg("Atark", "Atark"),
        "line": "L845–860",
        "free_xp": 0,
        "size_factor": 5,
        "full_rest_hours": 8,
        "modules": [
            _m("Spiritualité exacerbée", 3, 1),
            _m("Manque d'initiative", 5, -1),
            _m("Ouvert à la communication", 4, 1),
            _m("Santé mentale accrue", 5, 1),
        ],
    },
    "maltif": {
        "label": Msg("Maltif", "Maltif"),
        "line": "L862–874",
        "free_xp": 0,
        "size_factor": 5,
        "full_rest_hours": 8,
        "modules": [_m("Âge incertain", 2, 1), _m("Équilibre exacerbé", 3, 1), _m("Vision lointaine", 2, 1)],
    },
}
RACE_CHOICES: tuple[tuple[str, Msg], ...] = tuple((k, v["label"]) for k, v in RACES.items())


def race_package_xp(race: str) -> int:
    """Net XP value of a race's fixed modules (scope × rank, negatives subtract; L61)."""
    total = 0
    for m in RACES[race]["modules"]:
        sign = -1 if m["kind"] == "negative" else 1
        total += sign * m["scope"] * m["rank"]
    return total


# ---------------------------------------------------------------------------
# Archetypes (L876–985): names and categories only, no module lists in the seed.
# ---------------------------------------------------------------------------
ARCHETYPE_CATEGORIES: tuple[tuple[str, Msg], ...] = (
    ("complete", Msg("Archétype complet", "Complete archetype")),
    ("profession", Msg("Archétype métier", "Profession archetype")),
    ("societal", Msg("Archétype sociétal", "Societal archetype")),
    ("adventurous_trait", Msg("Trait aventureux", "Adventurous trait")),
)

_ARCH_NAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "complete": (
        "L893–939",
        (
            "Baroudeur",
            "Chevalier",
            "Dresseur",
            "Druide",
            "Gladiateur",
            "Guérisseur",
            "Guerrier",
            "Mage",
            "Prêtre",
            "Rôdeur",
            "Roublard",
            "Sauvage",
            "Soldat",
        ),
    ),
    "profession": (
        "L941–962",
        (
            "Alchimiste",
            "Apothicaire",
            "Architecte",
            "Barde",
            "Bureaucrate",
            "Cambrioleur",
            "Cartographe",
            "Chasseur",
            "Éleveur",
            "Ecclésiaste",
            "Esclavagiste",
            "Escroc",
            "Fermier",
            "Forgeron",
            "Homme d'arme",
            "Ingénieur",
            "Marchand",
            "Médecin",
            "Pickpocket",
            "Savant",
        ),
    ),
    "societal": (
        "L964–974",
        (
            "Aristocrate",
            "Assassin",
            "Bourgeois",
            "Intouchable",
            "Militaire",
            "Politicien",
            "Religieux",
            "Roturier",
            "Voleur",
        ),
    ),
    "adventurous_trait": (
        "L976–985",
        (
            "Combattre avec une arme blanche",
            "Combattre avec une arme de jet",
            "Combattre avec une arme de lancer",
            "Pister",
            "Lancer des sorts de magie des arcanes",
            "Lancer des sorts de magie divine",
            "Lancer des sorts de magie naturelle",
            "Premiers soins",
        ),
    ),
}

#: Prerequisite modules the seed itself implies for the three spell-casting traits (L297: a caster
#: needs the magic module at rank 1 minimum). These are the only archetype contents in the seed.
_ARCH_REQUIRED = {
    "Lancer des sorts de magie des arcanes": "arcane_power",
    "Lancer des sorts de magie divine": "divine_power",
    "Lancer des sorts de magie naturelle": "natural_power",
}


def _slug(name: str) -> str:
    import unicodedata

    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return "".join(c if c.isalnum() else "_" for c in text).strip("_").replace("__", "_")


ARCHETYPES: dict[str, dict[str, Any]] = {}
for _cat, (_line, _names) in _ARCH_NAMES.items():
    for _name in _names:
        ARCHETYPES[_slug(_name)] = {
            "label": Msg(_name, _name),
            "category": _cat,
            "line": _line,
            "required_predefined": _ARCH_REQUIRED.get(_name, ""),
        }
ARCHETYPE_CHOICES: tuple[tuple[str, Msg], ...] = tuple((k, v["label"]) for k, v in ARCHETYPES.items())

# ---------------------------------------------------------------------------
# Magic (L277–552)
# ---------------------------------------------------------------------------
MAGIC_TYPES: tuple[tuple[str, Msg], ...] = (
    ("arcane", Msg("Magie des arcanes (Arcane)", "Arcane magic")),
    ("divine", Msg("Magie divine (Foi)", "Divine magic (Faith)")),
    ("natural", Msg("Magie naturelle (Esprits)", "Natural magic (Spirits)")),
)
#: magic type -> main predefined module (L289, L297; Faith = divine, Spirits = natural, spec Ambiguity 31).
MAGIC_MODULE = {"arcane": "arcane_power", "divine": "divine_power", "natural": "natural_power"}
#: natures each magic casts natively (L289) and the enabling module for the missing one (L293–295).
MAGIC_NATIVE = {
    "arcane": {"offensive", "defensive"},
    "natural": {"offensive", "curative"},
    "divine": {"defensive", "curative"},
}
MAGIC_ENABLER = {
    "natural": ("defensive", "metamorphosis"),
    "arcane": ("curative", "space_time"),
    "divine": ("offensive", "soul_vision"),
}
#: special-power module -> magic required at maximum rank (L408–410).
SPECIAL_POWER_MAGIC = {"harmony": "natural", "conviction": "divine", "heroism": "arcane"}

SPELL_NATURES: tuple[tuple[str, Msg], ...] = (
    ("offensive", Msg("Offensif", "Offensive")),
    ("defensive", Msg("Défensif (barrière)", "Defensive (barrier)")),
    ("occult_protection", Msg("Protection occulte", "Occult protection")),
    ("counter_effect", Msg("Contre-effet", "Counter-effect")),
    ("curative", Msg("Curatif", "Curative")),
    ("improvement", Msg("Amélioration", "Improvement")),
    ("diminution", Msg("Diminution", "Diminution")),
    ("mixed", Msg("Mixte", "Mixed")),
    ("misc", Msg("Divers", "Misc")),
)
#: the nature family used for the magic-type permission (L289).
NATURE_FAMILY = {
    "offensive": "offensive",
    "defensive": "defensive",
    "occult_protection": "defensive",
    "counter_effect": "defensive",
    "curative": "curative",
}

CAST_MODES: tuple[tuple[str, Msg], ...] = (
    ("spell", Msg("Sort", "Spell")),
    ("ritual", Msg("Rituel", "Ritual")),
    ("special_power", Msg("Pouvoir particulier", "Special power")),
)

#: manipulation steps (L325–360): step -> label.
SPELL_RANGES: tuple[tuple[str, Msg], ...] = (
    ("0", Msg("Contact / soi-même", "Touch / self")),
    ("1", Msg("Rencontre (-1)", "Encounter (-1)")),
    ("2", Msg("À vue (-2)", "Sight (-2)")),
    ("3", Msg("Réalité (-3)", "Reality (-3)")),
)
SPELL_AREAS: tuple[tuple[str, Msg], ...] = (
    ("0", Msg("Sujet unique", "Single subject")),
    ("1", Msg("Petite (-1) : <10 cibles, 10 m², 3 m³", "Small (-1): <10 targets, 10 m², 3 m³")),
    ("2", Msg("Moyenne (-2) : 30 cibles, 100 m², 10 m³", "Medium (-2): 30 targets, 100 m², 10 m³")),
    ("3", Msg("Grande (-3) : ~100 cibles, 1000 m², 30 m³", "Large (-3): ~100 targets, 1000 m², 30 m³")),
)
SPELL_DURATIONS: tuple[tuple[str, Msg], ...] = (
    ("0", Msg("Instantanée", "Instantaneous")),
    ("1", Msg("Courte (-1) : 10 minutes", "Short (-1): 10 minutes")),
    ("2", Msg("Horaire (-2) : une heure", "Hourly (-2): one hour")),
    ("3", Msg("Journalière (-3) : une journée", "Daily (-3): one day")),
)

SPELL_BASE_DIE = 4  # L366
RITUAL_BASE_DIE = 8  # L366, L386
SPECIAL_POWER_BASE_DIE = 8  # L412
DISPEL_BASE_DIE = 4  # L540 «base absolue du D4»
IMPROVEMENT_MAX_POWER = 5  # L482

# ---------------------------------------------------------------------------
# NPCs and bestiary (L987–1057)
# ---------------------------------------------------------------------------
NPC_METHODS: tuple[tuple[str, Msg], ...] = (
    ("uber_simple", Msg("Uber-simple", "Uber-simple")),
    ("simple", Msg("Simple", "Simple")),
    ("semi_modular", Msg("Semi-modulaire", "Semi-modular")),
    ("deluxe", Msg("Définition de luxe", "Deluxe")),
)
#: role -> (label, suggested base die range for a light wound, line)
NPC_ROLES: dict[str, dict[str, Any]] = {
    "boss": {"label": Msg("Boss", "Boss"), "dice": (12, 12), "open_ended": True, "line": "L1017"},
    "recurrent": {"label": Msg("Récurrent", "Recurrent"), "dice": (10, 12), "open_ended": False, "line": "L1019"},
    "one_shot": {"label": Msg("One-shot", "One-shot"), "dice": (8, 10), "open_ended": False, "line": "L1021"},
    "disposable": {"label": Msg("Jetable", "Disposable"), "dice": (2, 6), "open_ended": False, "line": "L1023"},
}
NPC_ROLE_CHOICES = tuple((k, v["label"]) for k, v in NPC_ROLES.items())

BESTIARY_CLASSES: dict[str, Msg] = {
    "abomination": Msg("Abomination", "Abomination"),
    "colonies_nuees": Msg("Colonies et nuées", "Colonies and swarms"),
    "draconide": Msg("Draconide", "Draconid"),
    "elementaire_construction": Msg("Élémentaire et construction", "Elemental and construct"),
    "esprit": Msg("Esprit", "Spirit"),
    "exterieur": Msg("Extérieur", "Outsider"),
    "fauve": Msg("Fauve", "Predator"),
    "geant": Msg("Géant", "Giant"),
    "herbivore": Msg("Herbivore", "Herbivore"),
    "humanoide_mineur": Msg("Humanoïde mineur", "Minor humanoid"),
    "humanoide": Msg("Humanoïde", "Humanoid"),
    "humanoide_superieur": Msg("Humanoïde supérieur", "Greater humanoid"),
    "insectoide_arachnide": Msg("Insectoïde et arachnide", "Insectoid and arachnid"),
    "mort_vivant": Msg("Mort-vivant", "Undead"),
    "nuisible": Msg("Nuisible", "Vermin"),
    "reptilien": Msg("Reptilien", "Reptilian"),
    "vegetal": Msg("Végétal", "Plant"),
}
BESTIARY_CHOICES = (("", Msg("—", "—")), *BESTIARY_CLASSES.items())
