"""Stored fields of a Clefs de l'Aube sheet, campaign settings and request forms.

Sheet shape (schema version 1)::

    aspects      {PH, ME, MY}      after the creation exchanges (L550-L569); current values are derived
    means        {PU..PE}          the current profile (L247-L341)
    skills       [{name, aspect, default_means, nc, creation_nc, aspect_px_granted}]
    means_exchanges_done int       post-creation means exchange tokens used or declined (L650-L653)
    conditions   [{kind, value, source, note, active}]  GM handicaps/advantages (wounds..., L739-L754)
    creation     {aspect_method, roll, aspects_assigned, means_method, means_assigned, skill_package}
    notes        text

The combination names (L356-L422) are deliberately NOT sheet fields nor
derived values: the text forbids printing them on the sheet (L360-L363).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import cache
from typing import Any

from rules.base import ACTION_KEY, Field, Msg, Step
from rules.clefs import tables as t

ASPECT_CHOICES = tuple((code, t.ASPECT_LABELS[code]) for code in t.ASPECTS)
MEANS_CHOICES = tuple((code, t.MEANS_LABELS[code]) for code in t.MEANS)
CRIT_CHOICES = (
    ("default", Msg("Par défaut de la campagne", "Campaign default")),
    ("none", Msg("Aucun dé critique", "No critical die")),
    *((f"d{n}", Msg(f"d{n}", f"d{n}")) for n in t.CRIT_DIE_SIZES),
)

SKILL_ITEM_FIELDS: tuple[Field, ...] = (
    Field("name", "str", Msg("Nom", "Name"), required=True, max_length=80),
    Field(
        "aspect",
        "choice",
        Msg("Aspect", "Aspect"),
        choices=ASPECT_CHOICES,
        required=True,
        help=Msg("Chaque compétence est reliée à un aspect (L475).", "Each skill is tied to one aspect (L475)."),
    ),
    Field("default_means", "choice", Msg("Moyen par défaut", "Default means"), choices=MEANS_CHOICES, required=True),
    Field(
        "nc",
        "int",
        Msg("Niveau de compétence (NC)", "Skill level (NC)"),
        default=0,
        minimum=t.NC_MIN,
        maximum=t.NC_MAX,
        required=True,
    ),
    Field(
        "creation_nc",
        "int",
        Msg("NC à la création", "NC at creation"),
        default=None,
        minimum=t.NC_MIN,
        maximum=t.NC_MAX,
        help=Msg(
            "Vide : acquise à la création à son NC actuel. 0 : apprise ensuite.",
            "Empty: acquired at creation at its current NC. 0: learnt later.",
        ),
    ),
    Field(
        "aspect_px_granted",
        "int",
        Msg("PX d'aspect donnés", "Aspect XP given"),
        default=None,
        minimum=0,
        maximum=t.NC_MAX,
        help=Msg("Vide : égal au NC (pas de limite anti-abus).", "Empty: equal to the NC (no anti-abuse limit)."),
    ),
)

CONDITION_ITEM_FIELDS: tuple[Field, ...] = (
    Field(
        "kind",
        "choice",
        Msg("Type", "Kind"),
        default="handicap",
        choices=(("handicap", Msg("Handicap", "Handicap")), ("advantage", Msg("Avantage", "Advantage"))),
    ),
    Field("value", "int", Msg("Valeur", "Value"), default=0, minimum=0, maximum=100, required=True),
    Field(
        "source",
        "str",
        Msg("Cause", "Source"),
        max_length=80,
        help=Msg(
            "Blessure, alcool, malédiction, équipement… (L742-L752)", "Wound, alcohol, curse, equipment… (L742-L752)"
        ),
        value_labels=t.CONDITION_SOURCE_LABELS,
    ),
    Field("note", "str", Msg("Note", "Note"), max_length=200),
    Field("active", "bool", Msg("Actif", "Active"), default=True),
)


@cache  # a constant: built once (frozen fields; defaults are copied where used)
def sheet_fields() -> tuple[Field, ...]:
    fields: list[Field] = [
        Field(
            "creation.aspect_method",
            "choice",
            Msg("Méthode des aspects", "Aspect method"),
            default="FIXED_10",
            choices=tuple(t.ASPECT_METHOD_LABELS.items()),
            group="creation",
            step="aspects",
            required=True,
        ),
        Field(
            "creation.means_method",
            "choice",
            Msg("Méthode des moyens", "Means method"),
            default="ZERO",
            choices=tuple(t.MEANS_METHOD_LABELS.items()),
            group="creation",
            step="aspects",
            required=True,
        ),
        Field(
            "creation.roll",
            "dict",
            Msg("Tirage de création (serveur)", "Creation roll (server)"),
            default={},
            group="creation",
            step="aspects",
            help=Msg("Rempli par le serveur ; ne se modifie pas.", "Filled by the server; not editable."),
        ),
    ]
    for code in t.ASPECTS:
        fields.append(
            Field(
                f"creation.aspects_assigned.{code}",
                "int",
                Msg(f"{t.ASPECT_LABELS[code].fr}, résultat placé", f"{t.ASPECT_LABELS[code].en}, placed result"),
                default=10,
                minimum=0,
                maximum=30,
                group="creation",
                step="aspects",
            )
        )
    for code in t.ASPECTS:
        fields.append(
            Field(
                f"aspects.{code}",
                "int",
                t.ASPECT_LABELS[code],
                default=10,
                minimum=0,
                maximum=60,
                group="aspects",
                step="aspect_exchanges",
                required=True,
                help=Msg(
                    "Après les 5 échanges de création (≤ 15 si monté, ≥ 5 si baissé).",
                    "After the 5 creation exchanges (≤ 15 if raised, ≥ 5 if lowered).",
                ),
            )
        )
    for code in t.MEANS:
        fields.append(
            Field(
                f"creation.means_assigned.{code}",
                "int",
                Msg(f"{t.MEANS_LABELS[code].fr}, valeur placée", f"{t.MEANS_LABELS[code].en}, placed value"),
                default=0,
                minimum=-5,
                maximum=5,
                group="creation",
                step="means",
            )
        )
    for code in t.MEANS:
        fields.append(
            Field(
                f"means.{code}",
                "int",
                t.MEANS_LABELS[code],
                default=0,
                minimum=t.MEANS_MIN,
                maximum=t.MEANS_MAX,
                group="means",
                step="means",
                required=True,
            )
        )
    fields += [
        Field(
            "creation.skill_package",
            "choice",
            Msg("Compétences de départ", "Starting skills"),
            default="standard",
            choices=tuple(t.SKILL_PACKAGE_LABELS.items()),
            group="creation",
            step="skills",
            required=True,
        ),
        Field(
            "skills",
            "list",
            Msg("Compétences", "Skills"),
            default=[],
            item_fields=SKILL_ITEM_FIELDS,
            max_items=200,
            group="skills",
            step="skills",
        ),
        Field(
            "means_exchanges_done",
            "int",
            Msg("Échanges de moyens utilisés ou refusés", "Means exchanges used or declined"),
            default=0,
            minimum=0,
            maximum=1000,
            group="progression",
        ),
        Field(
            "conditions",
            "list",
            Msg("Handicaps et avantages", "Handicaps and advantages"),
            default=[],
            item_fields=CONDITION_ITEM_FIELDS,
            max_items=100,
            group="conditions",
        ),
        Field("notes", "text", Msg("Notes", "Notes"), default="", max_length=10000, group="notes", step="skills"),
    ]
    return tuple(fields)


def creation_steps() -> tuple[Step, ...]:
    by_step: dict[str, list[str]] = {}
    for f in sheet_fields():
        if f.step:
            by_step.setdefault(f.step, []).append(f.path)
    labels = {
        "aspects": (
            Msg("1. Aspects", "1. Aspects"),
            Msg(
                "Lancez 2 × 2d6+3 (ou 2d6−2) ou prenez 10 partout, puis placez les trois résultats (L520-L537).",
                "Roll 2 × 2d6+3 (or 2d6−2) or take 10 everywhere, then place the three results (L520-L537).",
            ),
        ),
        "aspect_exchanges": (
            Msg("2. Échanges d'aspects", "2. Aspect exchanges"),
            Msg(
                "Jusqu'à 5 échanges d'un point ; pas au-dessus de 15 ni sous 5 (L550-L556).",
                "Up to 5 one-point exchanges; not above 15 nor below 5 (L550-L556).",
            ),
        ),
        "means": (
            Msg("3. Moyens", "3. Means"),
            Msg(
                "Placez les valeurs tirées, puis jusqu'à 5 points d'échange ; somme 0, −5..+5, "
                "Pu ≤ Ré+5, Ma ≤ Pr+5, Ex ≤ Pe+5 (L572-L581).",
                "Place the rolled values, then up to 5 exchange points; sum 0, −5..+5, "
                "Pu ≤ Ré+5, Ma ≤ Pr+5, Ex ≤ Pe+5 (L572-L581).",
            ),
        ),
        "skills": (
            Msg("4. Compétences", "4. Skills"),
            Msg(
                "Deux disciples (10) et trois apprentis (5) ; elles donnent des PX d'aspect (L596-L606).",
                "Two disciples (10) and three apprentices (5); they give aspect PX (L596-L606).",
            ),
        ),
    }
    return tuple(Step(key, labels[key][0], tuple(paths), labels[key][1]) for key, paths in by_step.items())


@cache  # static declarations: built once (#21)
def campaign_settings_fields() -> tuple[Field, ...]:
    return (
        Field(
            "allow_aspect_roll_standard",
            "bool",
            Msg("Aspects : tirage 2d6+3 permis", "Aspects: 2d6+3 roll allowed"),
            default=True,
            group="creation",
        ),
        Field(
            "allow_aspect_roll_low",
            "bool",
            Msg("Aspects : tirage faible 2d6−2 permis (note L529)", "Aspects: low 2d6−2 roll allowed (footnote L529)"),
            default=True,
            group="creation",
        ),
        Field(
            "allow_aspect_fixed_10",
            "bool",
            Msg("Aspects : 10 partout permis", "Aspects: 10 everywhere allowed"),
            default=True,
            group="creation",
        ),
        Field(
            "allow_means_zero",
            "bool",
            Msg("Moyens : tous à zéro permis", "Means: all zero allowed"),
            default=True,
            group="creation",
        ),
        Field(
            "allow_means_roll",
            "bool",
            Msg("Moyens : tirage 2d6−7 permis", "Means: 2d6−7 roll allowed"),
            default=True,
            group="creation",
        ),
        Field(
            "allow_compagnon_trade",
            "bool",
            Msg(
                "Permettre l'échange 2 disciples + 2 apprentis contre 1 compagnon (L599-L602)",
                "Allow trading 2 disciples + 2 apprentices for 1 journeyman (L599-L602)",
            ),
            default=False,
            group="creation",
        ),
        Field(
            "allow_extra_creation_skills",
            "bool",
            Msg(
                "Le Gardien accorde d'autres compétences de départ (L599-L600)",
                "The GM grants other starting skills (L599-L600)",
            ),
            default=False,
            group="creation",
        ),
        Field(
            "aspect_feeding_skills",
            "choice",
            Msg(
                "Limite anti-abus : compétences qui nourrissent les aspects (note L655-L665)",
                "Anti-abuse limit: skills that feed the aspects (footnote L655-L665)",
            ),
            default="unlimited",
            choices=(
                ("unlimited", Msg("Toutes", "All")),
                ("top5", Msg("Les 5 plus fortes", "The 5 strongest")),
                ("top10", Msg("Les 10 plus fortes", "The 10 strongest")),
            ),
            group="progression",
            help=Msg(
                "Vérifiée à chaque hausse, jamais rétroactive ; égalités : la plus ancienne.",
                "Checked on each increase, never retroactive; ties: the earliest.",
            ),
        ),
        Field(
            "default_crit_die",
            "choice",
            Msg("Dé critique par défaut (L1002-L1003, L1052-L1058)", "Default critical die (L1002-L1003, L1052-L1058)"),
            default="none",
            choices=tuple(c for c in CRIT_CHOICES if c[0] != "default"),
            group="resolution",
        ),
        Field(
            "negative_nd_default",
            "bool",
            Msg(
                "ND négatif : compter un échec comme un °R négatif par défaut (L882-L888)",
                "Negative ND: count a failure as a negative degree by default (L882-L888)",
            ),
            default=False,
            group="resolution",
        ),
        Field(
            "confrontation_force_roll",
            "bool",
            Msg(
                "Confrontations : toujours lancer les dés, même à CA ≤ 1 ou ≥ 20",
                "Opposed actions: always roll, even at CA ≤ 1 or ≥ 20",
            ),
            default=True,
            group="combat",
        ),
        Field(
            "initiative_mode",
            "choice",
            Msg("Ordre d'action en combat", "Combat acting order"),
            default="declared",
            choices=(
                (
                    "declared",
                    Msg(
                        "Fixé par le Gardien (« Ordre d'action » de chacun)",
                        "Set by the GM (each one's “Acting order”)",
                    ),
                ),
                (
                    "opposed_roll",
                    Msg(
                        "Jet d'aspect + moyen, classé comme une confrontation",
                        "Aspect + means roll, ranked like a confrontation",
                    ),
                ),
            ),
            group="combat",
        ),
        Field(
            "initiative_aspect",
            "choice",
            Msg("Aspect du jet d'ordre", "Aspect of the order roll"),
            default="PH",
            choices=ASPECT_CHOICES,
            group="combat",
        ),
        Field(
            "initiative_means",
            "choice",
            Msg("Moyen du jet d'ordre", "Means of the order roll"),
            default="PE",
            choices=MEANS_CHOICES,
            group="combat",
        ),
        Field(
            "harm_mode",
            "choice",
            Msg("Blessures en combat", "Harm in combat"),
            default="gm",
            choices=(
                ("gm", Msg("Le Gardien fixe le handicap (texte)", "The GM sets the handicap (text)")),
                ("margin", Msg("Règle maison : handicap = écart de °R", "House rule: handicap = degree margin")),
            ),
            group="combat",
            help=Msg(
                "Le texte fourni s'arrête avant le combat : les blessures sont des handicaps (L739-L746).",
                "The supplied text stops before combat: wounds are handicaps (L739-L746).",
            ),
        ),
        Field(
            "px_per_session",
            "int",
            Msg("PX suggérés par séance (0 : aucun)", "Suggested PX per session (0: none)"),
            default=0,
            minimum=0,
            maximum=1000,
            group="progression",
        ),
        Field(
            "px_per_critical",
            "int",
            Msg(
                "PX suggérés par dé critique déclenché (groupe simulationniste, L634-L637)",
                "Suggested PX per triggered critical die (simulationist group, L634-L637)",
            ),
            default=0,
            minimum=0,
            maximum=1000,
            group="progression",
        ),
    )


def action_request_fields(prefix: str = "") -> tuple[Field, ...]:
    """Fields of one simple action (test request)."""
    p = prefix
    return (
        Field(f"{p}aspect", "int", Msg("Aspect (valeur)", "Aspect (value)"), minimum=-100, maximum=200, required=True),
        Field(f"{p}aspect_code", "choice", Msg("Aspect", "Aspect"), choices=ASPECT_CHOICES),
        Field(
            f"{p}means",
            "int",
            Msg("Moyen (valeur, 0 : aspect seul)", "Means (value, 0: aspect only)"),
            default=0,
            minimum=-20,
            maximum=20,
        ),
        Field(f"{p}means_code", "choice", Msg("Moyen", "Means"), choices=MEANS_CHOICES),
        Field(f"{p}skill_name", "str", Msg("Compétence", "Skill"), max_length=80),
        Field(
            f"{p}skill_nc",
            "int",
            Msg("NC de la compétence (vide : aucune)", "Skill NC (empty: none)"),
            minimum=t.NC_MIN,
            maximum=t.NC_MAX,
        ),
        Field(f"{p}handicap", "int", Msg("Handicap", "Handicap"), default=0, minimum=0, maximum=200, audience="gm"),
        Field(f"{p}advantage", "int", Msg("Avantage", "Advantage"), default=0, minimum=0, maximum=200, audience="gm"),
        Field(
            f"{p}force_roll",
            "bool",
            Msg("Le Gardien fait lancer quand même (CA ≤ 1 ou ≥ 20)", "GM forces the roll (CA ≤ 1 or ≥ 20)"),
            default=False,
            audience="gm",
        ),
        Field(
            f"{p}crit_die",
            "choice",
            Msg("Dé critique", "Critical die"),
            default="default",
            choices=CRIT_CHOICES,
            audience="gm",
        ),
        Field(
            f"{p}nd",
            "int",
            Msg("Niveau de difficulté (ND, vide : aucun)", "Difficulty level (ND, empty: none)"),
            minimum=-100,
            maximum=100,
            audience="gm",
        ),
        Field(
            f"{p}nd_hidden",
            "bool",
            Msg("ND caché au joueur", "ND hidden from the player"),
            default=False,
            audience="gm",
        ),
        Field(
            f"{p}negative_nd",
            "bool",
            Msg("ND négatif : un échec compte comme °R négatif", "Negative ND: a failure counts as a negative degree"),
            default=False,
            audience="gm",
        ),
    )


def test_kinds() -> dict[str, tuple[Field, ...]]:
    """The request fields of every test kind (a fresh dict over cached, immutable field tuples)."""
    return dict(_test_kinds())


@cache
def _test_kinds() -> dict[str, tuple[Field, ...]]:
    side_a = action_request_fields("a.")
    side_b = action_request_fields("b.")
    return {
        "action": action_request_fields(),
        "confrontation": side_a + side_b,
        "multiple": (
            Field(
                "actions",
                "list",
                Msg("Actions simultanées, par ordre d'importance", "Simultaneous actions, by importance"),
                item_fields=action_request_fields(),
                max_items=10,
                required=True,
            ),
            Field(
                "unplanned",
                "list",
                Msg("Actions imprévues", "Unplanned actions"),
                item_fields=action_request_fields(),
                max_items=10,
            ),
        ),
        "overreach": (
            *action_request_fields(),
            Field(
                "diff",
                "int",
                Msg("Difficulté de l'effet (Diff)", "Effect difficulty (Diff)"),
                minimum=-100,
                maximum=100,
                audience="gm",
                help=Msg(
                    "Sert de ND du jet de résolution (L1122-L1126).",
                    "Used as the ND of the resolution roll (L1122-L1126).",
                ),
            ),
            Field(
                "eff",
                "int",
                Msg("Effort maximal (Eff)", "Maximal effort (Eff)"),
                minimum=0,
                maximum=1000,
                help=Msg(
                    "Enregistré seulement : la suite du texte manque (L1130-L1134).",
                    "Recorded only: the rest of the text is missing (L1130-L1134).",
                ),
            ),
        ),
    }


#: Declaration inputs only the Keeper (*Gardien*) sets: the acting order, the difficulty, handicaps and
#: advantages imposed, the harm a win inflicts, forcing a roll, the critical die, and the condition operations.
GM_ACTION_INPUTS = frozenset(
    {"order", "handicap", "advantage", "force_roll", "crit_die", "nd", "harm", "condition_op", "condition_value"}
)


@cache  # static declarations: built once (#21)
def action_fields() -> tuple[Field, ...]:
    """Combat declaration fields (see :mod:`rules.clefs.combat`); :data:`GM_ACTION_INPUTS` are the GM's."""
    return tuple(replace(f, audience="gm") if f.path in GM_ACTION_INPUTS else f for f in _action_fields())


