"""Declarations of the SMS sheet, campaign settings, wizard steps, tests, actions and purchases."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from rules.base import ACTION_KEY, Field, Msg, Step, default_from_fields
from rules.sms.tables import (
    ARCHETYPE_CHOICES,
    ARMOUR_KINDS,
    BESTIARY_CHOICES,
    CAST_MODES,
    DAMAGE_TYPES,
    MAGIC_TYPES,
    MODULE_KINDS,
    MODULE_SOURCES,
    NPC_METHODS,
    NPC_ROLE_CHOICES,
    PREDEFINED_MODULES,
    RACE_CHOICES,
    RACES,
    RIGIDITY,
    SEVERITY_CHOICES,
    SPELL_AREAS,
    SPELL_DURATIONS,
    SPELL_NATURES,
    SPELL_RANGES,
    STATUSES,
    WEAPON_SEVERITY_CHOICES,
)

#: 2: ``npc.difficulties`` is a list of {name, difficulty} (was a dict by name, issue #23).
SCHEMA_VERSION = 2


def _c(*pairs: tuple[str, str, str]) -> tuple[tuple[str, Msg], ...]:
    return tuple((k, Msg(fr, en)) for k, fr, en in pairs)


MODULE_ITEM_FIELDS: tuple[Field, ...] = (
    Field("name", "str", Msg("Nom du module", "Module name"), required=True, max_length=120),
    Field("kind", "choice", Msg("Type", "Kind"), default="positive", choices=MODULE_KINDS),
    Field(
        "scope",
        "int",
        Msg("Portée", "Scope"),
        default=1,
        minimum=1,
        maximum=5,
        help=Msg("1 très spécifique … 5 très générique (L26).", "1 very specific … 5 very generic (L26)."),
    ),
    Field("rank", "int", Msg("Rang", "Rank"), default=1, minimum=0, maximum=30),
    Field("free_rank", "int", Msg("Rangs offerts (race)", "Free ranks (race)"), default=0, minimum=0, maximum=30),
    Field(
        "progress_ranks",
        "int",
        Msg("Rangs acquis par l'expérience", "Ranks gained by experience"),
        default=0,
        minimum=0,
        maximum=30,
    ),
    Field("source", "choice", Msg("Origine", "Source"), default="purchased", choices=MODULE_SOURCES),
    Field("predefined", "choice", Msg("Module prédéfini", "Predefined module"), default="", choices=PREDEFINED_MODULES),
    Field(
        "domain", "str", Msg("Domaine (résistance, blessure)", "Domain (resistance, wound)"), default="", max_length=60
    ),
    Field("removable", "bool", Msg("Amovible (lié à un objet)", "Removable (tied to an object)"), default=False),
    Field("object_name", "str", Msg("Objet", "Object"), default="", max_length=120),
    Field("object_possessed", "bool", Msg("Objet possédé", "Object possessed"), default=True),
    Field("progressable", "bool", Msg("Peut progresser", "Can progress"), default=True),
    Field("roleplay", "bool", Msg("Module roleplay", "Roleplay module"), default=False),
)

WOUND_ITEM_FIELDS: tuple[Field, ...] = (
    Field("nature", "str", Msg("Nature", "Nature"), default="", max_length=120),
    Field("severity", "choice", Msg("Gravité", "Severity"), default="light", choices=SEVERITY_CHOICES),
    Field("domain", "str", Msg("Domaine", "Domain"), default="", max_length=60),
    Field(
        "damage_type",
        "choice",
        Msg("Type de dégâts", "Damage type"),
        default="",
        choices=(("", Msg("—", "—")), *DAMAGE_TYPES),
    ),
    Field("source", "str", Msg("Cause", "Cause"), default="", max_length=120),
)


@cache  # a constant: built once (frozen fields; defaults are copied where used)
def sheet_fields() -> tuple[Field, ...]:
    race_choice = RACE_CHOICES
    return (
        Field(
            "race",
            "choice",
            Msg("Race", "Race"),
            default="humain",
            choices=race_choice,
            group="identity",
            step="race",
            help=Msg("Modules raciaux fixes (L695–874).", "Fixed racial modules (L695–874)."),
        ),
        Field(
            "size_factor",
            "int",
            Msg("Facteur de taille", "Size factor"),
            default=5,
            minimum=1,
            maximum=9,
            group="identity",
            step="race",
            help=Msg("1 à 9, moyenne 5 (L591).", "1 to 9, average 5 (L591)."),
        ),
        Field(
            "concept",
            "text",
            Msg("Historique", "Background"),
            default="",
            max_length=8000,
            group="identity",
            step="background",
        ),
        Field(
            "archetypes",
            "list",
            Msg("Archétypes appliqués", "Applied archetypes"),
            default=[],
            item_fields=(Field("key", "choice", Msg("Archétype", "Archetype"), choices=ARCHETYPE_CHOICES),),
            max_items=10,
            group="identity",
            step="archetype",
        ),
        Field(
            "modules",
            "list",
            Msg("Modules", "Modules"),
            default=[],
            item_fields=MODULE_ITEM_FIELDS,
            max_items=200,
            group="modules",
            step="modules",
        ),
        Field(
            "wounds",
            "list",
            Msg("Blessures", "Wounds"),
            default=[],
            item_fields=WOUND_ITEM_FIELDS,
            max_items=100,
            group="health",
            step="",
        ),
        Field(
            "fatigue.transient",
            "int",
            Msg("Fatigue passagère", "Transient fatigue"),
            default=0,
            minimum=0,
            maximum=99,
            group="health",
        ),
        Field(
            "fatigue.lasting",
            "int",
            Msg("Fatigue durable", "Lasting fatigue"),
            default=0,
            minimum=0,
            maximum=99,
            group="health",
        ),
        Field(
            "fatigue.persistent",
            "int",
            Msg("Fatigue persistante", "Persistent fatigue"),
            default=0,
            minimum=0,
            maximum=99,
            group="health",
        ),
        Field("status", "choice", Msg("État", "Status"), default="active", choices=STATUSES, group="health"),
        Field(
            "afflictions",
            "list",
            Msg("Maladies et poisons", "Diseases and poisons"),
            default=[],
            max_items=20,
            group="health",
            item_fields=(
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field(
                    "kind",
                    "choice",
                    Msg("Type", "Kind"),
                    default="disease",
                    choices=_c(("disease", "Maladie", "Disease"), ("poison", "Poison", "Poison")),
                ),
                Field(
                    "boxes_total",
                    "int",
                    Msg("Cases (MJ)", "Boxes (GM)"),
                    audience="gm",
                    default=0,
                    minimum=0,
                    maximum=50,
                ),
                Field("boxes_checked", "int", Msg("Cases cochées", "Boxes ticked"), default=0, minimum=0, maximum=50),
                Field("causes", "str", Msg("Causes à éliminer", "Causes to remove"), default="", max_length=200),
            ),
        ),
        Field(
            "armour.name",
            "str",
            Msg("Armure", "Armour"),
            default="",
            max_length=120,
            group="equipment",
            step="equipment",
        ),
        Field(
            "armour.kind",
            "choice",
            Msg("Type d'armure", "Armour kind"),
            default="custom",
            choices=ARMOUR_KINDS,
            group="equipment",
            step="equipment",
        ),
        Field(
            "armour.category",
            "int",
            Msg("Catégorie d'armure", "Armour category"),
            default=0,
            minimum=0,
            maximum=3,
            group="equipment",
            step="equipment",
            help=Msg(
                "0 aucune, 1 légère, 2 moyenne, 3 lourde (L217–222).", "0 none, 1 light, 2 medium, 3 heavy (L217–222)."
            ),
        ),
        Field(
            "armour.rigidity",
            "choice",
            Msg("Rigidité", "Rigidity"),
            default="soft",
            choices=RIGIDITY,
            group="equipment",
            step="equipment",
        ),
        Field(
            "armour.enchantment",
            "int",
            Msg("Enchantement", "Enchantment"),
            default=0,
            minimum=0,
            maximum=5,
            group="equipment",
            step="equipment",
        ),
        Field(
            "shield.name",
            "str",
            Msg("Bouclier", "Shield"),
            default="",
            max_length=120,
            group="equipment",
            step="equipment",
        ),
        Field(
            "shield.category",
            "int",
            Msg("Catégorie du bouclier", "Shield category"),
            default=0,
            minimum=0,
            maximum=3,
            group="equipment",
            step="equipment",
        ),
        Field(
            "weapons",
            "list",
            Msg("Armes", "Weapons"),
            default=[],
            max_items=20,
            group="equipment",
            step="equipment",
            item_fields=(
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field("uses", "str", Msg("Actions permises", "Actions allowed"), default="", max_length=200),
                Field("size_factor", "int", Msg("Facteur de taille", "Size factor"), default=5, minimum=1, maximum=9),
            ),
        ),
        Field(
            "spells",
            "list",
            Msg("Sorts connus", "Known spells"),
            default=[],
            max_items=100,
            group="magic",
            step="magic",
            item_fields=(
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field("magic_type", "choice", Msg("Magie", "Magic"), default="arcane", choices=MAGIC_TYPES),
                Field("mode", "choice", Msg("Forme", "Form"), default="spell", choices=CAST_MODES),
                Field("nature", "choice", Msg("Nature", "Nature"), default="misc", choices=SPELL_NATURES),
                Field("power", "int", Msg("Puissance", "Power"), default=1, minimum=1, maximum=5),
                Field("description", "text", Msg("Description", "Description"), default="", max_length=2000),
            ),
        ),
        Field(
            "maintained_spells",
            "list",
            Msg("Sorts maintenus", "Maintained spells"),
            default=[],
            max_items=20,
            group="magic",
            item_fields=(Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),),
        ),
        Field(
            "npc.role",
            "choice",
            Msg("Rôle du PNJ", "NPC role"),
            default="one_shot",
            choices=NPC_ROLE_CHOICES,
            group="npc",
        ),
        Field(
            "npc.method",
            "choice",
            Msg("Méthode de définition", "Definition method"),
            default="deluxe",
            choices=NPC_METHODS,
            group="npc",
        ),
        Field(
            "npc.creature_class",
            "choice",
            Msg("Classe du bestiaire", "Bestiary class"),
            default="",
            choices=BESTIARY_CHOICES,
            group="npc",
        ),
        Field(
            "npc.base_defence_die",
            "int",
            Msg("Dé de base pour le blesser", "Base die to wound it"),
            default=8,
            minimum=0,
            maximum=30,
            group="npc",
        ),
        Field(
            "npc.base_attack_die",
            "int",
            Msg("Dé de base de son attaque", "Base die of its attack"),
            default=8,
            minimum=0,
            maximum=30,
            group="npc",
        ),
        Field("npc.is_minion", "bool", Msg("Sbire / quidam", "Minion / bystander"), default=False, group="npc"),
        Field(
            "npc.difficulties",
            "list",
            Msg("Difficultés notées", "Noted difficulties"),
            default=[],
            max_items=50,
            group="npc",
            item_fields=DIFFICULTY_ITEM_FIELDS,
            help=Msg(
                "Notées pour rester cohérent, par exemple « lui résister : 3 » (L997).",
                "Noted to stay consistent, e.g. «resist it: 3» (L997).",
            ),
        ),
        Field(
            "advances",
            "list",
            Msg("Progressions", "Advances"),
            default=[],
            max_items=500,
            group="progression",
            item_fields=(
                Field("module", "str", Msg("Module", "Module"), default="", max_length=120),
                Field("scenario", "str", Msg("Scénario", "Scenario"), default="", max_length=120),
                Field("cost", "int", Msg("Coût", "Cost"), default=0, minimum=0, maximum=5),
            ),
        ),
    )


#: The modules of an archetype the GM lists (the sheet's module fields a GM sets for an archetype, L878–882).
ARCHETYPE_MODULE_FIELDS: tuple[Field, ...] = tuple(
    f for f in MODULE_ITEM_FIELDS if f.path in ("name", "kind", "scope", "rank", "predefined")
)

#: Weapons the text names (a "hache" L173, the "arme-bouclier" L236) with no base damage: the table
#: announced at L583 is missing, so the damage is left blank for the GM (no number invented).
WEAPON_DAMAGE_EXAMPLE: dict[str, Any] = {"Hache": None, "Arme-bouclier": None}


def archetype_modules_example() -> dict[str, Any]:
    """Starter content for the archetype editor: what the game applies when the GM lists nothing
    (:func:`rules.sms.creation.default_archetype_modules`: one module named after the archetype at
    rank 0, the spell-casting traits' predefined module at rank 1, L297, L876–985), for the first
    plain archetype and the arcane spell-casting one. Every row is the GM's to change."""
    from rules.sms.creation import default_archetype_modules
    from rules.sms.tables import ARCHETYPES

    plain = next(k for k, v in ARCHETYPES.items() if not v["required_predefined"])
    casting = next(k for k, v in ARCHETYPES.items() if v["required_predefined"] == "arcane_power")
    return {key: default_archetype_modules(key) for key in (plain, casting)}


#: A noted difficulty of an uber-simple or simple NPC ("la difficulté pour lui résister est de 3", L997).
DIFFICULTY_ITEM_FIELDS: tuple[Field, ...] = (
    Field("name", "str", Msg("Action ou situation", "Action or situation"), default="", max_length=120, required=True),
    Field("difficulty", "int", Msg("Difficulté", "Difficulty"), minimum=0, maximum=30, required=True),
)


MINION_CHOICES = _c(("", "Selon le rôle", "As the role says"), ("yes", "Oui", "Yes"), ("no", "Non", "No"))

#: One bestiary entry (a campaign setting, issue #23): a stat line of the NPC rules (L987–1035).
#: Dice and the minion flag are optional: left empty, the role's usual values apply (L1017–1023).
BESTIARY_ITEM_FIELDS: tuple[Field, ...] = (
    Field("name", "str", Msg("Nom", "Name"), default="", max_length=90, required=True),
    Field(
        "creature_class", "choice", Msg("Classe du bestiaire", "Bestiary class"), default="", choices=BESTIARY_CHOICES
    ),
    Field("role", "choice", Msg("Rôle du PNJ", "NPC role"), default="one_shot", choices=NPC_ROLE_CHOICES),
    Field(
        "method",
        "choice",
        Msg("Méthode de définition", "Definition method"),
        default="uber_simple",
        choices=NPC_METHODS,
    ),
    Field("size_factor", "int", Msg("Facteur de taille", "Size factor"), minimum=1, maximum=9),
    Field("base_defence_die", "int", Msg("Dé de base pour le blesser", "Base die to wound it"), minimum=0, maximum=30),
    Field("base_attack_die", "int", Msg("Dé de base de son attaque", "Base die of its attack"), minimum=0, maximum=30),
    Field("is_minion", "choice", Msg("Sbire / quidam", "Minion / bystander"), default="", choices=MINION_CHOICES),
)


@cache  # static declarations: built once (#21)
def settings_fields() -> tuple[Field, ...]:
    return (
        Field(
            "creation_xp",
            "int",
            Msg("Expérience de création", "Creation experience"),
            default=40,
            minimum=0,
            maximum=500,
            help=Msg(
                "40 par défaut ; le MJ peut la changer (L61, L693).", "40 by default; the GM may change it (L61, L693)."
            ),
        ),
        Field(
            "negative_xp_cap",
            "int",
            Msg("Plafond des gains négatifs", "Cap on negative gains"),
            default=10,
            minimum=0,
            maximum=100,
            help=Msg("L67", "L67"),
        ),
        Field(
            "creation_rank_cap",
            "int",
            Msg("Rangs max. à la création", "Max ranks at creation"),
            default=3,
            minimum=1,
            maximum=30,
            help=Msg("L71", "L71"),
        ),
        Field(
            "max_rank",
            "int",
            Msg("Rang maximum (0 = aucun)", "Maximum rank (0 = none)"),
            default=0,
            minimum=0,
            maximum=30,
            help=Msg(
                "Aucun plafond après la création n'est écrit (L71, L77).",
                "No cap after creation is written (L71, L77).",
            ),
        ),
        Field(
            "magic_max_rank",
            "int",
            Msg("Rang maximum des magies", "Maximum rank of magic modules"),
            default=5,
            minimum=1,
            maximum=30,
            help=Msg(
                "Prérequis des pouvoirs particuliers «au rang maximum» (L408–410).",
                "Special-power prerequisite «at maximum rank» (L408–410).",
            ),
        ),
        Field(
            "allowed_races",
            "list",
            Msg("Races autorisées (aucune cochée = toutes)", "Allowed races (none ticked = all)"),
            default=[],
            choices=RACE_CHOICES,
            help=Msg("L689", "L689"),
        ),
        Field(
            "health_model",
            "choice",
            Msg("Modèle de santé", "Health model"),
            default="severity_modules",
            choices=_c(
                ("severity_modules", "Blessures-modules (L133–142)", "Wound modules (L133–142)"),
                (
                    "wound_levels",
                    "Niveaux de blessure convertis (L583, L603–678)",
                    "Wound levels converted (L583, L603–678)",
                ),
            ),
        ),
        Field(
            "leather_armour",
            "choice",
            Msg("Armure de cuir", "Leather armour"),
            default="minus_two",
            choices=_c(
                ("minus_two", "Dé −2 comme dans les exemples (L224, L228)", "Die −2 as in the examples (L224, L228)"),
                ("light", "Armure légère, catégorie 1 (L220)", "Light armour, category 1 (L220)"),
            ),
        ),
        Field(
            "spell_range_reading",
            "choice",
            Msg("Portée des sorts", "Spell range"),
            default="score",
            choices=_c(
                ("score", "Malus au score du lanceur (L316–320)", "Penalty on the caster's score (L316–320)"),
                ("die", "Augmente le dé (exemple L431)", "Raises the die (example L431)"),
            ),
        ),
        Field(
            "fatigue_penalty",
            "int",
            Msg("Malus par niveau de fatigue", "Penalty per fatigue level"),
            default=1,
            minimum=0,
            maximum=4,
            help=Msg("«beaucoup plus minime que pour les blessures» (L154).", "«much smaller than wounds» (L154)."),
        ),
        Field(
            "archetype_modules",
            "dict",
            Msg("Modules des archétypes (MJ)", "Archetype modules (GM)"),
            default={},
            key_field=Field(
                "archetype", "choice", Msg("Archétype", "Archetype"), required=True, choices=ARCHETYPE_CHOICES
            ),
            value_field=Field(
                "modules",
                "list",
                Msg("Modules", "Modules"),
                default=[],
                max_items=30,
                item_fields=ARCHETYPE_MODULE_FIELDS,
            ),
            example=archetype_modules_example(),
            help=Msg(
                "Le texte ne donne que les noms des archétypes (L893–985) : sans liste du MJ, un archétype ajoute "
                "un module à son nom. Un archétype coûte 33 XP au plus (L882).",
                "The text gives only the archetypes' names (L893–985): without a GM list, an archetype adds one "
                "module named after it. An archetype costs at most 33 XP (L882).",
            ),
        ),
        Field(
            "bestiary",
            "list",
            Msg("Bestiaire (MJ)", "Bestiary (GM)"),
            default=[],
            max_items=200,
            item_fields=BESTIARY_ITEM_FIELDS,
            help=Msg(
                "Une entrée par créature ou PNJ type. La page ne donne que les classes (L1039–1057), sans chiffres : "
                "les entrées de départ sont ces classes, à compléter et renommer ; un dé laissé vide suit le rôle.",
                "One entry per creature or stock NPC. The page gives only the classes (L1039–1057), without numbers: "
                "the starter entries are those classes, to complete and rename; a die left empty follows the role.",
            ),
        ),
        Field(
            "weapon_base_damage",
            "dict",
            Msg("Dégâts de base des armes (MJ)", "Weapon base damage (GM)"),
            default={},
            max_items=100,
            key_field=Field("weapon", "str", Msg("Arme", "Weapon"), required=True, max_length=120),
            value_field=Field(
                "damage", "int", Msg("Dégâts de base", "Base damage"), required=True, minimum=-1, maximum=1
            ),
            example=WEAPON_DAMAGE_EXAMPLE,
            help=Msg(
                "Table annoncée L583 mais absente : une arme inflige −1, 0 ou 1.",
                "Table announced at L583 but missing: a weapon deals −1, 0 or 1.",
            ),
        ),
        Field(
            "health_track_length",
            "int",
            Msg("Longueur de la piste de santé (MJ)", "Health track length (GM)"),
            default=0,
            minimum=0,
            maximum=100,
            help=Msg("Absente de la page (modèle B).", "Missing from the page (Model B)."),
        ),
        Field(
            "disease_boxes",
            "int",
            Msg("Cases maladie par défaut (MJ)", "Default disease boxes (GM)"),
            default=0,
            minimum=0,
            maximum=50,
            help=Msg("Absent de la page (L615).", "Missing from the page (L615)."),
        ),
    )


def creation_steps() -> tuple[Step, ...]:
    return (
        Step(
            "race",
            Msg("Race", "Race"),
            ("race", "size_factor"),
            Msg(
                "Humain : 40 XP ; autres races : modules raciaux (7 XP) + 33 XP (L61, L691).",
                "Human: 40 XP; other races: racial modules (7 XP) + 33 XP (L61, L691).",
            ),
        ),
        Step(
            "background",
            Msg("Historique", "Background"),
            ("concept",),
            Msg(
                "Racontez l'histoire : elle donne la liste des modules (L14, L689).",
                "Tell the story: it yields the module list (L14, L689).",
            ),
        ),
        Step(
            "archetype",
            Msg("Archétypes", "Archetypes"),
            ("archetypes",),
            Msg(
                "Facultatif : un jeu de modules de 33 XP au plus (L882).",
                "Optional: a module set of at most 33 XP (L882).",
            ),
        ),
        Step(
            "modules",
            Msg("Modules et rangs", "Modules and ranks"),
            ("modules",),
            Msg(
                "Un rang coûte la portée ; 3 rangs max ; les négatifs rapportent 10 XP au plus (L63–71).",
                "A rank costs its scope; 3 ranks max; negatives give at most 10 XP (L63–71).",
            ),
        ),
        Step("magic", Msg("Magie", "Magic"), ("spells",)),
        Step(
            "equipment",
            Msg("Équipement", "Equipment"),
            (
                "armour.name",
                "armour.kind",
                "armour.category",
                "armour.rigidity",
                "armour.enchantment",
                "shield.name",
                "shield.category",
                "weapons",
            ),
        ),
    )


_SCORE = Field(
    "score",
    "int",
    Msg("Score d'action", "Action score"),
    default=1,
    minimum=-99,
    maximum=99,
    help=Msg(
        "Somme des rangs des modules retenus ; ≤ 0 compte 1 (L95).",
        "Sum of the approved module ranks; ≤ 0 counts as 1 (L95).",
    ),
)
_SCORE_MODULES = Field(
    "modules",
    "list",
    Msg("Modules engagés", "Modules involved"),
    default=[],
    max_items=50,
    item_fields=(
        Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
        Field("kind", "choice", Msg("Type", "Kind"), default="positive", choices=MODULE_KINDS),
        Field("rank", "int", Msg("Rang", "Rank"), default=1, minimum=0, maximum=30),
        Field("domain", "str", Msg("Domaine", "Domain"), default="", max_length=60),
        Field("as_positive", "bool", Msg("Résistif compté positif", "Resistive as positive"), default=False),
    ),
    help=Msg("Si renseigné, remplace le score saisi.", "If given, replaces the typed score."),
)
_CIRC = Field(
    "circumstances",
    "int",
    Msg("Circonstances (de ±1 à ±3 chacune)", "Circumstances (±1 to ±3 each)"),
    default=0,
    minimum=-12,
    maximum=12,
    help=Msg("L246–258", "L246–258"),
)
_MOD = Field(
    "modifier", "int", Msg("Autres modificateurs au score", "Other score modifiers"), default=0, minimum=-30, maximum=30
)
_SEV = Field(
    "severity", "choice", Msg("Blessure visée", "Wound sought"), default="light", choices=WEAPON_SEVERITY_CHOICES
)
_RANGE = Field("range", "choice", Msg("Portée", "Range"), default="0", choices=SPELL_RANGES)
_AREA = Field("area", "choice", Msg("Zone d'effet", "Area"), default="0", choices=SPELL_AREAS)
_DURATION = Field("duration", "choice", Msg("Durée", "Duration"), default="0", choices=SPELL_DURATIONS)

SPELL_COMPONENT_FIELDS: tuple[Field, ...] = (
    Field("mode", "choice", Msg("Forme", "Form"), default="spell", choices=CAST_MODES),
    Field("magic_type", "choice", Msg("Magie", "Magic"), default="arcane", choices=MAGIC_TYPES),
    Field("nature", "choice", Msg("Nature de l'effet", "Effect nature"), default="misc", choices=SPELL_NATURES),
    Field("power", "int", Msg("Puissance", "Power"), default=1, minimum=1, maximum=5),
    Field(
        "severity",
        "choice",
        Msg("Gravité (offensif, curatif)", "Severity (offensive, curative)"),
        default="light",
        choices=SEVERITY_CHOICES,
    ),
    Field(
        "scope",
        "int",
        Msg("Portée du module (amélioration)", "Module scope (improvement)"),
        default=1,
        minimum=1,
        maximum=5,
    ),
    Field(
        "rank",
        "int",
        Msg("Rang du module (amélioration)", "Module rank (improvement)"),
        default=1,
        minimum=1,
        maximum=5,
    ),
    Field("opposed", "bool", Msg("La cible s'oppose", "The target opposes"), default=False),
    Field(
        "target_die", "int", Msg("Dé de défense de la cible", "Target's defence die"), default=0, minimum=0, maximum=40
    ),
    _RANGE,
    _AREA,
    _DURATION,
    Field(
        "extension_rank",
        "int",
        Msg("Rangs résistifs d'extension", "Resistive extension ranks"),
        default=0,
        minimum=0,
        maximum=30,
    ),
    Field(
        "participants", "int", Msg("Participants au rituel", "Ritual participants"), default=0, minimum=0, maximum=50
    ),
    Field(
        "damage_type",
        "choice",
        Msg("Type de dégâts (modèle B)", "Damage type (Model B)"),
        default="",
        choices=(("", Msg("—", "—")), *DAMAGE_TYPES),
    ),
    Field("intervention", "bool", Msg("Lancé en intervention", "Cast as an intervention"), default=False),
    _CIRC,
)


def test_kinds() -> dict[str, tuple[Field, ...]]:
    """The request fields of every test kind (a fresh dict over cached, immutable field tuples)."""
    return dict(_test_kinds())


@cache
def _test_kinds() -> dict[str, tuple[Field, ...]]:
    return {
        "action": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field(
                "die",
                "int",
                Msg("Dé de difficulté du MJ", "GM difficulty die"),
                default=6,
                minimum=0,
                maximum=40,
                required=True,
                audience="gm",
            ),
            _CIRC,
            Field(
                "threshold",
                "choice",
                Msg("Seuil", "Threshold"),
                default="none",
                choices=_c(
                    ("none", "Dé du MJ", "GM die"),
                    ("relative", "Relatif (degrés de réussite)", "Relative (degrees of success)"),
                    ("absolute", "Absolu (tout ou rien)", "Absolute (all or nothing)"),
                ),
                audience="gm",
            ),
            Field(
                "chosen_die",
                "int",
                Msg("Dé choisi par le joueur", "Die chosen by the player"),
                default=None,
                minimum=0,
                maximum=40,
            ),
        ),
        "attack_npc": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field("base_die", "int", Msg("Dé de base du PNJ", "NPC base die"), default=8, minimum=0, maximum=30),
            _SEV,
            Field(
                "armour_category",
                "int",
                Msg("Armure du PNJ engagée", "NPC armour engaged"),
                default=0,
                minimum=0,
                maximum=3,
            ),
            Field(
                "barrier_power",
                "int",
                Msg("Barrière magique du PNJ", "NPC magic barrier"),
                default=0,
                minimum=0,
                maximum=5,
            ),
            _CIRC,
            Field("is_minion", "bool", Msg("Sbire / quidam", "Minion / bystander"), default=False),
        ),
        "defend_npc": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field(
                "base_die",
                "int",
                Msg("Dé de base de l'attaque du PNJ", "NPC attack base die"),
                default=8,
                minimum=0,
                maximum=30,
            ),
            _SEV,
            Field(
                "armour_category",
                "int",
                Msg("Armure qui s'interpose", "Armour interposing"),
                default=0,
                minimum=0,
                maximum=3,
            ),
            Field("leather", "bool", Msg("Armure de cuir", "Leather armour"), default=False),
            Field("shield_category", "int", Msg("Bouclier", "Shield"), default=0, minimum=0, maximum=3),
            Field("barrier_power", "int", Msg("Barrière magique", "Magic barrier"), default=0, minimum=0, maximum=5),
            _CIRC,
        ),
        "opposed": (
            Field(
                "attacker_score",
                "int",
                Msg("Score de l'attaquant", "Attacker score"),
                default=1,
                minimum=-99,
                maximum=99,
            ),
            Field("attacker_die", "int", Msg("Dé de l'attaquant", "Attacker die"), default=6, minimum=0, maximum=40),
            Field(
                "defender_score", "int", Msg("Score du défenseur", "Defender score"), default=1, minimum=-99, maximum=99
            ),
            Field("defender_die", "int", Msg("Dé du défenseur", "Defender die"), default=6, minimum=0, maximum=40),
            Field("defends", "bool", Msg("Le défenseur réagit", "The defender reacts"), default=True),
            Field(
                "weapon_base",
                "int",
                Msg("Dégât de base de l'arme (modèle B)", "Weapon base damage (Model B)"),
                default=0,
                minimum=-1,
                maximum=1,
            ),
            Field(
                "armour_category", "int", Msg("Armure du défenseur", "Defender armour"), default=0, minimum=0, maximum=3
            ),
        ),
        "spell_builder": SPELL_COMPONENT_FIELDS,
        "cast_spell": (_SCORE, _SCORE_MODULES, _MOD, *SPELL_COMPONENT_FIELDS),
        "counter_spell": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field(
                "caster_base_die",
                "int",
                Msg("Dé pour interrompre ce lanceur (MJ)", "Die to interrupt this caster"),
                default=4,
                minimum=0,
                maximum=30,
            ),
            Field("power", "int", Msg("Puissance du sort", "Spell power"), default=1, minimum=1, maximum=5),
            Field(
                "magic_rank",
                "int",
                Msg("Rang dans la même magie", "Rank in the same magic"),
                default=0,
                minimum=0,
                maximum=30,
            ),
            _CIRC,
        ),
        "dispel": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field("power", "int", Msg("Puissance de l'effet", "Effect power"), default=1, minimum=1, maximum=5),
            Field(
                "magic_rank", "int", Msg("Meilleur rang de magie", "Best magic rank"), default=0, minimum=0, maximum=30
            ),
            Field(
                "effect_duration",
                "choice",
                Msg("Durée de l'effet", "Effect duration"),
                default="0",
                choices=SPELL_DURATIONS,
            ),
            Field("effect_area", "choice", Msg("Zone de l'effet", "Effect area"), default="0", choices=SPELL_AREAS),
            Field(
                "range",
                "choice",
                Msg("Portée jusqu'à l'effet", "Range to the effect"),
                default="0",
                choices=SPELL_RANGES,
            ),
            Field("ritual", "bool", Msg("Rituel de dissipation", "Ritual of dispelling"), default=False),
            _CIRC,
        ),
        "fall": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field(
                "height", "int", Msg("Hauteur (m)", "Height (m)"), default=0, minimum=0, maximum=10000, required=True
            ),
            Field("size_factor", "int", Msg("Facteur de taille", "Size factor"), default=5, minimum=1, maximum=9),
            Field("controlled", "bool", Msg("Chute contrôlée", "Controlled fall"), default=False),
            Field("sharp_surface", "bool", Msg("Surface saillante/tranchante", "Sharp surface"), default=False),
            Field("resist", "bool", Msg("Tenter d'amortir", "Try to cushion"), default=True),
            Field("chosen_die", "int", Msg("Dé choisi", "Chosen die"), default=None, minimum=0, maximum=40),
            Field("roll_anyway", "bool", Msg("Lancer pour un critique", "Roll for a critical"), default=False),
        ),
        "projection": (
            _SCORE,
            _SCORE_MODULES,
            _MOD,
            Field("distance", "int", Msg("Distance (m)", "Distance (m)"), default=0, minimum=0, maximum=10000),
            Field(
                "obstacle_after",
                "int",
                Msg("Obstacle après (m)", "Obstacle after (m)"),
                default=None,
                minimum=0,
                maximum=10000,
            ),
            Field("size_factor", "int", Msg("Facteur de taille", "Size factor"), default=5, minimum=1, maximum=9),
            Field("resist", "bool", Msg("Tenter d'amortir", "Try to cushion"), default=False),
            Field("chosen_die", "int", Msg("Dé choisi", "Chosen die"), default=None, minimum=0, maximum=40),
        ),
        "heal": (
            Field(
                "wounds",
                "list",
                Msg("Blessures de la cible", "Target's wounds"),
                default=[],
                max_items=100,
                item_fields=WOUND_ITEM_FIELDS,
            ),
            Field("level", "choice", Msg("Niveau du soin", "Healing level"), default="light", choices=SEVERITY_CHOICES),
            Field("area", "bool", Msg("Zone d'effet", "Area of effect"), default=False),
        ),
        "recovery": (
            Field(
                "event",
                "choice",
                Msg("Récupération", "Recovery"),
                default="sequence_end",
                required=True,
                choices=_c(
                    ("catch_breath", "Souffler toute une action", "Catch breath for a whole action"),
                    ("sequence_end", "Fin de la séquence d'action", "End of the action sequence"),
                    ("rest_hours", "Heures d'inactivité", "Hours of inactivity"),
                    ("sleep", "Une période de sommeil", "One sleep period"),
                    ("rest_days", "Journées de repos complet", "Full days of rest"),
                ),
            ),
            Field("amount", "int", Msg("Heures ou jours", "Hours or days"), default=0, minimum=0, maximum=1000),
            Field("transient", "int", Msg("Fatigue passagère", "Transient fatigue"), default=0, minimum=0, maximum=99),
            Field("lasting", "int", Msg("Fatigue durable", "Lasting fatigue"), default=0, minimum=0, maximum=99),
            Field(
                "persistent", "int", Msg("Fatigue persistante", "Persistent fatigue"), default=0, minimum=0, maximum=99
            ),
            Field("maintaining", "bool", Msg("Maintient un sort", "Maintains a spell"), default=False),
        ),
        "npc_difficulty": (
            Field("method", "choice", Msg("Méthode", "Method"), default="simple", choices=NPC_METHODS),
            Field("base", "int", Msg("Difficulté notée", "Noted difficulty"), default=0, minimum=0, maximum=40),
            _SCORE_MODULES,
            _MOD,
        ),
        "disease": _affliction_fields(),
        "poison": _affliction_fields(),
    }


