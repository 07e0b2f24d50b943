"""Stored fields of an Ambre sheet, creation steps and campaign settings.

Only stored, bounded values live here (Foundry's ``defineSchema``); every
number the rules compute lives in :mod:`rules.ambre.derive`.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from rules.ambre import tables as T
from rules.base import Field, FieldError, Msg, Step, get_path, set_path, validate_fields

SCHEMA_VERSION = 1

# Default characteristic split of an Amberite attribute (25 points, L28): any
# split is legal; this one just makes the default sheet consistent.
DEFAULT_SPLIT = (9, 8, 8)


def _choices(table: dict[str, Any], blank: bool = False) -> tuple[tuple[str, Msg], ...]:
    out: list[tuple[str, Msg]] = [("", Msg("—", "—"))] if blank else []
    for key, value in table.items():
        if key == "":
            continue
        label = value[1] if isinstance(value, tuple) else value
        out.append((key, label if isinstance(label, Msg) else Msg(str(label), str(label))))
    return tuple(out)


def _tier_choices(category: T.Category) -> tuple[tuple[str, Msg], ...]:
    return (("", Msg("—", "—")), *category.tiers)


def artefact_item_fields(with_connection: bool = False) -> tuple[Field, ...]:
    """Fields of an artefact/creature (also a construct manifestation)."""
    fields: list[Field] = [
        Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
        Field(
            "kind",
            "choice",
            Msg("Nature", "Kind"),
            default="artefact",
            choices=(("artefact", Msg("Artefact", "Artefact")), ("creature", Msg("Créature", "Creature"))),
        ),
        Field("description", "text", Msg("Description", "Description"), default="", max_length=5000),
    ]
    for key, category in T.QUALITIES.items():
        fields.append(
            Field(
                f"qualities.{key}",
                "choice",
                category.label,
                default="",
                choices=_tier_choices(category),
                help=Msg(f"Qualité ({category.line})", f"Quality ({category.line})"),
            )
        )
    for key, category in T.ITEM_POWERS.items():
        for slug, label in category.tiers:
            fields.append(
                Field(
                    f"powers.{key}.{slug}",
                    "bool",
                    Msg(f"{category.label.fr} : {label.fr}", f"{category.label.en}: {label.en}"),
                    default=False,
                )
            )
    fields.append(
        Field(
            "transfers",
            "list",
            Msg("Transferts (L150)", "Transfers (L150)"),
            default=[],
            max_items=20,
            item_fields=(
                Field(
                    "kind",
                    "choice",
                    Msg("Type", "Kind"),
                    default="quality",
                    choices=(
                        ("quality", Msg("Qualité (5)", "Quality (5)")),
                        ("power", Msg("Pouvoir (10)", "Power (10)")),
                    ),
                ),
                Field(
                    "target",
                    "str",
                    Msg("Qualité ou pouvoir transféré", "Transferred quality or power"),
                    default="",
                    max_length=60,
                    help=Msg(
                        "Clé de la qualité (ex. « capacite_psy ») ou du pouvoir (ex. « guerison.rapide »).",
                        'Quality key (e.g. "capacite_psy") or power (e.g. "guerison.rapide").',
                    ),
                ),
            ),
        )
    )
    fields.append(
        Field(
            "quantity",
            "choice",
            Msg("Multiplicateur de quantité", "Quantity multiplier"),
            default="unique",
            choices=_choices(T.QUANTITY_MULTIPLIERS),
        )
    )
    if with_connection:
        fields.append(
            Field(
                "connection",
                "choice",
                Msg("Connexion", "Connection"),
                default="intrinseque",
                choices=_choices(T.CONNECTION_MULTIPLIERS),
            )
        )
    else:
        fields.append(Field("self_made", "bool", Msg("Créé par le personnage", "Made by the character"), default=False))
    return tuple(fields)


def shadow_item_fields(full: bool = True) -> tuple[Field, ...]:
    fields = [
        Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
        Field(
            "type",
            "choice",
            Msg("Type d'Ombre", "Shadow type"),
            default="personnelle",
            choices=_choices(T.SHADOW_TYPES),
        ),
        Field("barrier", "choice", Msg("Barrière", "Barrier"), default="", choices=_choices(T.SHADOW_BARRIERS, True)),
        Field("control", "choice", Msg("Contrôle", "Control"), default="", choices=_choices(T.SHADOW_CONTROLS, True)),
        Field(
            "broken_pattern",
            "bool",
            Msg("Contient une Marelle brisée (L277)", "Holds a Broken Pattern (L277)"),
            default=False,
        ),
    ]
    if full:
        fields += [
            Field(
                "type_description",
                "text",
                Msg("Description de l'Ombre", "Shadow description"),
                default="",
                max_length=5000,
            ),
            Field(
                "barrier_description",
                "text",
                Msg("Description de la barrière", "Barrier description"),
                default="",
                max_length=5000,
            ),
            Field(
                "control_description",
                "text",
                Msg("Description du contrôle", "Control description"),
                default="",
                max_length=5000,
            ),
            Field("location", "choice", Msg("Situation", "Location"), default="", choices=_choices(T.SHADOW_LOCATIONS)),
            Field(
                "shared",
                "bool",
                Msg("Partagée avec un autre joueur (L234)", "Shared with another player (L234)"),
                default=False,
            ),
            Field("co_owner", "str", Msg("Copropriétaire", "Co-owner"), default="", max_length=120),
            Field("pays_odd_point", "bool", Msg("Paie le point impair", "Pays the odd point"), default=False),
        ]
    return tuple(fields)


#: Ladder slots of an attribute (L18), as people read them (never the internal key on a page).
_LADDER_LABELS = {
    "true_position": ("place réelle (ancienne donnée, MJ)", "true place (old data, GM)"),
    "public_position": ("place publique", "public place"),
    "public_points": ("points à la dernière comparaison", "points at the last comparison"),
}


@functools.cache  # a constant: built once (frozen fields; defaults are copied where used)
def sheet_fields() -> tuple[Field, ...]:
    fields: list[Field] = [
        Field("name", "str", Msg("Nom", "Name"), default="", max_length=120, group="identity", step="identity"),
        Field(
            "creation_points",
            "int",
            Msg("Points de création (MJ)", "Creation points (GM)"),
            audience="gm",
            default=None,
            minimum=0,
            maximum=10000,
            group="karma",
            step="",
            help=Msg(
                "Vide : budget de la campagne (100, L22). Le MJ fixe celui d'un retardataire.",
                "Empty: the campaign budget (100, L22). The GM sets a late joiner's.",
            ),
        ),
    ]
    for key in T.ATTRIBUTES:
        fields.append(
            Field(
                f"attributes.{key}",
                "int",
                T.ATTRIBUTE_LABELS[key],
                default=0,
                minimum=T.HUMAN_POINTS,
                maximum=1000,
                group="attributes",
                step="attributes",
                secret=True,
                help=Msg(
                    "Points au-delà du rang Ambrien (0). −10 = Chaosien (+10 pts), −25 = Humain (+25 pts) (L18).",
                    "Points above Amberite rank (0). −10 = Chaosian (+10 pts), −25 = Human (+25 pts) (L18).",
                ),
            )
        )
    for attr in T.ATTRIBUTES:
        for index, key in enumerate(T.GOVERNS[attr]):
            fields.append(
                Field(
                    f"characteristics.{key}",
                    "int",
                    T.CHARACTERISTIC_LABELS[key],
                    default=DEFAULT_SPLIT[index],
                    minimum=0,
                    maximum=2000,
                    group=f"characteristics.{attr}",
                    step="characteristics",
                )
            )
    fields.append(
        Field(
            "powers",
            "list",
            Msg("Pouvoirs", "Powers"),
            default=[],
            max_items=30,
            group="powers",
            step="powers",
            help=Msg("Au moins un pouvoir est obligatoire (L55).", "At least one power is mandatory (L55)."),
            item_fields=(
                Field(
                    "power",
                    "choice",
                    Msg("Pouvoir", "Power"),
                    required=True,
                    choices=tuple((k, p.label) for k, p in T.POWERS.items()),
                ),
                Field(
                    "level",
                    "int",
                    Msg("Niveau du pouvoir", "Power level"),
                    default=None,
                    minimum=1,
                    maximum=100,
                    help=Msg(
                        "Vide : niveau de départ. Au-delà, table fournie par le MJ (L77–L94).",
                        "Empty: starting level. Beyond, table supplied by the GM (L77–L94).",
                    ),
                ),
                Field(
                    "via_marelle_brisee",
                    "bool",
                    Msg("Acquise après la Marelle brisée (L73)", "Gained after the Broken Pattern (L73)"),
                    default=False,
                ),
                Field(
                    "selections",
                    "text",
                    Msg("Mots, listes de sorts ou conjurations choisis", "Chosen words, spell lists or conjurations"),
                    default="",
                    max_length=2000,
                ),
            ),
        )
    )
    fields.append(
        Field(
            "artefacts",
            "list",
            Msg("Artefacts et créatures", "Artefacts and creatures"),
            default=[],
            max_items=50,
            group="assets",
            step="assets",
            item_fields=artefact_item_fields(),
        )
    )
    fields.append(
        Field(
            "shadows",
            "list",
            Msg("Ombres", "Shadows"),
            default=[],
            max_items=30,
            group="assets",
            step="assets",
            item_fields=shadow_item_fields(),
        )
    )
    fields.append(
        Field(
            "constructs",
            "list",
            Msg("Constructs", "Constructs"),
            default=[],
            max_items=20,
            group="assets",
            step="assets",
            item_fields=(
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field("description", "text", Msg("Description", "Description"), default="", max_length=5000),
                Field(
                    "base_power",
                    "choice",
                    Msg("Pouvoir de base", "Base power"),
                    default="autre",
                    choices=_choices(T.CONSTRUCT_BASES),
                ),
                Field(
                    "origin_shadows",
                    "list",
                    Msg("Ombres d'origine", "Origin shadows"),
                    default=[],
                    max_items=12,
                    item_fields=shadow_item_fields(full=False),
                ),
                Field(
                    "shadow_quantity",
                    "choice",
                    Msg("Multiplicateur d'Ombres", "Shadow multiplier"),
                    default="unique",
                    choices=_choices(T.CONSTRUCT_SHADOW_MULTIPLIERS),
                ),
                Field(
                    "manifestations",
                    "list",
                    Msg("Manifestations", "Manifestations"),
                    default=[],
                    max_items=12,
                    item_fields=artefact_item_fields(with_connection=True),
                ),
                Field(
                    "psyche", "choice", Msg("Psyché", "Psyche"), default="aucune", choices=_choices(T.CONSTRUCT_PSYCHE)
                ),
                Field(
                    "psyche_cost",
                    "int",
                    Msg("Coût de la psyché (MJ, L317)", "Psyche cost (GM, L317)"),
                    audience="gm",
                    default=None,
                    minimum=0,
                    maximum=1000,
                ),
                Field(
                    "self_made",
                    "bool",
                    Msg("Créé par le personnage (L241)", "Made by the character (L241)"),
                    default=True,
                ),
                Field("shared", "bool", Msg("Partagé (L323)", "Shared (L323)"), default=False),
                Field("co_owner", "str", Msg("Copropriétaire", "Co-owner"), default="", max_length=120),
                Field("pays_odd_point", "bool", Msg("Paie le point impair", "Pays the odd point"), default=False),
            ),
        )
    )
    fields.append(
        Field(
            "allies",
            "list",
            Msg("Alliés et amis", "Allies and friends"),
            default=[],
            max_items=30,
            group="assets",
            step="assets",
            item_fields=(
                Field("type", "choice", Msg("Type", "Type"), required=True, choices=_choices(T.ALLIES)),
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field("description", "text", Msg("Description", "Description"), default="", max_length=5000),
                Field(
                    "known_to_player",
                    "bool",
                    Msg("Connu du joueur (MJ, L327)", "Known to the player (GM, L327)"),
                    audience="gm",
                    default=True,
                ),
            ),
        )
    )
    fields.append(
        Field(
            "demons",
            "list",
            Msg("Démons liés (sans coût, L344)", "Bound demons (no cost, L344)"),
            default=[],
            max_items=20,
            group="assets",
            step="background",
            item_fields=(
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field(
                    "method", "choice", Msg("Moyen", "Method"), default="invocation", choices=_choices(T.DEMON_METHODS)
                ),
                Field("description", "text", Msg("Description", "Description"), default="", max_length=5000),
            ),
        )
    )
    fields.append(
        Field(
            "invented_powers",
            "list",
            Msg("Pouvoirs inventés (MJ, L456)", "Invented powers (GM, L456)"),
            audience="gm",
            default=[],
            max_items=5,
            group="powers",
            step="",
            item_fields=(
                Field("name", "str", Msg("Nom", "Name"), default="", max_length=120),
                Field(
                    "domain",
                    "choice",
                    Msg("Domaine", "Domain"),
                    default="aucun",
                    choices=tuple((k, Msg(k, k)) for k in T.INVENTED_DOMAINS),
                ),
                *(
                    Field(
                        f"versus.{o}",
                        "choice",
                        Msg(f"Contre {o}", f"Versus {o}"),
                        default="impuissant",
                        choices=tuple((k, Msg(k, k)) for k in T.INVENTED_STRENGTHS),
                    )
                    for o in T.INVENTED_OPPONENTS
                ),
                *(
                    Field(
                        f"multipliers.{c}",
                        "choice",
                        Msg(c, c),
                        default="",
                        choices=tuple((k, Msg(k or "—", k or "—")) for k in opts),
                    )
                    for c, opts in T.INVENTED_MULTIPLIERS.items()
                ),
                Field("gm_cost", "int", Msg("Coût fixé par le MJ", "Cost set by the GM"), default=None, minimum=0),
            ),
        )
    )
    fields.append(
        Field(
            "karma_loan",
            "bool",
            Msg("J'accepte un karma négatif (prêt, L389)", "I accept negative karma (a loan, L389)"),
            default=False,
            group="karma",
            step="karma",
        )
    )
    fields.append(
        Field(
            "background",
            "text",
            Msg("Historique", "Background"),
            default="",
            max_length=50000,
            group="background",
            step="background",
        )
    )
    for key, label in (
        ("life_max", Msg("Vie", "Life")),
        ("energy_max", Msg("Énergie", "Energy")),
        ("ranged_level", Msg("Niveau à distance", "Ranged level")),
        ("thrown_level", Msg("Niveau de lancer", "Thrown level")),
        ("melee_level", Msg("Niveau au corps à corps", "Melee level")),
        ("wrestling_level", Msg("Niveau de lutte", "Wrestling level")),
    ):
        fields.append(
            Field(
                f"modifiers.{key}",
                "int",
                Msg(f"Modificateur MJ : {label.fr}", f"GM modifier: {label.en}"),
                audience="gm",
                default=0,
                minimum=-1000,
                maximum=1000,
                group="modifiers",
                step="",
                help=Msg(
                    "Variations dues à l'environnement, au karma… (L400).",
                    "Variations due to environment, karma... (L400).",
                ),
            )
        )
    for key in T.ATTRIBUTES:
        # ``true_position`` is no longer written (the GMs' true ladder is never stored on a sheet, L18);
        # it stays declared so that older sheets validate. ``public_points``: the owner's points when last compared.
        for pos, (fr, en) in _LADDER_LABELS.items():
            fields.append(
                Field(
                    f"ladder.{key}.{pos}",
                    "int",
                    Msg(f"{T.ATTRIBUTE_LABELS[key].fr} : {fr}", f"{T.ATTRIBUTE_LABELS[key].en}: {en}"),
                    default=None,
                    minimum=T.HUMAN_POINTS if pos == "public_points" else 1,
                    maximum=1000,
                    group="ladder",
                    step="",
                    secret=True,
                )
            )
    fields += [
        Field(
            "condition.life_damage",
            "int",
            Msg("Points de vie perdus", "Life lost"),
            default=0,
            minimum=0,
            maximum=100000,
            group="condition",
        ),
        Field(
            "condition.energy_spent",
            "int",
            Msg("Énergie dépensée", "Energy spent"),
            default=0,
            minimum=0,
            maximum=100000,
            group="condition",
        ),
        Field(
            "condition.keys_used",
            "int",
            Msg("Clés utilisées", "Keys used"),
            default=0,
            minimum=0,
            maximum=1000,
            group="condition",
        ),
        *(
            Field(
                f"condition.wounds.{w}",
                "int",
                Msg(f"Blessures {T.WOUND_LABELS[w].fr}s", f"{T.WOUND_LABELS[w].en.capitalize()} wounds"),
                default=0,
                minimum=0,
                maximum=1000,
                group="condition",
            )
            for w in T.WOUND_ORDER
        ),
        Field("condition.coma", "bool", Msg("Coma", "Coma"), default=False, group="condition"),
        Field(
            "condition.dying",
            "bool",
            Msg("Hors de combat / mourant", "Out of action / dying"),
            default=False,
            group="condition",
        ),
        Field(
            "condition.dead",
            "bool",
            Msg("Mort (décision du MJ)", "Dead (GM decision)"),
            audience="gm",
            default=False,
            group="condition",
        ),
    ]
    return tuple(fields)


def creation_steps() -> tuple[Step, ...]:
    fields = sheet_fields()

    def paths(step: str) -> tuple[str, ...]:
        return tuple(f.path for f in fields if f.step == step)

    return (
        Step("identity", Msg("Identité", "Identity"), paths("identity")),
        Step(
            "attributes",
            Msg("Attributs (enchères)", "Attributes (auction)"),
            paths("attributes"),
            Msg(
                "Rang Ambrien par défaut ; rétrogradez pour récupérer des points (L17–L18).",
                "Amberite rank by default; downgrade to recover points (L17–L18).",
            ),
        ),
        Step(
            "characteristics",
            Msg("Caractéristiques", "Characteristics"),
            paths("characteristics"),
            Msg(
                "Répartissez 25 + points d'attribut entre ses trois caractéristiques (L28).",
                "Spread 25 + attribute points over its three characteristics (L28).",
            ),
        ),
        Step(
            "powers",
            Msg("Pouvoirs", "Powers"),
            paths("powers"),
            Msg("Au moins un pouvoir (L55).", "At least one power (L55)."),
        ),
        Step(
            "assets",
            Msg("Artefacts, Ombres, constructs, alliés", "Artefacts, shadows, constructs, allies"),
            paths("assets"),
        ),
        Step(
            "karma",
            Msg("Karma", "Karma"),
            paths("karma"),
            Msg(
                "Un solde négatif est un prêt remboursé par les prochains gains (L389).",
                "A negative balance is a loan repaid by the next awards (L389).",
            ),
        ),
        Step("background", Msg("Historique", "Background"), paths("background")),
    )


#: The choices of a power (the campaign's power tables are keyed by it).
POWER_CHOICES: tuple[tuple[str, Msg], ...] = tuple((key, spec.label) for key, spec in T.POWERS.items())

#: One row of a GM's power table (:func:`rules.ambre.costs.power_table`): the level, the cumulative
#: karma cost to hold it, the rank named at the last level of a rank (L77), a description and the
#: words, spells or types the level opens (:func:`rules.ambre.costs.available_selections`, L85).
POWER_TABLE_ROW: tuple[Field, ...] = (
    Field("level", "int", Msg("Niveau", "Level"), required=True, minimum=1),
    Field("cost", "int", Msg("Coût cumulé (karma)", "Cumulative cost (karma)"), required=True, minimum=0),
    Field("rank", "str", Msg("Rang affiché", "Rank shown"), default="", max_length=60),
    Field("description", "text", Msg("Propriétés", "Properties"), default="", max_length=2000),
    Field(
        "items",
        "list",
        Msg("Mots, sorts ou types ouverts", "Words, spells or types opened"),
        default=[],
        max_items=50,
        value_field=Field("item", "str", Msg("Nom", "Name"), required=True, max_length=120),
    ),
)


def power_tables_example() -> dict[str, Any]:
    """Starter power tables: per power only the row the text gives, its starting level at its initial
    cost ("Le coût initial est de N points et permet d'accéder immédiatement au niveau M", L59–L75).
    The later levels are missing (L77–L94): the GM adds them; no number is invented."""
    return {
        key: [{"level": spec.level, "cost": spec.cost, "rank": "", "description": "", "items": []}]
        for key, spec in T.POWERS.items()
    }


def campaign_settings_fields() -> tuple[Field, ...]:
    def choice(path: str, label: Msg, default: str, options: tuple[tuple[str, Msg], ...], help: Msg) -> Field:
        return Field(path, "choice", label, default=default, choices=options, help=help, group="readings")

    return (
        Field(
            "starting_budget",
            "int",
            Msg("Points de création", "Creation points"),
            default=T.STARTING_BUDGET,
            minimum=0,
            maximum=10000,
            group="creation",
            help=Msg("100 au début d'une campagne (L22).", "100 at the start of a campaign (L22)."),
        ),
        Field(
            "debt_limit",
            "int",
            Msg("Dette de karma maximale", "Maximum karma debt"),
            default=None,
            minimum=0,
            maximum=10000,
            group="karma",
            help=Msg("Vide : pas de limite (L389 n'en fixe aucune).", "Empty: no limit (L389 sets none)."),
        ),
        Field(
            "attribute_point_cost",
            "int",
            Msg("Coût d'un point d'attribut après création", "Cost of an attribute point after creation"),
            default=1,
            minimum=1,
            maximum=100,
            group="karma",
            help=Msg(
                "Le post Expérience (L389) manque : 1 comme aux enchères.",
                "The Experience post (L389) is missing: 1 as at the auction.",
            ),
        ),
        Field(
            "session_award",
            "int",
            Msg("Karma suggéré par séance", "Suggested karma per session"),
            default=0,
            minimum=0,
            maximum=1000,
            group="karma",
            help=Msg(
                "0 : aucune suggestion ; le MJ attribue (L389, post Expérience absent).",
                "0: no suggestion; the GM awards (L389, Experience post missing).",
            ),
        ),
        Field(
            "power_tables",
            "dict",
            Msg("Tables des pouvoirs (MJ)", "Power tables (GM)"),
            default={},
            group="powers",
            key_field=Field("power", "choice", Msg("Pouvoir", "Power"), required=True, choices=POWER_CHOICES),
            value_field=Field(
                "levels", "list", Msg("Niveaux", "Levels"), default=[], max_items=100, item_fields=POWER_TABLE_ROW
            ),
            example=power_tables_example(),
            help=Msg(
                "Absentes du texte (L77–L94) : une ligne par niveau, avec son coût cumulé. L'exemple ne donne que le "
                "niveau de départ et le coût initial du texte (L59–L75) ; les niveaux suivants sont à vous.",
                "Missing from the text (L77–L94): one row per level, with its cumulative cost. The example gives "
                "only the text's starting level and initial cost (L59–L75); the next levels are yours.",
            ),
        ),
        Field(
            "power_rank_names",
            "dict",
            Msg("Noms des rangs au-delà d'Adepte", "Names of ranks beyond Adept"),
            default={},
            group="powers",
            max_items=50,
            key_field=Field("rank", "int", Msg("Rang", "Rank"), required=True, minimum=3),
            value_field=Field("name", "str", Msg("Nom", "Name"), required=True, max_length=60),
            example={"3": ""},
            help=Msg(
                "Novice (niveaux 1–4), Adepte (5–8), « et ainsi de suite » (L77) : le texte ne nomme pas les "
                "rangs suivants ; sans nom, « Rang 3 ».",
                'Novice (levels 1–4), Adept (5–8), "and so on" (L77): the text names no later rank; unnamed, "Rank 3".',
            ),
        ),
        Field(
            "agression_tier3_cost",
            "int",
            Msg("Coût de « maîtrise du combat »", 'Cost of "combat mastery"'),
            default=4,
            minimum=0,
            maximum=100,
            group="readings",
            help=Msg(
                "Coût absent (L119) : 4 comme les autres catégories.",
                "Cost missing (L119): 4 like every other category.",
            ),
        ),
        Field(
            "transfers_multiplied",
            "bool",
            Msg("Transferts soumis au multiplicateur de quantité", "Transfers inside the quantity multiplier"),
            default=True,
            group="readings",
            help=Msg("Ordre des étapes (L104–L106).", "Step order (L104–L106)."),
        ),
        Field(
            "artefact_minimum_cost",
            "int",
            Msg("Coût minimal d'un artefact lié", "Minimum cost of a bound item"),
            default=0,
            minimum=0,
            maximum=10,
            group="readings",
        ),
        Field(
            "require_shadow_descriptions",
            "bool",
            Msg("Description obligatoire de chaque aspect d'Ombre", "Each shadow aspect must be described"),
            default=True,
            group="readings",
            help=Msg("L173.", "L173."),
        ),
        choice(
            "construct_base_reading",
            Msg("Coût de base de plusieurs Ombres d'origine", "Base cost of several origin shadows"),
            "union",
            (
                ("union", Msg("Ombre hypothétique réunissant tout", "Hypothetical shadow with every feature")),
                ("most_expensive", Msg("Ombre la plus chère", "Most expensive shadow")),
                ("literal", Msg("La plus chère, réunion si égalité", "Most expensive, union on a tie")),
            ),
            Msg("L282.", "L282."),
        ),
        Field(
            "construct_power_psyche_cost",
            "int",
            Msg("Coût d'une psyché basée sur le pouvoir", "Cost of a power-based psyche"),
            default=None,
            minimum=0,
            maximum=1000,
            group="readings",
            help=Msg("Absent (L317).", "Missing (L317)."),
        ),
        choice(
            "broken_pattern_reading",
            Msg("Marelle après la Marelle brisée", "Pattern after the Broken Pattern"),
            "minus_2",
            (
                ("minus_2", Msg("50 − 10 − 2 = 38", "50 − 10 − 2 = 38")),
                ("plus_2", Msg("50 − (10 − 2) = 42", "50 − (10 − 2) = 42")),
            ),
            Msg("L73.", "L73."),
        ),
        Field(
            "allow_invented_powers",
            "bool",
            Msg("Autoriser les pouvoirs inventés", "Allow invented powers"),
            default=False,
            group="powers",
            help=Msg("L456 : rarement autorisé.", "L456: rarely allowed."),
        ),
        choice(
            "invented_multiplier_rule",
            Msg("Combinaison des multiplicateurs", "Combining multipliers"),
            "product",
            (
                ("product", Msg("Produit", "Product")),
                ("sum", Msg("Somme", "Sum")),
                ("max", Msg("Le plus fort", "Highest")),
            ),
            Msg("L561.", "L561."),
        ),
        choice(
            "tie_rule",
            Msg("Égalité à la touche / comparaison", "Tie on touch / comparison"),
            "stalemate",
            (
                ("stalemate", Msg("Statu quo, pas de dégâts", "Stalemate, no damage")),
                ("attribute", Msg("Départage par l'attribut parent", "Broken by the parent attribute")),
                ("gm", Msg("Le MJ tranche", "The GM decides")),
            ),
            Msg("Égalités non traitées (L418).", "Ties not covered (L418)."),
        ),
        choice(
            "initiative_tie",
            Msg("Égalité d'initiative", "Initiative tie"),
            "simultaneous",
            (
                ("simultaneous", Msg("Actions simultanées", "Simultaneous actions")),
                ("attribute", Msg("Départage par l'attribut parent", "Broken by the parent attribute")),
            ),
            Msg("L416.", "L416."),
        ),
        choice(
            "wrestling_touch",
            Msg("Défense contre la lutte", "Defence against wrestling"),
            "force",
            (
                ("force", Msg("Force contre Force (L41)", "Strength vs Strength (L41)")),
                ("hab_cac", Msg("Habileté au CaC (L418 littéral)", "Melee skill (L418 literal)")),
            ),
            Msg("L41/L418.", "L41/L418."),
        ),
        choice(
            "unarmed_defence",
            Msg("Défense sans arme ou surpris", "Unarmed or surprised defence"),
            "rapidite",
            (
                ("rapidite", Msg("Rapidité (L43)", "Speed (L43)")),
                ("hab_cac", Msg("Habileté au CaC (L418/L420 littéral)", "Melee skill (L418/L420 literal)")),
            ),
            Msg("L43.", "L43."),
        ),
        Field(
            "ranged_parry",
            "bool",
            Msg("Parade contre les armes à distance", "Parry against ranged weapons"),
            default=True,
            group="readings",
            help=Msg("L50 « bien que cela dépende des armes ».", 'L50: "although it depends on the weapons".'),
        ),
        choice(
            "mortal_determination",
            Msg("Détermination après blessure mortelle", "Determination after a mortal wound"),
            "below_5v",
            (
                ("below_5v", Msg("Dégâts < Volonté × 5", "Damage < Willpower × 5")),
                ("above_5v", Msg("Dégâts > Volonté × 5 (L434 littéral)", "Damage > Willpower × 5 (L434 literal)")),
            ),
            Msg("L434.", "L434."),
        ),
        Field(
            "automatic_death",
            "bool",
            Msg("Mort automatique", "Automatic death"),
            default=False,
            group="readings",
            help=Msg(
                "Non : mortelle + karma négatif (L429) ou vie à 0 sont signalés au MJ.",
                "No: mortal wound + negative karma (L429) or life 0 are flagged to the GM.",
            ),
        ),
        choice(
            "auction_tie",
            Msg("Égalité de points après enchères", "Equal points after the auction"),
            "earlier",
            (
                ("earlier", Msg("Le premier détenteur l'emporte", "The earlier holder wins")),
                ("equal", Msg("Rang égal", "Equal rank")),
            ),
            Msg("L18.", "L18."),
        ),
    )


def _mark_unhashable(data: Any, fields: tuple[Field, ...] | list[Field]) -> None:
    for f in fields:
        value = get_path(data, f.path)
        if f.kind == "choice" and isinstance(value, list | dict | set):
            set_path(data, f.path, "<invalid>")
        elif f.kind == "list" and f.item_fields and isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _mark_unhashable(item, f.item_fields)


def safe_validate(data: Any, fields: tuple[Field, ...] | list[Field]) -> list[FieldError]:
    """:func:`rules.base.validate_fields` that also survives a list or object
    given for a choice (reported as ``invalid_choice`` instead of raising)."""
    if not isinstance(data, dict):
        return [FieldError("", "invalid_dict", Msg("Objet attendu.", "Expected an object."))]
    try:
        return validate_fields(data, fields)
    except TypeError:  # an unhashable value given for a choice
        cleaned = copy.deepcopy(data)
        _mark_unhashable(cleaned, tuple(fields))
        return validate_fields(cleaned, fields)


DICT_GROUPS = ("attributes", "characteristics", "modifiers", "ladder", "condition")
LIST_GROUPS = ("powers", "artefacts", "shadows", "constructs", "allies", "demons", "invented_powers")


def coerce(sheet: Any) -> dict[str, Any]:
    """A shallow-safe view of a possibly malformed sheet: every group has its
    container type (wrong ones become empty), so computations never crash.
    Validation still reports the original errors."""
    if not isinstance(sheet, dict):
        return {}
    data = dict(sheet)
    for key in DICT_GROUPS:
        if not isinstance(data.get(key), dict):
            data[key] = {}
    for key in LIST_GROUPS:
        value = data.get(key)
        data[key] = [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
    condition = dict(data["condition"])
    if not isinstance(condition.get("wounds"), dict):
        condition["wounds"] = {}
    data["condition"] = condition
    data["ladder"] = {k: v for k, v in data["ladder"].items() if isinstance(v, dict)}
    return data


def migrate(sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
    """Bring a stored sheet to :data:`SCHEMA_VERSION` (repeatable).

    Version 0 (drafts) stored attributes as ``{"points": n}`` objects and may
    miss whole groups; version 1 stores the signed points as ints.
    """
    if from_version > SCHEMA_VERSION:
        raise ValueError(f"sheet version {from_version} is newer than {SCHEMA_VERSION}")
    data = copy.deepcopy(sheet)
    if from_version < 1:
        attrs = data.get("attributes") or {}
        for key, value in list(attrs.items()):
            if isinstance(value, dict):
                attrs[key] = value.get("points", 0)
        data["attributes"] = attrs
        for key in ("powers", "artefacts", "shadows", "constructs", "allies", "demons", "invented_powers"):
            data.setdefault(key, [])
    return data


def validate_settings(settings: dict[str, Any], fields: tuple[Field, ...]) -> list[FieldError]:
    """A campaign's settings: the declared types, then the shape of the power tables (``{level, cost}`` rows)."""
    errors = safe_validate(settings, fields)
    tables = settings.get("power_tables") or {}
    reported = {e.path.split(".")[1] for e in errors if e.path.startswith("power_tables.")}
    if isinstance(tables, dict):
        for power, rows in tables.items():
            if power not in T.POWERS or power in reported:
                continue  # an unknown power or a wrong row: the declared fields' check said it at its field
            if not isinstance(rows, list) or not all(
                isinstance(r, dict) and isinstance(r.get("level"), int) and isinstance(r.get("cost"), int) for r in rows
            ):
                errors.append(
                    FieldError(
                        f"power_tables.{power}",
                        "invalid_table",
                        Msg("Liste attendue de {level, cost} entiers.", "Expected a list of integer {level, cost}."),
                    )
                )
    return errors