def _action_fields() -> tuple[Field, ...]:
    return (
        Field(
            ACTION_KEY,
            "choice",
            Msg("Type d'action", "Action kind"),
            default="opposed",
            required=True,
            choices=(
                ("opposed", Msg("Action opposée (confrontation)", "Opposed action (confrontation)")),
                ("simple", Msg("Action simple", "Simple action")),
                ("condition", Msg("Le Gardien ajoute ou retire un handicap", "GM adds or removes a handicap")),
            ),
        ),
        Field(
            "order",
            "int",
            Msg("Ordre d'action (mode « fixé par le Gardien »)", "Acting order (GM-set mode)"),
            default=0,
            minimum=-1000,
            maximum=1000,
        ),
        Field("aspect_code", "choice", Msg("Aspect", "Aspect"), choices=ASPECT_CHOICES, default="PH"),
        Field(
            "means_code",
            "choice",
            Msg("Moyen", "Means"),
            choices=(("", Msg("Aucun moyen", "No means")), *MEANS_CHOICES),
            default="",
        ),
        Field("skill_name", "str", Msg("Compétence", "Skill"), max_length=80),
        Field(
            "skill_untrained",
            "bool",
            Msg(
                "Jet profane (MJ) : compétence absente de la feuille, NC 0",
                "Untrained roll (GM): skill not on the sheet, NC 0",
            ),
            default=False,
            audience="gm",
            help=Msg(
                "Le MJ fait jouer une compétence que le personnage n'a pas : BC −10 (L431-L432, L493-L495).",
                "The GM has the character use a skill he lacks: BC −10 (L431-L432, L493-L495).",
            ),
        ),
        Field("handicap", "int", Msg("Handicap supplémentaire", "Extra handicap"), default=0, minimum=0, maximum=200),
        Field("advantage", "int", Msg("Avantage", "Advantage"), default=0, minimum=0, maximum=200),
        Field(
            "planned_actions",
            "int",
            Msg("Actions simultanées prévues ce tour (N)", "Planned simultaneous actions (N)"),
            default=1,
            minimum=1,
            maximum=10,
        ),
        Field(
            "action_index",
            "int",
            Msg("Rang d'importance de cette action", "Importance rank of this action"),
            default=1,
            minimum=1,
            maximum=10,
        ),
        Field(
            "unplanned_index",
            "int",
            Msg("Action imprévue n° (0 : prévue)", "Unplanned action no. (0: planned)"),
            default=0,
            minimum=0,
            maximum=10,
        ),
        Field("force_roll", "bool", Msg("Forcer le jet", "Force the roll"), default=False),
        Field("crit_die", "choice", Msg("Dé critique", "Critical die"), default="default", choices=CRIT_CHOICES),
        Field("nd", "int", Msg("ND (action simple)", "ND (simple action)"), minimum=-100, maximum=100),
        Field(
            "defense_aspect_code",
            "choice",
            Msg("Défense : aspect", "Defence: aspect"),
            choices=ASPECT_CHOICES,
            default="PH",
        ),
        Field(
            "defense_means_code",
            "choice",
            Msg("Défense : moyen", "Defence: means"),
            choices=(("", Msg("Aucun moyen", "No means")), *MEANS_CHOICES),
            default="RE",
        ),
        Field("defense_skill_name", "str", Msg("Défense : compétence", "Defence: skill"), max_length=80),
        Field(
            "harm",
            "int",
            Msg("Handicap infligé si l'action l'emporte (Gardien)", "Handicap inflicted on a win (GM)"),
            default=0,
            minimum=0,
            maximum=100,
        ),
        Field("harm_note", "str", Msg("Nature de la blessure", "Nature of the harm"), max_length=200),
        Field(
            "condition_op",
            "choice",
            Msg("Opération", "Operation"),
            default="add",
            choices=(
                ("add", Msg("Ajouter", "Add")),
                ("remove", Msg("Retirer (n°)", "Remove (no.)")),
                ("clear", Msg("Tout retirer", "Clear all")),
            ),
        ),
        Field(
            "condition_kind",
            "choice",
            Msg("Handicap ou avantage", "Handicap or advantage"),
            default="handicap",
            choices=(("handicap", Msg("Handicap", "Handicap")), ("advantage", Msg("Avantage", "Advantage"))),
        ),
        Field("condition_value", "int", Msg("Valeur", "Value"), default=0, minimum=0, maximum=100),
        Field(
            "condition_index",
            "int",
            Msg("N° du handicap à retirer", "No. of the handicap to remove"),
            default=0,
            minimum=0,
            maximum=100,
        ),
    )