def _affliction_fields() -> tuple[Field, ...]:
    return (
        _SCORE,
        _SCORE_MODULES,
        _MOD,
        Field("die", "int", Msg("Dé pour résister (MJ)", "Die to resist (GM)"), default=0, minimum=0, maximum=40),
        Field("boxes_total", "int", Msg("Cases (MJ)", "Boxes (GM)"), default=0, minimum=0, maximum=50),
        Field(
            "boxes_checked", "int", Msg("Cases déjà cochées", "Boxes already ticked"), default=0, minimum=0, maximum=50
        ),
        Field("rate", "int", Msg("Cases par étape", "Boxes per step"), default=1, minimum=1, maximum=10),
        Field("treated", "bool", Msg("Causes éliminées", "Causes removed"), default=False),
    )


#: Declaration inputs only the GM sets: the difficulty die, circumstances and other modifiers (L103, L246).
GM_ACTION_INPUTS = frozenset({"die", "circumstances", "modifier"})


@cache  # static declarations: built once (#21)
def action_fields() -> tuple[Field, ...]:
    return tuple(
        replace(f, audience="gm" if f.path in GM_ACTION_INPUTS else f.audience, when=_read_when(f.path))
        for f in _action_fields()
    )


#: Inputs only an attack reads (rules.sms.combat._attack: size, barrier, severity, shield, weapon, armour).
_ATTACK_ONLY = frozenset({"apply_size", "barrier_power", "severity", "shield", "weapon", "armour_applies"})
#: Inputs only a spell or a counter-spell reads (rules.sms.combat._spell_action).
_SPELL_ONLY = frozenset({"special_power"})