#: Names of the sheet's group keys and budget pools (``Field.group``, ``DerivedSpec.group``, ``Budget.pools``).
GROUP_LABELS: dict[str, Msg] = {
    "assets": Msg("Possessions et alliés", "Assets"),
    "attributes": Msg("Attributs", "Attributes"),
    "background": Msg("Historique", "Background"),
    "characteristics": Msg("Caractéristiques", "Characteristics"),
    "characteristics.cbt": Msg("Caractéristiques · Combat", "Characteristics · Combat"),
    "characteristics.end": Msg("Caractéristiques · Endurance", "Characteristics · Endurance"),
    "characteristics.phy": Msg("Caractéristiques · Physique", "Characteristics · Physical"),
    "characteristics.psy": Msg("Caractéristiques · Psyché", "Characteristics · Psyche"),
    "combat": Msg("Combat", "Combat"),
    "condition": Msg("État", "Condition"),
    "creation": Msg("Création", "Creation"),
    "identity": Msg("Identité", "Identity"),
    "karma": Msg("Karma", "Karma"),
    "ladder": Msg("Classement", "Ladder"),
    "levels": Msg("Niveaux", "Levels"),
    "modifiers": Msg("Modificateurs", "Modifiers"),
    "powers": Msg("Pouvoirs", "Powers"),
    "sorcery": Msg("Sorcellerie", "Sorcery"),
}