def purchase_fields() -> dict[str, tuple[Field, ...]]:
    return {
        "raise_skill": (
            Field("skill", "str", Msg("Compétence", "Skill"), required=True, max_length=80),
            Field("aspect", "choice", Msg("Aspect de la compétence", "Skill's aspect"), choices=ASPECT_CHOICES),
            Field("to", "int", Msg("Nouveau NC", "New NC"), minimum=1, maximum=t.NC_MAX, required=True),
        ),
        "new_skill": (
            Field("skill", "str", Msg("Nom", "Name"), required=True, max_length=80),
            Field("aspect", "choice", Msg("Aspect", "Aspect"), choices=ASPECT_CHOICES, required=True),
            Field(
                "default_means",
                "choice",
                Msg("Moyen par défaut", "Default means"),
                choices=MEANS_CHOICES,
                required=True,
            ),
            Field("to", "int", Msg("NC visé", "Target NC"), default=1, minimum=1, maximum=t.NC_MAX, required=True),
        ),
        "means_exchange": (
            Field(
                "from",
                "choice",
                Msg("Moyen qui cède 1 point", "Means giving 1 point"),
                choices=MEANS_CHOICES,
                required=True,
            ),
            Field(
                "to",
                "choice",
                Msg("Moyen qui reçoit 1 point", "Means receiving 1 point"),
                choices=MEANS_CHOICES,
                required=True,
            ),
        ),
        "decline_means_exchange": (),
    }


