"""The V2.1 combat round (L410–L434) and psychic combat, diceless.

Steps: 1 declaration (physical or mental action, L414), 2 initiative
(Rapidité for physical actions, Concentration for mental ones, L416), 3 touch
(L418), 4 parade (L420), 5 impact (L422), 6 wound severity and accumulation
(L424–L429), 7 determination (L431–L434).

Readings (spec §4.4, §8; the campaign setting is named in brackets):

* touch tie: stalemate, no damage [``tie_rule``: "stalemate" | "attribute"
  (parent attribute points break it) | "gm"]; initiative tie: simultaneous
  [``initiative_tie``].
* L41 vs L418: a wrestling/bare-handed attack is opposed by the defender's
  Force [``wrestling_touch``]; bare hands use the wrestling level (L408).
* L43: an unarmed or surprised defender defends (touch and parade) with
  Rapidité [``unarmed_defence``].
* L420: no parade subtraction when either side wrestles; ranged attacks are
  parried by default [``ranged_parry``, or ``parry`` per declaration, L50].
  A defender who wins the touch against a ranged/thrown attacker only makes
  it miss, unless declared ``within_reach``.
* raw = max(0, attack level - parade); net = max(0, raw - Résistance).
* wound (L425–L428): 0 < N < R light, < 2R serious, < 4R grave, N >= 4R
  mortal (the text leaves N = 4R uncovered); N <= 0 no wound. Accumulation
  (L429) keeps W = L + 2S + 4G + 8M and normalises by pair-merging.
* determination (L432–L434) for wounds at least serious: N < 6V serious,
  N < 5V grave, mortal N < 5V [``mortal_determination`` "above_5v" = L434
  literal "supérieurs"].
* psychic attack (L418, L422): Mental vs Mental, energy loss = winner's
  Mental - loser's Volonté; no wound track; energy <= 0 -> coma (L404).
* death: a mortal wound with negative karma is "la mort assurée" (L429) and
  life <= 0 ends life (L402); both are FLAGGED for the GM (``dying``,
  ``death_assured``) unless ``automatic_death`` is set. Never decided here
  from an unknown karma.
* surprise ("prise au dépourvu", L416): the attacker skips the touch.
* powers: "c'est le pouvoir qui s'applique" (L422): GM adjudication; only
  the declared energy cost is applied. Spells cost keys and energy
  (:mod:`rules.ambre.sorcery`); effects are GM-adjudicated (L447).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.ambre import tables as T
from rules.ambre.derive import attribute_points, global_levels, minor_keys, normalise_wounds, wound_points
from rules.ambre.schema import safe_validate
from rules.ambre.sorcery import spell_cost, spell_request_errors
from rules.base import (
    ACTION_KEY,
    Combatant,
    CombatResult,
    Field,
    FieldError,
    LazyMsg,
    Msg,
    RandomSource,
    RulesError,
    StateChange,
    as_int,
    error,
    fields_checker,
    with_action_key,
)

SLUG = "ambre"

PHYSICAL_MODES = ("melee", "ranged", "thrown", "wrestling", "bare_hands")
MENTAL_MODES = ("psychic", "spell", "power")
MODES = PHYSICAL_MODES + MENTAL_MODES
TARGET_MODES = ("melee", "ranged", "thrown", "wrestling", "bare_hands", "unarmed", "psychic", "none")
WRESTLING = ("wrestling", "bare_hands")

#: Touch characteristic per weapon (L418).
TOUCH_CHAR = {
    "melee": "hab_cac",
    "ranged": "hab_distance",
    "thrown": "dexterite",
    "wrestling": "force",
    "bare_hands": "force",
    "psychic": "mental",
}
#: Attack level per weapon (L406, L408).
ATTACK_LEVEL = {
    "melee": "melee_level",
    "ranged": "ranged_level",
    "thrown": "thrown_level",
    "wrestling": "wrestling_level",
    "bare_hands": "wrestling_level",
    "unarmed": "wrestling_level",
    "none": "wrestling_level",
}
WEAPON_CLASSES = ("normal", "firearm", "ray")

MODE_LABELS = {
    "melee": Msg("Arme de contact", "Melee weapon"),
    "ranged": Msg("Arme à distance", "Ranged weapon"),
    "thrown": Msg("Arme de lancer", "Thrown weapon"),
    "wrestling": Msg("Lutte", "Wrestling"),
    "bare_hands": Msg("Mains nues", "Bare hands"),
    "psychic": Msg("Attaque psychique", "Psychic attack"),
    "spell": Msg("Sortilège", "Spell"),
    "power": Msg("Utilisation d'un pouvoir", "Power use"),
    "unarmed": Msg("Sans arme", "Unarmed"),
    "none": Msg("Aucune défense déclarée", "No declared defence"),
}


# --------------------------------------------------------------------------
# Pure rule functions
# --------------------------------------------------------------------------
def wound_severity(net: int, resistance: int) -> str | None:
    """Wound category of net damage N against Résistance R (L424–L428)."""
    if net <= 0:
        return None
    if net < resistance:
        return "light"
    if net < 2 * resistance:
        return "serious"
    if net < 4 * resistance:
        return "grave"
    return "mortal"


def apply_damage_quality(wound: str | None, quality: str | None) -> str | None:
    """Artefact damage qualities (L123): "double dommages" turns a light wound
    into a grave one; "dommages mortels" inflicts "blessures graves et
    fatales" (reading: every wound is at least grave)."""
    if wound is None or not quality:
        return wound
    order = T.WOUND_ORDER
    if quality == "double" and wound == "light":
        return "grave"
    if quality == "mortels" and order.index(wound) < order.index("grave"):
        return "grave"
    return wound