def _read_when(path: str) -> tuple[str, ...]:
    """The actions whose resolution reads ``path`` (empty: every action)."""
    if path in _ATTACK_ONLY:
        return ("attack",)
    if path in _SPELL_ONLY or path.startswith("spell."):
        return ("spell", "counter_spell")
    return ()


def _action_fields() -> tuple[Field, ...]:
    return (
        Field(
            ACTION_KEY,
            "choice",
            Msg("Action", "Action"),
            default="attack",
            required=True,
            choices=_c(
                (
                    "attack",
                    "Attaque (PJ → PNJ, ou PNJ → PJ : le PJ se défend)",
                    "Attack (PC → NPC, or NPC → PC: PC defends)",
                ),
                ("spell", "Sort", "Spell"),
                ("counter_spell", "Contre-sort", "Counter-spell"),
                ("catch_breath", "Souffler", "Catch breath"),
                ("other", "Autre action", "Other action"),
                ("end_sequence", "Fin de la séquence", "End of the sequence"),
            ),
        ),
        Field(
            "timing",
            "choice",
            Msg("Moment", "Timing"),
            default="action",
            choices=_c(
                ("action", "Action", "Action"),
                ("reaction", "Réaction", "Reaction"),
                ("intervention", "Intervention", "Intervention"),
            ),
        ),
        _SCORE,
        _SCORE_MODULES,
        _MOD,
        Field(
            "die",
            "int",
            Msg("Dé de base (sinon celui du PNJ)", "Base die (else the NPC's)"),
            default=None,
            minimum=0,
            maximum=30,
        ),
        _SEV,
        Field(
            "armour_applies",
            "choice",
            Msg("L'armure s'interpose", "Armour interposes"),
            default="full",
            choices=_c(("full", "Oui", "Yes"), ("partial", "Partiellement (−1)", "Partly (−1)"), ("none", "Non", "No")),
        ),
        Field("shield", "bool", Msg("Bouclier sur le membre visé", "Shield on the limb attacked"), default=False),
        Field("barrier_power", "int", Msg("Barrière magique", "Magic barrier"), default=0, minimum=0, maximum=5),
        _CIRC,
        Field(
            "weapon",
            "int",
            Msg("Arme", "Weapon"),
            default=None,
            minimum=0,
            maximum=19,
            item_of="weapons",
            # L597: an unsuited weapon costs the size difference.
            help=Msg(
                "Une arme de la feuille ; une arme inadaptée coûte la différence de taille.",
                "A weapon of the sheet; an unsuited weapon costs the size difference.",
            ),
        ),
        Field(
            "apply_size", "bool", Msg("Appliquer la différence de taille", "Apply the size difference"), default=True
        ),
        Field("special_power", "bool", Msg("Pouvoir particulier", "Special power"), default=False),
        # A "Sort" takes its spell from the spell builder's components (rules.sms.magic.build_spell, #19 item 7);
        # the timing and the circumstances are the declaration's own fields.
        *(
            replace(f, path=f"spell.{f.path}")
            for f in SPELL_COMPONENT_FIELDS
            if f.path not in ("intervention", "circumstances")
        ),
        Field("wound_nature", "str", Msg("Nature de la blessure", "Wound nature"), default="", max_length=120),
    )