def migrate(sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
    """Version 0 → 1: accept the seed's alternative codes (Mt, Rs, full names) as keys (reading G24)."""
    if from_version >= 1:
        return sheet
    sheet = copy.deepcopy(sheet)
    for key, aliases in (("aspects", t.ASPECT_ALIASES), ("means", t.MEANS_ALIASES)):
        block = sheet.get(key)
        if isinstance(block, dict):
            sheet[key] = {aliases.get(str(k).upper(), k): v for k, v in block.items()}
    skills = sheet.get("skills")
    for skill in skills if isinstance(skills, list) else []:
        if not isinstance(skill, dict):
            continue
        if "aspect" in skill:
            skill["aspect"] = t.ASPECT_ALIASES.get(str(skill["aspect"]).upper(), skill["aspect"])
        if "default_means" in skill:
            skill["default_means"] = t.MEANS_ALIASES.get(str(skill["default_means"]).upper(), skill["default_means"])
    return sheet


#: Names of the sheet's group keys and budget pools (``Field.group``, ``DerivedSpec.group``, ``Budget.pools``).
GROUP_LABELS: dict[str, Msg] = {
    "aspects": Msg("Aspects", "Aspects"),
    "aspect_exchanges": Msg("Échanges d'aspects", "Aspect exchanges"),
    "combat": Msg("Combat", "Combat"),
    "conditions": Msg("Conditions", "Conditions"),
    "creation": Msg("Création", "Creation"),
    "means": Msg("Moyens", "Means"),
    "means_exchanges": Msg("Échanges de moyens", "Means exchanges"),
    "notes": Msg("Notes", "Notes"),
    "progression": Msg("Progression", "Progression"),
    "skill_levels": Msg("Niveaux de compétences", "Skill levels"),
    "skills": Msg("Compétences", "Skills"),
}