def accumulate_wounds(wounds: dict[str, int], new: Sequence[str]) -> dict[str, int]:
    """Add wounds then pair-merge (L429). Order-independent by construction."""
    total = wound_points(wounds)
    weights = T.WOUND_WEIGHTS
    for w in new:
        total += weights[w]
    return normalise_wounds(total)


def stays_determined(wound: str | None, net: int, volonte: int, reading: str = "below_5v") -> bool | None:
    """Determination (L431–L434); None when the wound is below serious."""
    if wound not in T.DETERMINATION_FACTORS:
        return None
    threshold = T.DETERMINATION_FACTORS[wound] * volonte
    if wound == "mortal" and reading == "above_5v":
        return net > threshold
    return net < threshold


_LEVELS = {  # global level -> (attributes summed, characteristic added, constant) (L402–L408)
    "life_max": (("end", "phy"), None, 2 * T.HUMAN_GAP),  # L402
    "energy_max": (("psy", "end"), None, 2 * T.HUMAN_GAP),  # L404
    "ranged_level": (("phy",), "hab_distance", T.HUMAN_GAP),  # L406
    "thrown_level": (("phy",), "dexterite", T.HUMAN_GAP),  # L406
    "melee_level": (("phy",), "hab_cac", T.HUMAN_GAP),  # L408
    "wrestling_level": (("phy",), "force", T.HUMAN_GAP),  # L408
}


def _char(chars: dict[str, Any], key: str) -> int:
    """A characteristic (caractéristique) read from the sheet's group, as
    :func:`rules.ambre.derive.characteristic` reads it (missing or malformed: 0).

    The exchange reads a handful of numbers per side, straight from the sheet:
    no stats object is built (issue #21, the exchange within 6x of its bare
    arithmetic). ``rules/tests/test_hot_path_equivalence.py`` checks these
    readers against :func:`rules.ambre.derive.global_levels` (the sheet page's)."""
    value = chars.get(key)
    return value if value.__class__ is int else as_int(value)


def _level(sheet: dict[str, Any], chars: dict[str, Any], key: str) -> int:
    """A global level (niveau global, L402–L408) of ``sheet``, GM modifiers included (L400);
    the same number as ``global_levels(sheet)[key]``. ``chars`` is the sheet's characteristics."""
    attrs, char, value = _LEVELS[key]
    points = sheet.get("attributes") or {}
    for a in attrs:
        v = points.get(a)
        value += v if v.__class__ is int else as_int(v)
    if char:
        v = chars.get(char)
        value += v if v.__class__ is int else as_int(v)
    mods = sheet.get("modifiers")
    if mods:
        v = mods.get(key)
        value += v if v.__class__ is int else as_int(v)
    return value


def combat_state(
    sheet: dict[str, Any], settings: dict[str, Any] | None = None, karma: int | None = None
) -> dict[str, Any]:
    """Initial combat state of a participant, from its sheet's condition.

    ``karma`` is the current karma balance (the combat app reads it from the
    ledger); it decides what a mortal wound means (L429).
    """
    levels = global_levels(sheet)
    condition = sheet.get("condition") or {}
    chars = sheet.get("characteristics") or {}
    wounds = normalise_wounds(wound_points(condition.get("wounds") or {}))
    keys = minor_keys(as_int(chars.get("mental")), as_int(chars.get("volonte")))
    life = levels["life_max"] - as_int(condition.get("life_damage"))
    energy = levels["energy_max"] - as_int(condition.get("energy_spent"))
    return {
        "life": life,
        "life_max": levels["life_max"],
        "energy": energy,
        "energy_max": levels["energy_max"],
        "keys": max(0, keys - as_int(condition.get("keys_used"))),
        "wounds": wounds,
        "wound_points": wound_points(wounds),
        "determined": True,
        # L404 "descendant à 0": a gauge that starts at 0 (a human's) is not a coma.
        "coma": bool(condition.get("coma")) or (energy <= 0 < levels["energy_max"]),
        "dying": bool(condition.get("dying")),
        "death_assured": False,
        "dead": bool(condition.get("dead")),
        "karma": karma,
    }


