"""Rule tables of Ambre "Système V2.1" as data (seed ``000_05e59504de7a2c73.txt``).

Every table cites the seed line it comes from ("L59" = line 59 as ``cat -n``
numbers it). Where the seed announces a table but does not contain it (the
per-level power tables, L77–L94) nothing is invented here: those tables are
GM-supplied campaign settings (see :mod:`rules.ambre.schema`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.base import Msg

# --------------------------------------------------------------------------
# Attributes and characteristics (L5–L51)
# --------------------------------------------------------------------------
#: The four attributes (attributs) in the seed's order (L7–L13).
ATTRIBUTES: tuple[str, ...] = ("psy", "phy", "end", "cbt")

ATTRIBUTE_LABELS: dict[str, Msg] = {
    "psy": Msg("Psyché", "Psyche"),
    "phy": Msg("Physique", "Physique"),
    "end": Msg("Endurance", "Endurance"),
    "cbt": Msg("Combat", "Warfare"),
}

#: Attribute -> its three characteristics (caractéristiques), L7, L9, L11, L13.
GOVERNS: dict[str, tuple[str, str, str]] = {
    "psy": ("mental", "concentration", "volonte"),
    "phy": ("force", "dexterite", "rapidite"),
    "end": ("adaptation", "regeneration", "resistance"),
    "cbt": ("hab_distance", "hab_cac", "strategie"),
}

CHARACTERISTICS: tuple[str, ...] = tuple(c for a in ATTRIBUTES for c in GOVERNS[a])
PARENT: dict[str, str] = {c: a for a, cs in GOVERNS.items() for c in cs}

CHARACTERISTIC_LABELS: dict[str, Msg] = {
    "mental": Msg("Mental", "Mind"),
    "concentration": Msg("Concentration", "Concentration"),
    "volonte": Msg("Volonté", "Willpower"),
    "force": Msg("Force", "Strength"),
    "dexterite": Msg("Dextérité", "Dexterity"),
    "rapidite": Msg("Rapidité", "Speed"),
    "adaptation": Msg("Adaptation", "Adaptation"),
    "regeneration": Msg("Régénération", "Regeneration"),
    "resistance": Msg("Résistance", "Resistance"),
    "hab_distance": Msg("Habileté à distance", "Ranged skill"),
    "hab_cac": Msg("Habileté au corps à corps", "Melee skill"),
    "strategie": Msg("Stratégie", "Strategy"),
}

#: Points an Amberite-rank attribute gives to its characteristics (L28).
AMBERITE_POOL = 25
#: The "bonus qui le distingue des humains" added per attribute in a global level (L400).
HUMAN_GAP = 25

#: Stored attribute value (signed points A) of the sold-down ranks. L18 says the
#: human rank "rend 25pts" and the chaosian rank "rend 10 points"; L29 says a
#: human has 0 in every characteristic, hence A = -25 (pool 25 + A = 0).
HUMAN_POINTS = -25
CHAOSIAN_POINTS = -10

#: Base rank (the part of the rank that the sheet alone decides), L18.
BASE_RANK_LABELS: dict[str, Msg] = {
    "human": Msg("Humain", "Human"),
    "chaosian": Msg("Chaosien", "Chaosian"),
    "amberite": Msg("Ambrien", "Amberite"),
    "ranked": Msg("Classé", "Ranked"),
    "secret": Msg("Secret", "Secret"),
    "dominant": Msg("Dominant", "Dominant"),
}

#: A character's rank on an attribute's ladder as the auction and the sheet page name it
#: (L17-L18): the lower-case words of a sentence ("Psyché : classé").
RANK_LABELS: dict[str, Msg] = {
    "dominant": Msg("dominant", "dominant"),
    "ranked": Msg("classé", "ranked"),
    "amberite": Msg("ambrien", "Amberite"),
    "chaosian": Msg("chaosien", "chaosian"),
    "human": Msg("humain", "human"),
}

#: The state of one attribute's lot in the auction (:mod:`rules.ambre.auction`): bidding now,
#: still to come, closed (L17).
LOT_STATE_LABELS: dict[str, Msg] = {
    "open": Msg("en cours", "open"),
    "pending": Msg("à venir", "to come"),
    "closed": Msg("close", "closed"),
}

#: Default creation budget (L22).
STARTING_BUDGET = 100

# --------------------------------------------------------------------------
# Powers (L53–L94)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerSpec:
    key: str
    label: Msg
    cost: int  # initial cost in karma
    level: int  # level reached immediately
    requires: tuple[str, ...] = ()
    line: str = ""


POWERS: dict[str, PowerSpec] = {
    p.key: p
    for p in (
        PowerSpec("marelle", Msg("La Marelle", "The Pattern"), 50, 8, (), "L59"),
        # L61: "il est également imposé de prendre le pouvoir de métamorphose".
        PowerSpec("logrus", Msg("Le Logrus", "The Logrus"), 45, 8, ("metamorphose",), "L61"),
        PowerSpec("atouts", Msg("Les Atouts", "Trumps"), 40, 5, (), "L63"),
        PowerSpec("metamorphose", Msg("La Métamorphose", "Shapeshifting"), 35, 5, (), "L65"),
        PowerSpec("mots_de_pouvoir", Msg("Les Mots de pouvoir", "Power Words"), 10, 4, (), "L67"),
        PowerSpec("sorcellerie", Msg("La Sorcellerie", "Sorcery"), 15, 5, (), "L69"),
        PowerSpec("conjuration", Msg("La Conjuration", "Conjuration"), 20, 5, (), "L71"),
        PowerSpec("marelle_brisee", Msg("La Marelle brisée", "The Broken Pattern"), 10, 4, (), "L73"),
        # L75: "Posséder ce pouvoir requiert de posséder celui de la conjuration".
        PowerSpec("compulsion", Msg("La Compulsion", "Compulsion"), 5, 3, ("conjuration",), "L75"),
    )
}

#: Broken Pattern knowledge discount when later walking the Pattern (L73).
BROKEN_PATTERN_DISCOUNT = 2

#: Ranks of power levels (L77): "le dernier niveau du rang novice est le niv. 4,
#: celui d'adepte est le niv 8, et ainsi de suite". Ranks beyond adept are not
#: named by the seed; they are shown as "rank N" unless the GM names them.
POWER_RANK_NAMES: dict[int, Msg] = {1: Msg("Novice", "Novice"), 2: Msg("Adepte", "Adept")}
LEVELS_PER_POWER_RANK = 4

# --------------------------------------------------------------------------
# Artefacts and creatures (L96–L167)
# --------------------------------------------------------------------------
#: Tier costs: every category of the seed uses 1, 2, 4 points (L113–L148).
TIER_COSTS: tuple[int, int, int] = (1, 2, 4)


@dataclass(frozen=True)
class Category:
    key: str
    label: Msg
    tiers: tuple[tuple[str, Msg], ...]  # tier slug + label, cheapest first
    exclusive: bool = True  # asterisk: one tier only (L133); qualities: one tier (reading)
    requires: tuple[str, ...] = ()  # owner powers allowing it (any of)
    line: str = ""

    def cost(self, tier_index: int) -> int:
        return TIER_COSTS[tier_index]


#: Step 2: qualities (L109–L129). "Pour chacune, plusieurs rangs sont disponibles":
#: a quality category holds one tier (higher tiers describe supersets).
#: "maîtrise du combat" has no cost in the seed (L119); its cost is the
#: ``agression_tier3_cost`` campaign setting (default 4, the pattern of every
#: other category).
QUALITIES: dict[str, Category] = {
    c.key: c
    for c in (
        Category(
            "vitalite",
            Msg("Vitalité", "Vitality"),
            (
                ("animale", Msg("Animale", "Animal")),
                ("doublee", Msg("Doublée", "Doubled")),
                ("enorme", Msg("Énorme", "Enormous")),
            ),
            line="L113",
        ),
        Category(
            "mouvement",
            Msg("Mouvement", "Movement"),
            (
                ("mobile", Msg("Mobile", "Mobile")),
                ("rapide", Msg("Rapide", "Fast")),
                ("vehicule", Msg("Vitesse d'un véhicule", "Vehicle speed")),
            ),
            line="L115",
        ),
        Category(
            "souffle",
            Msg("Souffle", "Stamina"),
            (
                ("superieur", Msg("Supérieur", "Superior")),
                ("ambrien", Msg("Ambrien", "Amberite")),
                ("inepuisable", Msg("Inépuisable", "Inexhaustible")),
            ),
            line="L117",
        ),
        Category(
            "agression",
            Msg("Agression", "Aggression"),
            (
                ("aptitude", Msg("Aptitude au combat", "Combat aptitude")),
                ("reflexes", Msg("Réflexes de combat", "Combat reflexes")),
                ("maitrise", Msg("Maîtrise du combat", "Combat mastery")),
            ),
            line="L119",
        ),
        Category(
            "resistance_degats",
            Msg("Résistance aux dégâts", "Damage resistance"),
            (
                ("armes_blanches", Msg("Armes blanches", "Blades")),
                ("armes_a_feu", Msg("Armes à feu", "Firearms")),
                ("invulnerabilite", Msg("Invulnérabilité", "Invulnerability")),
            ),
            line="L121",
        ),
        Category(
            "degats",
            Msg("Dégâts", "Damage"),
            (
                ("extra_dur", Msg("Extra-dur", "Extra-hard")),
                ("double", Msg("Double dommages", "Double damage")),
                ("mortels", Msg("Dommages mortels", "Deadly damage")),
            ),
            line="L123",
        ),
        Category(
            "intelligence",
            Msg("Intelligence et communication", "Intelligence and communication"),
            (
                ("parole", Msg("Parole", "Speech")),
                ("vocalises", Msg("Vocalises", "Vocalising")),
                ("intelligence", Msg("Intelligence", "Intelligence")),
            ),
            line="L125",
        ),
        Category(
            "capacite_psy",
            Msg("Capacité psychique", "Psychic ability"),
            (
                ("sensibilite", Msg("Sensibilité psychique", "Psychic sensitivity")),
                ("sens_danger", Msg("Sens du danger", "Danger sense")),
                ("perception", Msg("Perception extrasensorielle", "Extrasensory perception")),
            ),
            line="L127",
        ),
        Category(
            "defense_psy",
            Msg("Défense psychique", "Psychic defence"),
            (
                ("resistance", Msg("Résistance psychique", "Psychic resistance")),
                ("camouflage", Msg("Camouflage psychique", "Psychic veil")),
                ("barriere", Msg("Barrière mentale", "Mental barrier")),
            ),
            line="L129",
        ),
    )
}

#: Step 3: powers (L131–L148). Categories marked with an asterisk in the seed
#: are exclusive (one tier); others add several tiers' costs (L133).
ITEM_POWERS: dict[str, Category] = {
    c.key: c
    for c in (
        Category(
            "mouvements_ombre",
            Msg("Mouvements en Ombre", "Shadow movement"),
            (
                ("pister", Msg("Pister en ombre", "Shadow tracking")),
                ("chemin", Msg("Chemin d'ombre", "Shadow path")),
                ("recherche", Msg("Recherche en ombre", "Shadow seeking")),
            ),
            exclusive=False,
            line="L136",
        ),
        Category(
            "controle_ombre",
            Msg("Contrôle d'ombre", "Shadow control"),
            (
                ("substance", Msg("Modeler la substance d'Ombre", "Shape shadow stuff")),
                ("habitants", Msg("Moduler les habitants d'Ombre", "Sway shadow dwellers")),
                ("modeler", Msg("Modeler l'Ombre", "Shape the shadow")),
            ),
            exclusive=False,
            line="L138",
        ),
        Category(
            "guerison",
            Msg("Guérison*", "Healing*"),
            (
                ("autoreparation", Msg("Autoréparation", "Self-repair")),
                ("rapide", Msg("Guérison rapide", "Fast healing")),
                ("regeneration", Msg("Régénération", "Regeneration")),
            ),
            line="L140",
        ),
        Category(
            "polymorphie",
            Msg("Polymorphie*", "Polymorphy*"),
            (
                ("variante", Msg("Variante de forme", "Form variant")),
                ("variables", Msg("Formes variables", "Variable forms")),
                ("limitee", Msg("Métamorphose limitée", "Limited shapeshift")),
            ),
            line="L142",
        ),
        Category(
            "atouts",
            Msg("Pouvoirs d'atout", "Trump powers"),
            (
                ("support", Msg("Support d'atout", "Trump support")),
                ("jeu", Msg("Jeu d'atout personnel", "Personal trump deck")),
                ("energie", Msg("Énergie des atouts", "Trump energy")),
            ),
            exclusive=False,
            requires=("atouts",),  # "[réservé aux maîtres des atouts]" (L144)
            line="L144",
        ),
        Category(
            "mots",
            Msg("Mots de pouvoirs*", "Power words*"),
            (
                ("support", Msg("Support d'un mot de pouvoir", "One power word")),
                ("recenses", Msg("Support de mots de pouvoir recensés", "Numbered power words")),
            ),
            requires=("mots_de_pouvoir",),  # the words are "détenu par le créateur" (L146)
            line="L146",
        ),
        Category(
            "sorts",
            Msg("Stockage de sorts*", "Spell storage*"),
            (
                ("un", Msg("Stockage d'un sort", "One stored spell")),
                ("recenses", Msg("Stockage de sorts recensés", "Numbered stored spells")),
                ("lancement", Msg("Stockage et lancement de sorts", "Storing and casting spells")),
            ),
            # "[réservé aux sorciers, ainsi qu'aux conjurateurs dans le cas de créatures]" (L148)
            requires=("sorcellerie",),
            line="L148",
        ),
    )
}

#: Step 4: transfers (L150): 5 per transferred quality, 10 per transferred power.
QUALITY_TRANSFER_COST = 5
POWER_TRANSFER_COST = 10

#: Step 5: quantity multipliers (L157–L167).
QUANTITY_MULTIPLIERS: dict[str, tuple[int, Msg]] = {
    "unique": (1, Msg("Unique", "Unique")),
    "recense": (2, Msg("Recensé (12 au plus)", "Numbered (up to 12)")),
    "horde": (3, Msg("Horde", "Horde")),
    "repandu": (4, Msg("Répandu dans une Ombre", "Common in one shadow")),
    "trans_ombre": (5, Msg("Environnement trans-ombre", "Trans-shadow environment")),
    "omnipresent": (6, Msg("Omniprésent en Ombre", "Ubiquitous in Shadow")),
}

# --------------------------------------------------------------------------
# Shadows (L169–L234)
# --------------------------------------------------------------------------
#: Types d'Ombres* (exclusive, L178–L194).
SHADOW_TYPES: dict[str, tuple[int, Msg]] = {
    "personnelle": (1, Msg("Ombre personnelle", "Personal shadow")),
    "royaume": (2, Msg("Ombre du Royaume", "Shadow of the Realm")),
    "primal": (4, Msg("Plan Primal", "Primal Plane")),
}
#: Barriers (L197–L214): "Les barrières les plus chères possèdent toutes les
#: propriétés des moins chères" -> one tier.
SHADOW_BARRIERS: dict[str, tuple[int, Msg]] = {
    "communications": (1, Msg("Communications bloquées", "Blocked communications")),
    "acces": (2, Msg("Accès restreint", "Restricted access")),
    "gardien": (4, Msg("Gardien", "Guardian")),
}
#: Control (L216–L232): "Les plus chères ont les propriétés des moins chères".
SHADOW_CONTROLS: dict[str, tuple[int, Msg]] = {
    "contenu": (1, Msg("Contrôle du contenu", "Control of content")),
    "flux": (2, Msg("Contrôle du flux temporel", "Control of time flow")),
    "destin": (4, Msg("Contrôle du destin de l'Ombre", "Control of the shadow's destiny")),
}
#: Forces a "Communications bloquées" barrier may block (L203).
BLOCKABLE_FORCES: tuple[str, ...] = ("marelle", "logrus", "atouts", "magie", "psyche")
SHADOW_LOCATIONS: dict[str, Msg] = {
    "": Msg("—", "—"),
    "cercle_or": Msg("Cercle d'Or", "Golden Circle"),
    "zone_noire": Msg("Zone Noire", "Black Zone"),
}

# --------------------------------------------------------------------------
# Constructs (L236–L323)
# --------------------------------------------------------------------------
#: Base powers listed by the seed (L250–L270) -> the power the creator needs
#: (L241), or "" when no character power applies.
CONSTRUCT_BASES: dict[str, tuple[str, Msg]] = {
    "marelle": ("marelle", Msg("La Marelle", "The Pattern")),
    "marelle_brisee": ("marelle_brisee", Msg("La Marelle brisée", "The Broken Pattern")),
    "joyau": ("", Msg("Le Joyau du jugement", "The Jewel of Judgement")),
    "logrus": ("logrus", Msg("Le Logrus", "The Logrus")),
    "atouts": ("atouts", Msg("Les Atouts", "Trumps")),
    "metamorphose": ("metamorphose", Msg("La Métamorphose (sang)", "Shapeshifting (blood)")),
    "magie": ("sorcellerie", Msg("La Magie", "Magic")),
    "pouvoir_ombre": ("", Msg("Pouvoir originaire d'Ombre", "Shadow-born power")),
    "technologie_ombre": ("", Msg("Technologie originaire d'Ombre", "Shadow-born technology")),
    "magie_ombre": ("", Msg("Magie originaire d'Ombre", "Shadow-born magic")),
    "convergence": ("", Msg("Convergence d'Ombres", "Shadow convergence")),
    "autre": ("", Msg("Autre (à décrire)", "Other (describe)")),
}
#: Shadow quantity multiplier (L284–L288).
CONSTRUCT_SHADOW_MULTIPLIERS: dict[str, tuple[int, Msg]] = {
    "unique": (1, Msg("Unique", "Unique")),
    "recense": (2, Msg("Recensé", "Numbered")),
    "innombrables": (3, Msg("Innombrables", "Countless")),
}
#: Connection multiplier of a manifestation (L301–L305).
CONNECTION_MULTIPLIERS: dict[str, tuple[int, Msg]] = {
    "intrinseque": (1, Msg("Intrinsèque", "Intrinsic")),
    "canal": (2, Msg("Canal en Ombre", "Shadow channel")),
    "interrupteur": (3, Msg("Interrupteur", "Switch")),
}
#: Psyche (L313–L317). The power-based psyche has no cost in the seed: None =
#: GM-entered (``construct_power_psyche_cost`` campaign setting).
CONSTRUCT_PSYCHE: dict[str, tuple[int | None, Msg]] = {
    "aucune": (0, Msg("Pas de Psyché", "No psyche")),
    "sensible": (1, Msg("Sensible", "Sentient")),
    "pouvoir": (None, Msg("Psyché basée sur le pouvoir", "Power-based psyche")),
}

# --------------------------------------------------------------------------
# Allies (L325–L340) and demons (L342–L381)
# --------------------------------------------------------------------------
ALLIES: dict[str, tuple[int, Msg]] = {
    "allie_ambre": (1, Msg("Allié en Ambre", "Ally in Amber")),
    "ami_demoniaque": (1, Msg("Ami démoniaque", "Demon friend")),
    "ami_cour": (2, Msg("Ami à la cour", "Friend at court")),
    "soutien_maison": (3, Msg("Soutien d'une maison", "Backing of a House")),
    "protecteur_chaos": (4, Msg("Protecteur dans les cours du Chaos", "Patron in the Courts of Chaos")),
    "protecteur_ambre": (6, Msg("Protecteur à la cour d'Ambre", "Patron at the court of Amber")),
}
#: Ways to bind a demon (L347–L378). Demons cost no karma (L344).
DEMON_METHODS: dict[str, Msg] = {
    "invocation": Msg("Invocation", "Summoning"),
    "accord": Msg("Traité avec le démon", "Deal"),
    "force": Msg("Lié par la force", "Bound by force"),
    "compulsion": Msg("Compulsion", "Compulsion"),
}

# --------------------------------------------------------------------------
# Invented powers (optional, GM only, L456–L671)
# --------------------------------------------------------------------------
INVENTED_DOMAINS: dict[str, int] = {"aucun": 0, "limite": 1, "focalise": 2, "infini": 4}  # L495–L502
INVENTED_OPPONENTS: tuple[str, ...] = ("marelle", "logrus", "atouts", "metamorphose", "magie")  # L506
INVENTED_STRENGTHS: dict[str, tuple[int, int, int, int, int]] = {  # L508–L555
    "impuissant": (0, 0, 0, 0, 0),
    "faible": (4, 3, 2, 1, 0),
    "egal": (8, 6, 4, 2, 1),
    "fort": (16, 12, 8, 4, 2),
    "dominant": (32, 24, 16, 8, 4),
}
#: Multiplier categories (L563–L671): option -> multiplier. "" = not chosen (x1).
INVENTED_MULTIPLIERS: dict[str, dict[str, int]] = {
    "communication": {"": 1, "partage": 2, "objectif": 3, "illimitee": 4},
    "transport": {"": 1, "canal": 2, "manifestation": 3, "teleportation": 4},
    "defense": {"": 1, "focal": 2, "invocation": 3, "automatique": 4},
    "offensive": {"": 1, "focal": 2, "invocation": 3, "domaine": 4},
    "manifestation": {"": 1, "interieur": 1, "energetique": 2, "physique": 3},
    "ombres": {"": 1, "objets": 2, "soi": 3, "monde": 4},
    "invocation": {"": 1, "contact": 1, "objet": 2, "invocation": 3, "automatique": 4},
}

# --------------------------------------------------------------------------
# Combat (L400–L434) and sorcery (L436–L449)
# --------------------------------------------------------------------------
#: Wound weights for accumulation (L429): two of a kind make one of the next.
WOUND_ORDER: tuple[str, ...] = ("light", "serious", "grave", "mortal")
WOUND_WEIGHTS: dict[str, int] = {"light": 1, "serious": 2, "grave": 4, "mortal": 8}
WOUND_LABELS: dict[str, Msg] = {
    "light": Msg("légère", "light"),
    "serious": Msg("sérieuse", "serious"),
    "grave": Msg("grave", "grave"),
    "mortal": Msg("mortelle", "mortal"),
}
#: Determination multipliers of Volonté (L432–L434).
DETERMINATION_FACTORS: dict[str, int] = {"serious": 6, "grave": 5, "mortal": 5}

#: Sorcery (L440–L449).
KEYS_DIVISOR = 4  # "Mental+Volonté / 4 = nb de clés mineures" (L440)
ENERGY_PER_MODIFIED_KEY = 10  # "+10 points pour chaque clé ajoutée" (L443)
REAL_SPELL_TURNS = 4  # L442
SHADOW_SPELL_TURNS = 2  # L442