def purchase_fields() -> dict[str, tuple[Field, ...]]:
    scenario = Field("scenario", "str", Msg("Scénario terminé", "Completed scenario"), required=True, max_length=120)
    completed = Field(
        "scenario_completed",
        "bool",
        Msg("Scénario terminé", "Scenario completed"),
        default=True,
        help=Msg(
            "On ne dépense qu'à la fin d'un scénario (L77).", "Experience is spent at the end of a scenario (L77)."
        ),
    )
    return {
        "raise_module": (
            Field("module", "int", Msg("Module", "Module"), required=True, minimum=0, maximum=199, item_of="modules"),
            scenario,
            completed,
        ),
        "new_module": (
            Field("name", "str", Msg("Nom du module", "Module name"), required=True, max_length=120),
            Field(
                "module_kind",
                "choice",
                Msg("Type", "Kind"),
                default="positive",
                choices=tuple(c for c in MODULE_KINDS if c[0] != "negative"),
            ),
            Field("scope", "int", Msg("Portée", "Scope"), default=1, minimum=1, maximum=5),
            Field(
                "predefined",
                "choice",
                Msg("Module prédéfini", "Predefined module"),
                default="",
                choices=PREDEFINED_MODULES,
            ),
            scenario,
            completed,
        ),
    }


ALL_RACES = tuple(RACES)


def migrate(sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
    """Fill missing keys with defaults; version 2: noted difficulties, a dict by
    name before, become a list of {name, difficulty} (repeatable)."""
    merged = default_from_fields(sheet_fields())
    for key, value in sheet.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    npc = merged.get("npc")
    if isinstance(npc, dict) and isinstance(npc.get("difficulties"), dict):
        npc["difficulties"] = [{"name": str(k), "difficulty": v} for k, v in npc["difficulties"].items()]
    return merged


#: Names of the sheet's group keys and budget pools (``Field.group``, ``DerivedSpec.group``, ``Budget.pools``).
GROUP_LABELS: dict[str, Msg] = {
    "combat": Msg("Combat", "Combat"),
    "equipment": Msg("Équipement", "Equipment"),
    "health": Msg("Santé", "Health"),
    "identity": Msg("Identité", "Identity"),
    "magic": Msg("Magie", "Magic"),
    "modules": Msg("Modules", "Modules"),
    "negative": Msg("Points négatifs", "Negative points"),
    "npc": Msg("Personnage non joueur", "Non-player character"),
    "progression": Msg("Progression", "Progression"),
    "xp": Msg("Expérience", "Experience"),
}