def action_fields() -> tuple[Field, ...]:
    def mode_choices(keys: Sequence[str]) -> tuple[tuple[str, Msg], ...]:
        return tuple((k, MODE_LABELS[k]) for k in keys)

    quality = (
        ("", Msg("—", "—")),
        ("extra_dur", Msg("Extra-dur", "Extra-hard")),
        ("double", Msg("Double dommages", "Double damage")),
        ("mortels", Msg("Dommages mortels", "Deadly damage")),
    )
    resistance = (("", Msg("—", "—")), *T.QUALITIES["resistance_degats"].tiers)
    return (
        Field(
            ACTION_KEY,
            "choice",
            Msg("Action", "Action"),
            required=True,
            choices=mode_choices(MODES),
            help=Msg(
                "Physique (arme, lutte) ou mentale (psychique, sort, pouvoir) (L414).",
                "Physical (weapon, wrestling) or mental (psychic, spell, power) (L414).",
            ),
        ),
        Field(
            "action_type",
            "choice",
            Msg("Type d'action", "Action type"),
            default=None,
            choices=(("physical", Msg("Physique", "Physical")), ("mental", Msg("Mentale", "Mental"))),
        ),
        Field(
            "target_mode",
            "choice",
            Msg("Défense / arme de la cible", "Target's defence / weapon"),
            default="melee",
            choices=mode_choices(TARGET_MODES),
        ),
        Field(
            "surprise", "bool", Msg("Prise au dépourvu (L416)", "Surprise attack (L416)"), default=False, audience="gm"
        ),
        Field("within_reach", "bool", Msg("À portée de riposte", "Within counter reach"), default=False),
        Field(
            "parry",
            "bool",
            Msg("Parade possible contre cette arme (L50)", "Parry possible against this weapon (L50)"),
            default=None,
        ),
        Field(
            "weapon_class",
            "choice",
            Msg("Classe d'arme", "Weapon class"),
            default="normal",
            choices=(
                ("normal", Msg("Normale", "Normal")),
                ("firearm", Msg("Arme à feu", "Firearm")),
                ("ray", Msg("Arme à rayons", "Ray weapon")),
            ),
        ),
        Field(
            "weapon_quality",
            "choice",
            Msg("Qualité de l'arme (L123)", "Weapon quality (L123)"),
            default="",
            choices=quality,
        ),
        Field(
            "target_weapon_quality",
            "choice",
            Msg("Qualité de l'arme de la cible", "Target's weapon quality"),
            default="",
            choices=quality,
        ),
        Field(
            "target_damage_resistance",
            "choice",
            Msg("Résistance aux dégâts de la cible (L121)", "Target's damage resistance (L121)"),
            default="",
            choices=resistance,
            audience="gm",
        ),
        Field(
            "actor_damage_resistance",
            "choice",
            Msg("Résistance aux dégâts de l'attaquant", "Attacker's damage resistance"),
            default="",
            choices=resistance,
        ),
        Field(
            "actor_modifier",
            "int",
            Msg("Modificateur MJ (attaquant)", "GM modifier (attacker)"),
            default=0,
            minimum=-1000,
            maximum=1000,
            audience="gm",
        ),
        Field(
            "target_modifier",
            "int",
            Msg("Modificateur MJ (cible)", "GM modifier (target)"),
            default=0,
            minimum=-1000,
            maximum=1000,
            audience="gm",
        ),
        Field(
            "initiative_modifier",
            "int",
            Msg("Modificateur d'initiative", "Initiative modifier"),
            default=0,
            minimum=-1000,
            maximum=1000,
            audience="gm",
        ),
        Field(
            "base_cost",
            "int",
            Msg("Coût du sort (énergie)", "Spell cost (energy)"),
            default=0,
            minimum=0,
            maximum=10000,
        ),
        Field(
            "modifications", "int", Msg("Modifications par clé", "Key modifications"), default=0, minimum=0, maximum=20
        ),
        Field("real", "bool", Msg("Sort « réel » (Sorcellerie)", '"Real" spell (Sorcery)'), default=True),
        Field("prepared", "bool", Msg("Sort préparé (clé majeure)", "Prepared spell (major key)"), default=False),
        Field("instant", "bool", Msg("Lancé instantanément", "Cast instantly"), default=False),
        Field(
            "magic_rich",
            "bool",
            Msg("Ombre magique / source d'énergie (L445)", "Magic-rich shadow / energy source (L445)"),
            default=False,
        ),
        Field("in_amber", "bool", Msg("En Ambre même", "In Amber itself"), default=False),
        Field(
            "energy_cost",
            "int",
            Msg("Coût en énergie (pouvoir, MJ)", "Energy cost (power, GM)"),
            default=0,
            minimum=0,
            maximum=10000,
            audience="gm",
        ),
        Field(
            "gm_override",
            "bool",
            Msg("Le MJ autorise le dépassement", "GM allows exceeding"),
            default=False,
            audience="gm",
        ),
        Field("note", "text", Msg("Description de l'action", "Action description"), default="", max_length=2000),
    )


