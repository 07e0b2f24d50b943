"""Stored fields of an Altaride sheet, campaign settings and catalogues.

Sheet shape (all JSON)::

    {
      "is_player_character": true, "is_anthropoid": true, "creation_complete": false,
      "talents": {"HAB": 5, ... 12 codes},            # L36-L47, base 5 (L63)
      "talent_magic_bonus": {"HAB": 0, ...},          # temporary magic effects (L55)
      "endurance_bought": {"EP": 0, "EM": 0, "EL": 0, "EO": 0},   # +1 per 2 XP (L115)
      "endurance_current": {"EP": null, ...},         # null = full (= max)
      "skills": [{"key": "mains_nues", "level": 3, "formula": ""}],  # formula from catalogue
      "scruples": 10,
      "schools": [{"school": "enchanteurs", "magic_level": 1, ...}],
      "guild_spells": [...], "capacities": [...], "aptitudes": [...],
      "weapons": [{"key": "..."}], "charged_objects": [...],
      "conditions": {"unconscious": false, "unconscious_cause": "", "dead": false, "madness": "", "mounted": false}
    }

The skill list and the weapons table are missing from the seed (L85-L89,
L198-L209, spec A1): they are campaign catalogues (``skill_catalogue``,
``weapon_catalogue``, ``aptitude_catalogue``) the GM fills in. A new
campaign starts with :func:`starter_skill_catalogue` (what the text names,
marked ``starter``); the weapon and aptitude catalogues start empty (the text
names no weapon with its numbers). A sheet skill whose key is not in the
catalogue may carry its own ``formula`` (e.g. ``"HAB+VIG"``) entered by the GM.

A catalogue skill whose formula is blank is *pending*: the formula is the
GM's to fix (the table is missing, L85-L89; spec A1, A5). Reading chosen so
that such a skill can still be rolled: its Formule counts 0 until the GM sets
it, so its Chances de réussite are its Niveau alone ("Formule + Niveau de
Compétence = Chances de Réussite", L71, with nothing known to add), and no
Talent caps its level (L61 caps by "le Talent correspondant", none known
here; the creation cap of 15, L83, still holds).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rules.altaride import tables as T
from rules.base import Field, FieldError, Msg, Step, error

_TALENT_CHOICES = tuple((t, T.TALENT_LABELS[t]) for t in T.TALENTS)
_POOL_CHOICES = tuple((p, T.POOL_LABELS[p]) for p in T.POOLS)
_SCHOOL_CHOICES = tuple(T.SCHOOLS.items())
_ELEMENT_CHOICES = (("", Msg("—", "—")), *T.ELEMENTS.items())
_CAUSE_CHOICES = (
    ("", Msg("—", "—")),
    ("EP", T.POOL_LABELS["EP"]),
    ("EM", T.POOL_LABELS["EM"]),
    ("EL", T.POOL_LABELS["EL"]),
)

SKILL_ITEM_FIELDS = (
    Field("key", "str", Msg("Compétence", "Skill"), required=True, max_length=60),
    Field("level", "int", Msg("Niveau de Compétence", "Skill level"), default=0, minimum=0),
    Field(
        "formula",
        "str",
        Msg("Formule (si hors catalogue)", "Formula (if not in the catalogue)"),
        default="",
        max_length=40,
        help=Msg("Codes de Talents séparés par +, ex. HAB+VIG (L89).", "Talent codes joined by +, e.g. HAB+VIG (L89)."),
    ),
)

SCHOOL_ITEM_FIELDS = (
    Field("school", "choice", Msg("École", "School"), choices=_SCHOOL_CHOICES, required=True),
    Field("magic_level", "int", Msg("Niveau de magie", "Magic level"), default=1, minimum=1, maximum=10),
    Field("major_element", "choice", Msg("Élément majeur", "Major element"), default="", choices=_ELEMENT_CHOICES),
    Field("minor_element", "choice", Msg("Élément mineur", "Minor element"), default="", choices=_ELEMENT_CHOICES),
    Field("major_level", "int", Msg("Niveau majeur", "Major level"), default=1, minimum=1, maximum=10),
    Field("minor_level", "int", Msg("Niveau mineur", "Minor level"), default=1, minimum=1, maximum=10),
    Field("guild", "str", Msg("Guilde", "Guild"), default="", max_length=100),
    Field("max_accessible_level", "int", Msg("Niveau du grimoire", "Grimoire level"), default=5, minimum=1, maximum=10),
    Field("honorary", "bool", Msg("Membre honoraire", "Honorary member"), default=False),
    Field("derogation", "bool", Msg("Dérogation spéciale", "Special derogation"), default=False),
)

GUILD_SPELL_FIELDS = (
    Field("name", "str", Msg("Sortilège", "Spell"), required=True, max_length=100),
    Field("level", "int", Msg("Niveau", "Level"), default=1, minimum=1),
    Field("guild", "str", Msg("Guilde", "Guild"), default="", max_length=100),
)

CAPACITY_FIELDS = (
    Field("name", "str", Msg("Capacité", "Capacity"), required=True, max_length=100),
    Field("level", "int", Msg("Niveau", "Level"), default=1, minimum=1),
)

APTITUDE_FIELDS = (
    Field("key", "str", Msg("Aptitude", "Aptitude"), required=True, max_length=60),
    Field("level", "int", Msg("Niveau d'Aptitude", "Aptitude level"), default=1, minimum=1),
)

WEAPON_ITEM_FIELDS = (Field("key", "str", Msg("Arme", "Weapon"), required=True, max_length=60),)

CHARGED_OBJECT_FIELDS = (
    Field("name", "str", Msg("Objet", "Object"), required=True, max_length=100),
    Field("runes_score", "int", Msg("Score en Runes", "Runes score"), default=10, minimum=0),
    Field("spell", "str", Msg("Sortilège", "Spell"), default="", max_length=100),
    Field("spell_level", "int", Msg("Niveau du sort", "Spell level"), default=1, minimum=1, maximum=10),
    Field("charges", "int", Msg("Charges", "Charges"), default=0, minimum=0),
)


@cache  # a constant: built once (frozen fields; defaults are copied where used)
def sheet_fields() -> tuple[Field, ...]:
    fields: list[Field] = [
        Field(
            "is_player_character",
            "bool",
            Msg("Personnage joueur", "Player character"),
            default=True,
            group="identity",
            step="talents",
        ),
        Field(
            "is_anthropoid",
            "bool",
            Msg("Antropoïde", "Anthropoid"),
            default=True,
            group="identity",
            step="talents",
            help=Msg("Talents limités à 20 (L55).", "Talents capped at 20 (L55)."),
        ),
        Field(
            "creation_complete",
            "bool",
            Msg("Création terminée", "Creation complete"),
            default=False,
            group="identity",
            step="finish",
        ),
    ]
    for domain, trio in T.DOMAINS.items():
        for t in trio:
            fields.append(
                Field(
                    f"talents.{t}",
                    "int",
                    T.TALENT_LABELS[t],
                    default=T.TALENT_BASE,
                    minimum=0,
                    group=f"domain_{domain.lower()}",
                    step="talents",
                )
            )
    for t in T.TALENTS:
        fields.append(
            Field(
                f"talent_magic_bonus.{t}",
                "int",
                Msg(f"Bonus magique {T.TALENT_LABELS[t].fr}", f"Magic bonus {T.TALENT_LABELS[t].en}"),
                default=0,
                group="magic_effects",
                step="",
            )
        )
    for p in T.POOLS:
        fields.append(
            Field(
                f"endurance_bought.{p}",
                "int",
                Msg(f"{T.POOL_LABELS[p].fr} achetée", f"{T.POOL_LABELS[p].en} bought"),
                default=0,
                minimum=0,
                group="endurance",
                step="other",
            )
        )
    for p in T.POOLS:
        fields.append(
            Field(
                f"endurance_current.{p}",
                "int",
                Msg(f"{T.POOL_LABELS[p].fr} actuelle", f"{T.POOL_LABELS[p].en} current"),
                default=None,
                minimum=0 if p == "EO" else None,
                group="endurance",
                step="",
                help=Msg("Vide = maximum.", "Empty = maximum."),
            )
        )
    fields += [
        Field(
            "skills",
            "list",
            Msg("Compétences", "Skills"),
            item_fields=SKILL_ITEM_FIELDS,
            max_items=200,
            group="skills",
            step="other",
        ),
        Field(
            "scruples",
            "int",
            Msg("Scrupules", "Scruples"),
            default=T.SCRUPLES_BASE,
            minimum=T.SCRUPLES_MIN,
            maximum=T.SCRUPLES_MAX,
            group="morality",
            step="other",
        ),
        Field(
            "schools",
            "list",
            Msg("Écoles de Sorcellerie", "Schools of sorcery"),
            item_fields=SCHOOL_ITEM_FIELDS,
            max_items=6,
            group="sorcery",
            step="other",
        ),
        Field(
            "guild_spells",
            "list",
            Msg("Sorts de Guilde", "Guild spells"),
            item_fields=GUILD_SPELL_FIELDS,
            max_items=200,
            group="sorcery",
            step="",
        ),
        Field(
            "capacities",
            "list",
            Msg("Capacités", "Capacities"),
            item_fields=CAPACITY_FIELDS,
            max_items=100,
            group="capacities",
            step="other",
        ),
        Field(
            "aptitudes",
            "list",
            Msg("Aptitudes", "Aptitudes"),
            item_fields=APTITUDE_FIELDS,
            max_items=100,
            group="aptitudes",
            step="other",
        ),
        Field(
            "weapons",
            "list",
            Msg("Armes", "Weapons"),
            item_fields=WEAPON_ITEM_FIELDS,
            max_items=30,
            group="equipment",
            step="equipment",
        ),
        Field(
            "charged_objects",
            "list",
            Msg("Objets chargés", "Charged objects"),
            item_fields=CHARGED_OBJECT_FIELDS,
            max_items=50,
            group="equipment",
            step="equipment",
        ),
        Field("conditions.unconscious", "bool", Msg("Inconscient", "Unconscious"), default=False, group="state"),
        Field(
            "conditions.unconscious_cause",
            "choice",
            Msg("Cause de l'inconscience", "Cause of unconsciousness"),
            default="",
            choices=_CAUSE_CHOICES,
            group="state",
        ),
        Field("conditions.dead", "bool", Msg("Mort", "Dead"), default=False, group="state"),
        Field("conditions.madness", "text", Msg("Folie", "Madness"), default="", max_length=500, group="state"),
        Field("conditions.mounted", "bool", Msg("Monté", "Mounted"), default=False, group="state"),
    ]
    return tuple(fields)


def creation_steps() -> tuple[Step, ...]:
    by_step: dict[str, list[str]] = {}
    for f in sheet_fields():
        if f.step:
            by_step.setdefault(f.step, []).append(f.path)
    return (
        Step(
            "talents",
            Msg("Talents (4000 points)", "Talents (4,000 points)"),
            tuple(by_step["talents"]),
            help=Msg(
                "Chaque Talent entre 5 et 15 ; les points non dépensés sont perdus (L51, L55).",
                "Each talent between 5 and 15; unspent points are lost (L51, L55).",
            ),
        ),
        Step(
            "other",
            Msg("Compétences, Endurances, Écoles… (500 points)", "Skills, Endurance, schools… (500 points)"),
            tuple(by_step["other"]),
            help=Msg(
                "Chances de réussite au plus 15 à la création (L77).", "Success chance at most 15 at creation (L77)."
            ),
        ),
        Step("equipment", Msg("Équipement", "Equipment"), tuple(by_step["equipment"])),
        Step("finish", Msg("Validation", "Finish"), tuple(by_step["finish"])),
    )


# ---------------------------------------------------------------------------
# Campaign settings: catalogues and readings.
# ---------------------------------------------------------------------------
SKILL_CATALOGUE_FIELDS = (
    Field(
        "starter",
        "bool",
        Msg("Entrée de départ — à modifier", "Starter entry — edit it"),
        default=False,
        help=Msg(
            "Bâtie sur ce que nomme le texte ; complétez-la puis décochez cette case.",
            "Built from what the text names; complete it, then untick this box.",
        ),
    ),
    Field("key", "str", Msg("Identifiant", "Key"), required=True, max_length=60),
    Field("name", "str", Msg("Nom", "Name"), required=True, max_length=100),
    Field("category", "choice", Msg("Catégorie", "Category"), default="intellectuelle", choices=T.SKILL_CATEGORIES),
    Field(
        "formula",
        "str",
        Msg("Formule (ex. HAB+VIG)", "Formula (e.g. HAB+VIG)"),
        default="",
        max_length=40,
        help=Msg(
            "Vide : formule à fixer par le MJ (table absente du texte) ; d'ici là elle compte 0 "
            "et les Chances de réussite valent le Niveau.",
            "Blank: formula left for the GM (table missing from the text); until then it counts 0 "
            "and the success chances equal the level.",
        ),
    ),
    Field("description", "text", Msg("Description", "Description"), default="", max_length=2000),
)

#: Shown where a skill's formula is blank (the table is missing from the text).
FORMULA_PENDING = Msg(
    "Formule à fixer par le MJ : table absente du texte",
    "Formula left for the GM: table missing from the text",
)

WEAPON_CATALOGUE_FIELDS = (
    Field("key", "str", Msg("Identifiant", "Key"), required=True, max_length=60),
    Field("name", "str", Msg("Nom", "Name"), required=True, max_length=100),
    Field("initiative", "int", Msg("Initiative", "Initiative"), default=0),
    Field("damage_lucidite", "int", Msg("Dommages Lucidité (X)", "Lucidity damage (X)"), default=0),
    Field("damage_physique", "int", Msg("Dommages Physique (X)", "Physical damage (X)"), default=0),
    Field("vig_min", "int", Msg("VIG Mini", "Min. Vigour"), default=0, minimum=0),
    Field("skill", "str", Msg("Compétence", "Skill"), default="", max_length=60),
    Field("mounted_only", "bool", Msg("Sur monture seulement", "Mounted only"), default=False),
    Field("weight", "str", Msg("Poids", "Weight"), default="", max_length=30),
    Field("price", "str", Msg("Prix", "Price"), default="", max_length=30),
    Field("legality", "str", Msg("Légalité", "Legality"), default="", max_length=60),
    Field("rarity", "str", Msg("Rareté", "Rarity"), default="", max_length=60),
)

APTITUDE_CATALOGUE_FIELDS = (
    Field("key", "str", Msg("Identifiant", "Key"), required=True, max_length=60),
    Field("name", "str", Msg("Nom", "Name"), required=True, max_length=100),
    Field("level1_cost", "int", Msg("Prix au niveau 1 (XP)", "Level-1 price (XP)"), required=True, minimum=0),
)


def starter_skill_catalogue() -> list[dict[str, Any]]:
    """The skills the text names, for a new campaign (the GM edits them).

    The skill table is missing (L85-L89): the text names one skill, *Mains
    Nues*, and ties it to Vigueur only ("fort score en Talent Vigueur …
    Chances de réussite non négligeables (du fait de sa force)", L75; "les
    Compétences qui dépendent de Vigueur", L61). Its category is martial
    (combat, L87). No other talent of its formula is given: the description
    says so, for the GM to complete. No number is invented.

    The four categories (Intellectuelles, Guerrières, Corporelles,
    Relationnelles, L87) are the ``category`` choices. No dodge or parry skill
    is named (L105-L109, spec A16): the ``dodge_skill`` reading stays blank for
    the GM. The text names no other skill: "Sciences" (L169) and
    "Incantations", "Manipulations", "Runes" (L173-L181) are Talents (spec
    §2.1, A3). Each entry is marked ``starter`` so the editor says it is the
    GM's to complete; existing campaigns keep their own catalogue (the starter
    is copied into a new campaign only)."""
    return [
        {
            "key": "mains_nues",
            "name": "Mains Nues",
            "category": "guerriere",
            "formula": "VIG",
            "description": (
                "Combat à mains nues. Le texte ne lie cette Compétence qu'à la Vigueur ; "
                "les autres Talents de sa Formule sont à compléter par le MJ."
            ),
            "starter": True,
        }
    ]


@cache  # static declarations: built once (#21)
def campaign_settings_fields() -> tuple[Field, ...]:
    return (
        Field(
            "skill_catalogue",
            "list",
            Msg("Catalogue des Compétences", "Skill catalogue"),
            item_fields=SKILL_CATALOGUE_FIELDS,
            max_items=300,
            group="catalogues",
            example=starter_skill_catalogue(),
            help=Msg(
                "Table absente du texte : les entrées de départ reprennent ce que le texte nomme ; "
                "complétez-les et ajoutez vos Compétences. Une formule vide est à fixer par le MJ.",
                "Table missing from the text: the starter entries hold what the text names; "
                "complete them and add your skills. A blank formula is left for the GM.",
            ),
        ),
        Field(
            "weapon_catalogue",
            "list",
            Msg("Catalogue des armes", "Weapon catalogue"),
            item_fields=WEAPON_CATALOGUE_FIELDS,
            max_items=300,
            group="catalogues",
            help=Msg(
                "Table absente du texte, qui ne donne aucune arme chiffrée : ajoutez vos armes. "
                "Sans arme, on attaque avec une Compétence de la fiche (ex. Mains Nues).",
                "Table missing from the text, which gives no weapon with its numbers: add your weapons. "
                "With no weapon, one attacks with a skill of the sheet (e.g. Mains Nues).",
            ),
        ),
        Field(
            "aptitude_catalogue",
            "list",
            Msg("Catalogue des Aptitudes", "Aptitude catalogue"),
            item_fields=APTITUDE_CATALOGUE_FIELDS,
            max_items=300,
            group="catalogues",
            help=Msg(
                "Prix au niveau 1 tirés de l'Édition Simulation (L223).",
                "Level-1 prices from the Simulation edition (L223).",
            ),
        ),
        Field(
            "dodge_skill",
            "str",
            Msg("Compétence d'esquive", "Dodge skill"),
            default="",
            max_length=60,
            group="readings",
            help=Msg("A16 : clé du catalogue.", "A16: catalogue key."),
        ),
        Field(
            "skill_level_capped_by_talents",
            "bool",
            Msg("Niveau de Compétence ≤ Talents de la Formule (L61)", "Skill level ≤ formula talents (L61)"),
            default=True,
            group="readings",
        ),
        Field(
            "creation_leftover_kept",
            "bool",
            Msg("Reliquat des 500 points conservé en XP", "Leftover of the 500 points kept as XP"),
            default=True,
            group="readings",
            help=Msg(
                "Les 4000 points non dépensés sont toujours perdus (L51).",
                "Unspent talent points are always lost (L51).",
            ),
        ),
        Field(
            "allow_sorciers_at_creation",
            "bool",
            Msg("Sorciers autorisés à la création (L144)", "Sorcerers allowed at creation (L144)"),
            default=False,
            group="readings",
        ),
        Field(
            "crit_success_wins_opposed",
            "bool",
            Msg("Une réussite critique l'emporte en opposition (A10)", "A critical success wins opposed rolls (A10)"),
            default=True,
            group="readings",
        ),
        Field(
            "spell_works_on_low_margin",
            "bool",
            Msg(
                "Le sort réussit même si la marge est insuffisante (L173)",
                "The spell works even with a low margin (L173)",
            ),
            default=True,
            group="readings",
        ),
        Field(
            "initiative_mode",
            "choice",
            Msg("Initiative", "Initiative"),
            default="roll",
            choices=(
                ("roll", Msg("Jet de Perception + arme (L202)", "Perception roll + weapon (L202)")),
                ("static", Msg("Score de Perception (L105)", "Perception score (L105)")),
            ),
            group="readings",
        ),
        Field(
            "damage_net_margin",
            "bool",
            Msg("Dommages avec la marge nette (variante A17)", "Damage uses the net margin (A17 variant)"),
            default=False,
            group="readings",
        ),
        Field(
            "xp_for_every_d20",
            "bool",
            Msg("XP pour tout 1 sur 1D20, dommages compris (L213)", "XP for every 1 on 1D20, damage included (L213)"),
            default=False,
            group="readings",
        ),
        Field(
            "max_actions_per_round",
            "int",
            Msg("Actions max par assaut (0 = illimité)", "Max actions per round (0 = unlimited)"),
            default=0,
            minimum=0,
            group="readings",
        ),
    )


# ---------------------------------------------------------------------------
# Catalogue helpers (pure: the catalogues are passed in the settings).
# ---------------------------------------------------------------------------
_PARSED: dict[str, list[str] | None] = {}


def parse_formula(formula: Any) -> list[str] | None:
    """``"HAB+VIG"`` or ``["HAB", "VIG"]`` -> talent codes; None if invalid (L89).

    Accents and case are tolerated (``GÉN`` -> ``GEN``). A talent may appear twice. A text formula
    is parsed once (a catalogue has a few dozen); each call gets its own list.
    """
    if formula.__class__ is str:
        if formula not in _PARSED:
            if len(_PARSED) > 4096:
                _PARSED.clear()
            _PARSED[formula] = _parse_formula(formula)
        codes = _PARSED[formula]
        return None if codes is None else list(codes)
    return _parse_formula(formula)


def _parse_formula(formula: Any) -> list[str] | None:
    if isinstance(formula, list | tuple):
        parts = [str(p) for p in formula]
    elif isinstance(formula, str):
        parts = [p for p in formula.replace(",", "+").replace(" ", "").split("+") if p]
    else:
        return None
    codes = [p.upper().replace("É", "E").replace("é", "E")[:3] for p in parts]
    if not codes or any(c not in T.TALENTS for c in codes):
        return None
    return codes


def catalogue(settings: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
    """A catalogue list from the settings, indexed by ``key`` (bad rows skipped)."""
    rows = settings.get(name) or []
    result: dict[str, dict[str, Any]] = {}
    if isinstance(rows, dict):  # tolerate {key: row}
        rows = [{"key": k, **v} for k, v in rows.items() if isinstance(v, dict)]
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get("key"), str) and row["key"]:
            result[row["key"]] = row
    return result


def catalogue_row(settings: dict[str, Any], name: str, key: str) -> dict[str, Any] | None:
    """``catalogue(settings, name).get(key)`` without indexing the whole catalogue (a combat step
    looks up one weapon and one skill per side): the last valid row of that key wins, as there."""
    rows = settings.get(name) or []
    if not isinstance(rows, list):
        return catalogue(settings, name).get(key)
    if not key:
        return None
    for row in reversed(rows):
        if isinstance(row, dict) and row.get("key") == key and isinstance(row["key"], str):
            return row
    return None


def formula_pending(formula: Any) -> bool:
    """A blank catalogue formula: left for the GM (see the module docstring)."""
    if formula.__class__ is str:  # the common case (a combat step asks it per side): no join
        return not formula.strip()
    return formula is None or (isinstance(formula, str | list | tuple) and not "".join(map(str, formula)).strip())


def skill_formula(skill_item: dict[str, Any], settings: dict[str, Any]) -> list[str] | None:
    """Formula talents of a sheet skill: catalogue first, then the item's own formula.

    A catalogue skill with a blank formula gives ``[]`` (Formule 0 until the GM
    sets it, module docstring); ``None`` means no usable formula at all."""
    row = catalogue_row(settings, "skill_catalogue", str(skill_item.get("key", "")))
    if row is not None:
        if formula_pending(row.get("formula")):
            return []
        return parse_formula(row.get("formula"))
    return parse_formula(skill_item.get("formula") or "")


def skill_name(key: str, settings: dict[str, Any]) -> str:
    row = catalogue_row(settings, "skill_catalogue", key)
    return str(row.get("name") or key) if row else key


def validate_settings(settings: dict[str, Any]) -> list[FieldError]:
    """Extra checks of the catalogues (formulas are talent codes, keys unique)."""
    from rules.base import validate_fields

    errors = validate_fields(settings, campaign_settings_fields())
    for name in ("skill_catalogue", "weapon_catalogue", "aptitude_catalogue"):
        seen: set[object] = set()
        for index, row in enumerate(settings.get(name) or []):
            if not isinstance(row, dict):
                continue
            key = row.get("key")
            if key in seen:
                errors.append(
                    error(
                        f"{name}.{index}.key",
                        "duplicate_key",
                        "Identifiant en double : {k}.",
                        "Duplicate key: {k}.",
                        k=key,
                    )
                )
            seen.add(key)
            formula = row.get("formula")
            if name == "skill_catalogue" and not formula_pending(formula) and parse_formula(formula) is None:
                errors.append(
                    error(
                        f"{name}.{index}.formula",
                        "invalid_formula",
                        "Formule invalide : codes de Talents attendus (ex. HAB+VIG).",
                        "Invalid formula: talent codes expected (e.g. HAB+VIG).",
                    )
                )
    return errors


def migrate(sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
    """Schema version 1 is the first: fill missing keys from the defaults (repeatable)."""
    from rules.base import default_from_fields

    defaults = default_from_fields(sheet_fields())
    result = dict(sheet)
    for key, value in defaults.items():
        if key not in result:
            result[key] = value
        elif isinstance(value, dict) and isinstance(result[key], dict):
            merged = dict(value)
            merged.update(result[key])
            result[key] = merged
    return result


#: Names of the sheet's group keys and budget pools (``Field.group``, ``DerivedSpec.group``, ``Budget.pools``).
GROUP_LABELS: dict[str, Msg] = {
    "aptitudes": Msg("Aptitudes", "Aptitudes"),
    "capacities": Msg("Capacités", "Capacities"),
    "domain_mental": Msg("Domaine mental", "Mental domain"),
    "domain_occulte": Msg("Domaine occulte", "Occult domain"),
    "domain_physique": Msg("Domaine physique", "Physical domain"),
    "domain_social": Msg("Domaine social", "Social domain"),
    "domains": Msg("Domaines", "Domains"),
    "endurance": Msg("Endurance", "Endurance"),
    "equipment": Msg("Équipement", "Equipment"),
    "identity": Msg("Identité", "Identity"),
    "magic_effects": Msg("Effets magiques", "Magic effects"),
    "morality": Msg("Moralité", "Morality"),
    "other": Msg("Autres", "Other"),
    "skills": Msg("Compétences", "Skills"),
    "sorcery": Msg("Sorcellerie", "Sorcery"),
    "state": Msg("État", "State"),
    "talents": Msg("Talents", "Talents"),
}