_ACTION_FIELDS = action_fields()
_ACTION_DEFAULTS = {f.path: f.default for f in _ACTION_FIELDS}


_declaration_ok = fields_checker(_ACTION_FIELDS)


def _validate_declaration(declaration: dict[str, Any]) -> dict[str, Any]:
    if _declaration_ok(declaration):  # the common case: no field error; then the two rule checks
        mode = declaration[ACTION_KEY]
        action_type = declaration.get("action_type")
        if mode != "spell" and (not action_type or action_type == ("physical" if mode in PHYSICAL_MODES else "mental")):
            return declaration
    if not isinstance(declaration, dict):
        raise RulesError([error("", "invalid_request", "Déclaration invalide.", "Invalid declaration.")])
    errors = safe_validate(declaration, _ACTION_FIELDS)
    mode = declaration.get(ACTION_KEY)
    action_type = declaration.get("action_type")
    if mode in MODES and action_type:
        expected = "physical" if mode in PHYSICAL_MODES else "mental"
        if action_type != expected:
            errors.append(
                error(
                    "action_type",
                    "action_type_mismatch",
                    "Ce mode d'action est une action {t}.",
                    "This action mode is a {t} action.",
                    t=expected,
                )
            )
    if mode == "spell":
        errors.extend(spell_request_errors(declaration))
    if errors:
        raise RulesError(errors)
    return declaration


def _with_defaults(declaration: dict[str, Any]) -> dict[str, Any]:
    """A valid declaration completed with the declared defaults (a ``None`` value takes the default)."""
    data = dict(_ACTION_DEFAULTS)
    for k, v in declaration.items():
        if v is not None:
            data[k] = v
    data["action_type"] = "physical" if data[ACTION_KEY] in PHYSICAL_MODES else "mental"
    return data


def action_type_of(declaration: dict[str, Any] | None) -> str:
    declaration = with_action_key(declaration or {}, "mode")
    declared = declaration.get("action_type")
    if declared == "physical" or declared == "mental":
        return "physical" if declared == "physical" else "mental"
    return "mental" if declaration.get(ACTION_KEY) in MENTAL_MODES else "physical"


# --------------------------------------------------------------------------
# Initiative (L416)
# --------------------------------------------------------------------------
def initiative(
    combatants: Sequence[Combatant],
    declarations: dict[str, dict[str, Any]],
    rng: RandomSource | None = None,
    settings: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Order of action: Rapidité for a physical action, Concentration for a
    mental one (L416; L38 opposes Concentration to Rapidité). Diceless: no
    draws. Equal scores act simultaneously (same ``position``) unless the
    ``initiative_tie`` setting breaks them by the parent attribute.
    """
    by_attribute = (settings or {}).get("initiative_tie") == "attribute"
    rows: list[dict[str, Any]] = []
    for c in combatants:
        decl = declarations.get(c.id) or {}
        kind = action_type_of(decl)
        char = "rapidite" if kind == "physical" else "concentration"
        chars = c.sheet.get("characteristics") or {}
        score = as_int(chars.get(char)) + as_int(decl.get("initiative_modifier"))
        tiebreak = as_int((c.sheet.get("attributes") or {}).get(T.PARENT[char])) if by_attribute else 0
        rows.append(
            {
                "id": c.id,
                "score": score,
                "draws": [],
                "action_type": kind,
                "characteristic": char,
                "tiebreak": tiebreak,
                "declared": c.id in declarations,
                "surprise": bool(decl.get("surprise")),
            }
        )
    rows.sort(key=lambda r: (-r["score"], -r["tiebreak"]))
    position = 0
    previous: tuple[int, int] | None = None
    for index, row in enumerate(rows):
        key = (row["score"], row["tiebreak"])
        if key != previous:
            position = index + 1
            previous = key
        row["position"] = position
    counts: dict[int, int] = {}
    for row in rows:
        counts[row["position"]] = counts.get(row["position"], 0) + 1
    for row in rows:
        row["simultaneous"] = counts[row["position"]] > 1
    return rows


# --------------------------------------------------------------------------
# One exchange
# --------------------------------------------------------------------------
_STATE_KEYS = frozenset(
    (
        "life",
        "life_max",
        "energy",
        "energy_max",
        "keys",
        "wounds",
        "wound_points",
        "determined",
        "coma",
        "dying",
        "death_assured",
        "dead",
        "karma",
    )
)


def _full_state(c: Combatant, settings: dict[str, Any] | None, wounds: bool = True) -> dict[str, Any]:
    """The participant's state, completed from its sheet where keys are missing.

    ``wounds=False`` leaves the wounds as given: an exchange normalises them
    (:func:`_normalise_state_wounds`) on the loser's state only, the one it reads."""
    given = c.state or {}
    state = dict(given) if _STATE_KEYS <= given.keys() else {**combat_state(c.sheet, settings), **given}
    if wounds:
        _normalise_state_wounds(state)
    return state


def _given_state(c: Combatant, settings: dict[str, Any] | None) -> dict[str, Any]:
    """The participant's state as given when complete (read only: copy it to change it), else
    completed from its sheet (a new dict)."""
    given = c.state or {}
    return given if _STATE_KEYS <= given.keys() else {**combat_state(c.sheet, settings), **given}


def _normalise_state_wounds(state: dict[str, Any]) -> None:
    wounds = state.get("wounds")
    state["wounds"] = normalise_wounds(wound_points(wounds) if wounds else 0)


def _change(changes: list[StateChange], cid: str, state: dict[str, Any], path: str, value: Any) -> None:
    """Set ``state[path]`` and record the change in ``changes``, when the value differs."""
    before = state.get(path)
    if before != value:
        changes.append(StateChange(cid, path, before, value))
        state[path] = value


def _exchange_head(
    mode: str, target_mode: str, surprise: bool, action_type: str, touch: dict[str, Any]
) -> dict[str, Any]:
    """The outcome keys every exchange has (the declared modes and the touch), in their order."""
    return {"mode": mode, "target_mode": target_mode, "surprise": surprise, "action_type": action_type, "touch": touch}


def _out_of_fight(who: Combatant, path: str, code: str) -> RulesError:
    return RulesError([error(path, code, "{n} est hors de combat.", "{n} is out of the fight.", n=who.name)])


def resolve_action(
    actor: Combatant,
    target: Combatant | None,
    declaration: dict[str, Any],
    rng: RandomSource | None = None,
    settings: dict[str, Any] | None = None,
) -> CombatResult:
    """Resolve one declared action of ``actor`` against ``target``.

    The action is ``declaration["action"]`` (``"mode"`` in a declaration stored before #16)."""
    settings = settings or {}
    declaration = with_action_key(declaration, "mode")
    # The exchange reads the validated declaration itself: every value it reads falls back to the
    # declared default when missing or None (``or "melee"``, ``as_int``, ``bool``...).
    decl = _validate_declaration(declaration)
    mode = decl[ACTION_KEY]
    if mode in ("spell", "power"):
        return _resolve_power(actor, target, _with_defaults(decl), settings)
    if target is None:
        raise RulesError([error("target", "required", "Une cible est nécessaire.", "A target is required.")])
    if target.id == actor.id:
        raise RulesError(
            [error("target", "invalid_target", "On ne s'attaque pas soi-même.", "One cannot attack oneself.")]
        )
    a_state, t_state = actor.state, target.state  # read only; completed when a flag is missing
    if not (a_state and "dead" in a_state and "coma" in a_state):
        a_state = _given_state(actor, settings)
    if a_state["dead"] or a_state["coma"]:
        raise _out_of_fight(actor, "", "cannot_act")
    if not (t_state and "dead" in t_state and "coma" in t_state):
        t_state = _given_state(target, settings)
    if t_state["dead"] or t_state["coma"]:
        raise _out_of_fight(target, "target", "invalid_target")
    a_sheet, t_sheet = actor.sheet, target.sheet
    a_chars, t_chars = a_sheet.get("characteristics") or {}, t_sheet.get("characteristics") or {}
    target_mode = decl.get("target_mode") or "melee"
    surprise = bool(decl.get("surprise"))
    action_type = "physical" if mode in PHYSICAL_MODES else "mental"
    tags: list[str] = [mode]
    changes: list[StateChange] = []

    # Step 3: touch (skipped by a surprise attack, L416).
    a_char = TOUCH_CHAR[mode]
    if mode == "psychic":
        d_char = "mental"  # L418 "le mental contre les attaques psychiques"
    elif mode in WRESTLING and settings.get("wrestling_touch", "force") == "force":
        d_char = "force"  # L41
    elif (target_mode in ("unarmed", "none") or surprise) and settings.get("unarmed_defence", "rapidite") == "rapidite":
        d_char = "rapidite"  # L43
    else:
        d_char = "hab_cac"  # L418
    a_val, d_val = _char(a_chars, a_char), _char(t_chars, d_char)
    modifier = decl.get("actor_modifier")
    if modifier is not None:
        a_val += as_int(modifier)
    modifier = decl.get("target_modifier")
    if modifier is not None:
        d_val += as_int(modifier)
    winner: str | None
    touch: dict[str, Any]
    if surprise:
        winner = "actor"
        touch = {"skipped": True, "winner": "actor"}
        tags.append("surprise")
    else:
        winner = "actor" if a_val > d_val else "target" if d_val > a_val else None
        touch = {
            "actor_characteristic": a_char,
            "actor_value": a_val,
            "target_characteristic": d_char,
            "target_value": d_val,
            "winner": winner,
            "tie": winner is None,
        }
        if winner is None:
            rule = settings.get("tie_rule", "stalemate")
            touch["tie_rule"] = rule
            if rule == "attribute":
                pa, pt = attribute_points(a_sheet, T.PARENT[a_char]), attribute_points(t_sheet, T.PARENT[d_char])
                winner = "actor" if pa > pt else "target" if pt > pa else None
                touch["winner"] = winner
            if rule == "gm":
                tags.append("gm_decision")
    # The touch decides the level (README): the actor's characteristic minus the target's is the margin.
    margin = None if surprise else a_val - d_val
    if winner is None:
        tags.append("stalemate")
        return CombatResult(
            SLUG,
            "exchange",
            dict(declaration),
            [],
            _exchange_head(mode, target_mode, surprise, action_type, touch),
            LazyMsg(_stalemate_summary, actor.name, target.name),
            [],
            {},
            tags,
            "tie",
            margin,
        )
    step_level = "success" if winner == "actor" else "failure"

    if winner == "target" and mode in ("ranged", "thrown") and not decl.get("within_reach"):
        tags.append("miss")
        return CombatResult(
            SLUG,
            "exchange",
            dict(declaration),
            [],
            {**_exchange_head(mode, target_mode, surprise, action_type, touch), "miss": True},
            LazyMsg(_evade_summary, actor.name, target.name),
            [],
            {},
            tags,
            step_level,
            margin,
        )
    w, lo = (actor, target) if winner == "actor" else (target, actor)
    w_sheet, w_chars, l_chars = (a_sheet, a_chars, t_chars) if winner == "actor" else (t_sheet, t_chars, a_chars)
    # The only state an exchange changes: a copy of the given one, or completed from the sheet (a new dict).
    given = lo.state
    l_state = dict(given) if given and _STATE_KEYS <= given.keys() else _given_state(lo, settings)
    given_wounds = l_state.get("wounds")  # and the only one it reads the wounds of (normalised)
    l_points = wound_points(given_wounds) if given_wounds else 0
    if l_points < 0:
        l_points = 0
    l_state["wounds"] = normalise_wounds(l_points)
    w_mode = mode if winner == "actor" else target_mode
    if winner == "target":
        tags.append("attacker_hit")  # L418 "un assaillant peut donc être blessé"

    if mode == "psychic" or (winner == "target" and target_mode == "psychic"):
        # L422: energy loss = winner's Mental - loser's Volonté.
        loss = max(0, _char(w_chars, "mental") - _char(l_chars, "volonte"))
        before = l_state["energy"]
        _change(changes, lo.id, l_state, "energy", before - loss)
        # L404 "descendant à 0": only a loss can cause the coma (a human's gauge may start at 0).
        coma = loss > 0 and l_state["energy"] <= 0
        if coma:
            _change(changes, lo.id, l_state, "coma", True)
            tags.append("coma")
        outcome = {
            **_exchange_head(mode, target_mode, surprise, action_type, touch),
            "winner": w.id,
            "loser": lo.id,
            "energy_loss": loss,
            "energy_before": before,
            "energy_after": l_state["energy"],
            "coma": coma,
        }
        return CombatResult(
            SLUG,
            "exchange",
            dict(declaration),
            [],
            outcome,
            LazyMsg(_psychic_summary, w.name, lo.name, loss, coma),
            changes,
            {},
            tags,
            step_level,
            margin,
        )

    # Step 4: parade (L420).
    level_key = ATTACK_LEVEL.get(w_mode, "melee_level")
    level = _level(w_sheet, w_chars, level_key)
    parade_skipped = mode in WRESTLING or target_mode in WRESTLING
    if not parade_skipped and w_mode in ("ranged", "thrown"):
        allowed = decl.get("parry")
        parade_skipped = not (settings.get("ranged_parry", True) if allowed is None else allowed)
    loser_unarmed = (lo is target) and (surprise or target_mode in ("unarmed", "none"))
    parade_char = (
        "rapidite" if loser_unarmed and settings.get("unarmed_defence", "rapidite") == "rapidite" else "hab_cac"
    )
    parade = 0 if parade_skipped else _char(l_chars, parade_char)
    raw = level - parade if level > parade else 0
    # Step 5: impact (L422).
    resistance = _char(l_chars, "resistance")
    net = raw - resistance if raw > resistance else 0
    immunity = decl.get("target_damage_resistance" if lo is target else "actor_damage_resistance") or ""
    weapon_class = decl.get("weapon_class") or "normal" if w is actor else "normal"
    ineffective = False
    if immunity:
        tier = _tier(immunity)
        ineffective = tier >= WEAPON_CLASSES.index(weapon_class if weapon_class in WEAPON_CLASSES else "normal")
        if ineffective:
            net = 0
            tags.append("ineffective")
    # Step 6: wound (L424–L429).
    wound = apply_damage_quality(
        wound_severity(net, resistance), decl.get("weapon_quality" if w is actor else "target_weapon_quality")
    )
    life_before = l_state["life"]
    if net:  # _change, inline: the common case of a hit
        changes.append(StateChange(lo.id, "life", life_before, life_before - net))
        l_state["life"] = life_before - net
    if wound:
        # accumulate_wounds (L429) from the points already read: normalise_wounds(W) keeps W whole.
        points = l_points + T.WOUND_WEIGHTS[wound]
        new_wounds = normalise_wounds(points)
        if new_wounds != l_state["wounds"]:
            _change(changes, lo.id, l_state, "wounds", new_wounds)
        _change(changes, lo.id, l_state, "wound_points", points)
        tags.append(_WOUND_TAGS[wound])
    # Step 7: determination (L431–L434), asked of a serious wound or worse only (else None).
    determined = (
        stays_determined(wound, net, _char(l_chars, "volonte"), settings.get("mortal_determination", "below_5v"))
        if wound in T.DETERMINATION_FACTORS
        else None
    )
    if determined is False:
        _change(changes, lo.id, l_state, "determined", False)
        tags.append("not_determined")
    flags = _death_flags(lo, l_state, changes, settings, tags)
    # One literal on the common path (a hit): _exchange_head's keys, in its order, then the hit's.
    outcome = {
        "mode": mode,
        "target_mode": target_mode,
        "surprise": surprise,
        "action_type": action_type,
        "touch": touch,
        "winner": w.id,
        "loser": lo.id,
        "attack_level": level,
        "attack_level_key": level_key,
        "parade": parade,
        "parade_characteristic": None if parade_skipped else parade_char,
        "parade_skipped": parade_skipped,
        "raw": raw,
        "resistance": resistance,
        "net": net,
        "wound": wound,
        "ineffective": ineffective,
        "determined": determined,
        "life_before": life_before,
        "life_after": l_state["life"],
        "wounds_after": l_state["wounds"],
        "flags": flags,
    }
    summary = LazyMsg(_hit_summary, w.name, lo.name, raw, net, wound, determined)
    # Severity: the wound word itself (L424-L429: légère, sérieuse, grave, mortelle).
    severity = wound or "none"
    return CombatResult(
        SLUG, "exchange", dict(declaration), [], outcome, summary, changes, {}, tags, step_level, margin, severity
    )


_WOUND_TAGS = {w: f"wound_{w}" for w in T.WOUND_ORDER}
_NO_WOUND = Msg("aucune", "none")


def _hit_summary(
    winner: str, loser: str, raw: int, net: int, wound: str | None, determined: bool | None
) -> tuple[str, str]:
    """The sentence of a hit (read lazily, :class:`rules.base.LazyMsg`)."""
    label = T.WOUND_LABELS[wound] if wound else _NO_WOUND
    breaks = determined is False
    return (
        f"{winner} touche {loser} : dégâts bruts {raw}, nets {net}, blessure {label.fr}"
        f"{', rompt le combat' if breaks else ''}.",
        f"{winner} hits {loser}: raw damage {raw}, net {net}, {label.en} wound{', breaks off' if breaks else ''}.",
    )


def _psychic_summary(winner: str, loser: str, loss: int, coma: bool) -> tuple[str, str]:
    """The sentence of a psychic win (read lazily)."""
    return (
        f"{winner} l'emporte psychiquement : {loser} perd {loss} d'énergie{' et tombe dans le coma' if coma else ''}.",
        f"{winner} wins the psychic struggle: {loser} loses {loss} energy{' and falls into a coma' if coma else ''}.",
    )


def _stalemate_summary(actor: str, target: str) -> tuple[str, str]:
    return (f"{actor} et {target} se neutralisent : aucun dégât.", f"{actor} and {target} stalemate: no damage.")


def _evade_summary(actor: str, target: str) -> tuple[str, str]:
    return (f"{target} esquive le tir de {actor}.", f"{target} evades {actor}'s shot.")


def _tier(slug: str) -> int:
    tiers = [s for s, _ in T.QUALITIES["resistance_degats"].tiers]
    return tiers.index(slug) if slug in tiers else -1


def _death_flags(
    who: Combatant, state: dict[str, Any], changes: list[StateChange], settings: dict[str, Any], tags: list[str]
) -> list[str]:
    flags: list[str] = []
    karma = state.get("karma")
    auto = bool(settings.get("automatic_death"))
    if state["wounds"].get("mortal", 0) >= 1:
        flags.append("mortal_wound")
        if isinstance(karma, int) and karma < 0:
            flags.append("mortal_wound_negative_karma")  # L429 "la mort assurée"
            _change(changes, who.id, state, "death_assured", True)
            if auto:
                _change(changes, who.id, state, "dead", True)
        _change(changes, who.id, state, "dying", True)
    if state["life"] <= 0:
        flags.append("life_exhausted")  # L402
        _change(changes, who.id, state, "dying", True)
        if auto:
            _change(changes, who.id, state, "dead", True)
    tags.extend(flags)
    return flags


def _resolve_power(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], settings: dict[str, Any]
) -> CombatResult:
    state = _full_state(actor, settings)
    changes: list[StateChange] = []
    mode = decl[ACTION_KEY]
    tags = [mode, "gm_adjudication"]
    outcome: dict[str, Any] = {"mode": mode, "action_type": "mental", "target": target.id if target else None}
    if mode == "spell":
        cost = spell_cost(
            decl.get("base_cost") or 0,
            decl.get("modifications") or 0,
            real=decl.get("real", True) is not False,
            prepared=bool(decl.get("prepared")),
            instant=bool(decl.get("instant")),
            magic_rich=bool(decl.get("magic_rich")),
            in_amber=bool(decl.get("in_amber")),
        )
        keys, energy = cost["keys"], cost["energy"]
        outcome.update(cost)
    else:
        keys, energy = 0, as_int(decl.get("energy_cost"))
        outcome.update({"keys": 0, "energy": energy})
    errors: list[FieldError] = []
    if keys > state["keys"]:
        errors.append(
            error(
                "modifications",
                "insufficient_keys",
                "Clés insuffisantes : {k} requises, {a} disponibles.",
                "Not enough keys: {k} needed, {a} available.",
                k=keys,
                a=state["keys"],
            )
        )
    if energy > state["energy"]:
        errors.append(
            error(
                "base_cost",
                "insufficient_energy",
                "Énergie insuffisante : {k} requise, {a} disponible.",
                "Not enough energy: {k} needed, {a} available.",
                k=energy,
                a=state["energy"],
            )
        )
    if errors and not decl.get("gm_override"):
        raise RulesError(errors)
    if errors:
        tags.append("gm_override")
    _change(changes, actor.id, state, "keys", state["keys"] - keys)
    _change(changes, actor.id, state, "energy", state["energy"] - energy)
    if energy > 0 and state["energy"] <= 0:
        _change(changes, actor.id, state, "coma", True)  # L404 "descendant à 0"
        tags.append("coma")
    label = MODE_LABELS[mode]
    summary = Msg(
        f"{actor.name} : {label.fr.lower()} ({keys} clé(s), {energy} énergie). Effet arbitré par le MJ (L422).",
        f"{actor.name}: {label.en.lower()} ({keys} key(s), {energy} energy). Effect adjudicated by the GM (L422).",
    )
    return CombatResult(SLUG, "exchange", dict(decl), [], outcome, summary, changes, {}, tags)
