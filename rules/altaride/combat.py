"""The combat round (Assaut): initiative, attack against parry/dodge, damage, pools, recovery.

Participant state (from :func:`combat_state`)::

    {"endurance": {"EP": 12, "EM": 11, "EL": 11, "EO": 14},
     "endurance_max": {...}, "unconscious": false, "unconscious_cause": "",
     "dead": false, "actions_taken": 0, "dodge": null}

Readings (spec §4.6-§4.9): the k-th action of a round, reactions included,
is at -(k-1) (L109, A14); a dodge roll is kept in ``dodge`` and opposes every
later blow of the round, and ends the dodger's actions (L109, A16); the
weapon's skill is used (L105, L205); the VIG Mini malus hits attack and parry
(L204, A21); stunning adds +1 to the attack die and damages EL (L185); damage =
attacker's margin + X + floor(d20/2) + extras, at least 0 (L189, A17, A18);
EP <= 0 unconscious, <= -5 dead (L117); EM <= 0 unconscious, <= -5 madness
possible (L118); EL <= 0 unconscious, +1 EL per round, wake iff d20 < EL
(L119, A23). Call ``{"action": "recover"}`` for each participant at the
start of every round after the first; :meth:`initiative` entries carry
``state_changes`` resetting the per-round counters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from rules.altaride import tables as T
from rules.altaride.derive import endurance_current, endurance_max, skill_cr, talent
from rules.altaride.resolution import (
    EXTRA_FIELDS,
    action_malus,
    damage_amount,
    evaluate,
    gather_extras,
    opposed,
    roll_level,
    vig_min_malus,
)
from rules.altaride.schema import catalogue_row
from rules.base import (
    ACTION_KEY,
    Combatant,
    CombatResult,
    Field,
    Msg,
    RandomSource,
    RulesError,
    StateChange,
    error,
    validate_fields,
)

SLUG = "altaride"

ACTIONS = (
    ("attack", Msg("Attaquer", "Attack")),
    ("cast", Msg("Lancer un sort", "Cast a spell")),
    ("magic_attack", Msg("Attaque magique (Manipulations)", "Magic attack (Manipulations)")),
    ("recover", Msg("Début d'assaut : récupération et réveil", "Start of round: recovery and wake-up")),
    ("damage", Msg("Dommages directs (MJ)", "Direct damage (GM)")),
    ("heal", Msg("Soins / repos (MJ)", "Healing / rest (GM)")),
    ("sleep", Msg("Bon sommeil : EO restaurée", "Good sleep: EO restored")),
)
DEFENCES = (
    ("none", Msg("Aucune défense", "No defence")),
    ("parry", Msg("Parade", "Parry")),
    ("dodge", Msg("Esquive", "Dodge")),
)


def combat_state(sheet: dict[str, Any]) -> dict[str, Any]:
    conditions = sheet.get("conditions") or {}
    return {
        "endurance": {p: endurance_current(sheet, p) for p in T.POOLS},
        "endurance_max": {p: endurance_max(sheet, p) for p in T.POOLS},
        "unconscious": bool(conditions.get("unconscious")),
        "unconscious_cause": str(conditions.get("unconscious_cause") or ""),
        "dead": bool(conditions.get("dead")),
        "actions_taken": 0,
        "dodge": None,
    }


@cache  # static declarations: built once (#21)
def action_fields() -> tuple[Field, ...]:
    return (
        Field("action", "choice", Msg("Action", "Action"), default="attack", choices=ACTIONS, required=True),
        Field("weapon", "str", Msg("Arme (catalogue)", "Weapon (catalogue)"), default="", max_length=60),
        Field("skill", "str", Msg("Compétence (sans arme)", "Skill (no weapon)"), default="", max_length=60),
        Field("damage_x", "int", Msg("X des dommages (sans arme)", "Damage X (no weapon)"), default=0),
        Field("damage_type", "choice", Msg("Frapper pour", "Strike to"), default="physique", choices=T.DAMAGE_TYPES),
        Field(
            "extras",
            "list",
            Msg("Bonus/malus annexes (−1..+1)", "Extra damage modifiers (−1..+1)"),
            default=[],
            max_items=10,
        ),
        *EXTRA_FIELDS,
        Field("modifier", "int", Msg("Bonus/malus du MJ", "GM bonus/malus"), default=0, audience="gm"),
        Field("defence", "choice", Msg("Défense de la cible", "Target's defence"), default="none", choices=DEFENCES),
        Field("defender_weapon", "str", Msg("Arme de parade", "Parrying weapon"), default="", max_length=60),
        Field("defender_skill", "str", Msg("Compétence de défense", "Defence skill"), default="", max_length=60),
        Field(
            "defender_modifier",
            "int",
            Msg("Bonus/malus du défenseur", "Defender bonus/malus"),
            default=0,
            audience="gm",
        ),
        Field(
            "xp_lowering",
            "int",
            Msg("XP dépensés pour baisser le dé (attaquant)", "XP spent to lower the die (attacker)"),
            default=0,
            minimum=0,
        ),
        Field(
            "defender_xp_lowering",
            "int",
            Msg("XP dépensés pour baisser le dé (défenseur)", "XP spent to lower the die (defender)"),
            default=0,
            minimum=0,
        ),
        Field("spell_level", "int", Msg("Niveau du sort", "Spell level"), default=1, minimum=1, maximum=10),
        Field(
            "pool",
            "choice",
            Msg("Endurance", "Endurance"),
            default="EP",
            choices=tuple((p, T.POOL_LABELS[p]) for p in T.POOLS),
        ),
        Field("amount", "int", Msg("Points", "Points"), default=0, minimum=0, audience="gm"),
    )


# ---------------------------------------------------------------------------
# State helpers
# ---------------------------------------------------------------------------
_STATE_KEYS = frozenset(
    ("endurance", "endurance_max", "unconscious", "unconscious_cause", "dead", "actions_taken", "dodge")
)
_POOLS = frozenset(T.POOLS)


def _state(c: Combatant) -> dict[str, Any]:
    """The participant's state over the one its sheet gives (a state the combat app stored is complete:
    then the sheet's is not rebuilt, the gauges are copied as the merge below would)."""
    given = c.state
    if given and _STATE_KEYS <= given.keys():
        endurance, maximum = given["endurance"], given["endurance_max"]
        if (
            endurance.__class__ is dict
            and maximum.__class__ is dict
            and _POOLS <= endurance.keys()
            and _POOLS <= maximum.keys()
        ):
            state = dict(given)
            state["endurance"] = dict(endurance)
            state["endurance_max"] = dict(maximum)
            return state
    base = combat_state(c.sheet)
    state = dict(base)
    state.update(c.state or {})
    state["endurance"] = {**base["endurance"], **((c.state or {}).get("endurance") or {})}
    state["endurance_max"] = {**base["endurance_max"], **((c.state or {}).get("endurance_max") or {})}
    return state


class _Changes:
    def __init__(self) -> None:
        self.items: list[StateChange] = []
        self._index: dict[tuple[str, str], StateChange] = {}

    def set(self, cid: str, path: str, before: Any, after: Any) -> None:
        key = (cid, path)
        if key in self._index:
            self._index[key].after = after
            return
        if before == after:
            return
        change = StateChange(cid, path, before, after)
        self._index[key] = change
        self.items.append(change)


def apply_damage(cid: str, state: dict[str, Any], pool: str, amount: int, changes: _Changes) -> dict[str, Any]:
    """Subtract ``amount`` from a pool and apply the thresholds (L117-L120)."""
    before = int(state["endurance"][pool])
    after = before - amount
    if pool == "EO":
        after = max(after, 0)  # L175
    changes.set(cid, f"endurance.{pool}", before, after)
    state["endurance"][pool] = after
    effects: dict[str, Any] = {"pool": pool, "before": before, "after": after}
    if pool == "EP" and after <= T.DEATH_THRESHOLD and not state.get("dead"):
        changes.set(cid, "dead", bool(state.get("dead")), True)
        state["dead"] = True
        effects["dead"] = True
    if pool in ("EP", "EM", "EL") and after <= 0 and not state.get("unconscious"):
        changes.set(cid, "unconscious", False, True)
        changes.set(cid, "unconscious_cause", state.get("unconscious_cause", ""), pool)
        state["unconscious"], state["unconscious_cause"] = True, pool
        effects["unconscious"] = True
    elif pool in ("EP", "EM") and after <= 0 and state.get("unconscious_cause") == "EL":
        # Knocked out by EL, then EP/EM fall to 0 or less: the wake-up roll (L119) only ends an
        # EL knock-out, so the cause becomes the pool that needs care (L117, L118).
        changes.set(cid, "unconscious_cause", "EL", pool)
        state["unconscious_cause"] = pool
    if pool == "EM" and after <= T.MADNESS_THRESHOLD:
        effects["madness_possible"] = True  # L118: the GM decides
    return effects


def _weapon(key: str, settings: dict[str, Any]) -> dict[str, Any] | None:
    if not key:
        return None
    row = catalogue_row(settings, "weapon_catalogue", key)
    if row is None:
        raise RulesError(
            [
                error(
                    "weapon",
                    "unknown_weapon",
                    "Arme absente du catalogue de la campagne.",
                    "Weapon not in the campaign catalogue.",
                )
            ]
        )
    return row


def _combat_target(
    c: Combatant,
    state: dict[str, Any],
    weapon: dict[str, Any] | None,
    skill: str,
    modifier: int,
    path: str,
    settings: dict[str, Any],
) -> tuple[int, dict[str, int]]:
    """Target of an attack/parry: CR(skill) + GM - (k-1) - 5 x missing VIG (L105, L109, L204)."""
    skill_key = (weapon or {}).get("skill") or skill
    if not skill_key:
        raise RulesError(
            [error(path, "skill_required", "Indiquez une arme ou une Compétence.", "Give a weapon or a skill.")]
        )
    cr = skill_cr(c.sheet, str(skill_key), settings)
    if cr is None:
        raise RulesError(
            [error(path, "unknown_skill", "Compétence inconnue : {k}.", "Unknown skill: {k}.", k=skill_key)]
        )
    k = int(state.get("actions_taken") or 0) + 1
    vig = vig_min_malus(talent(c.sheet, "VIG"), int((weapon or {}).get("vig_min") or 0))
    parts = {"cr": cr, "modifier": modifier, "action_malus": action_malus(k), "vig_min_malus": vig}
    return sum(parts.values()), parts


def _check_can_act(c: Combatant, state: dict[str, Any], settings: dict[str, Any], path: str = "action") -> None:
    if state.get("dead"):
        raise RulesError([error(path, "dead", "{n} est mort.", "{n} is dead.", n=c.name)])
    if state.get("unconscious"):
        raise RulesError([error(path, "unconscious", "{n} est inconscient.", "{n} is unconscious.", n=c.name)])
    if state.get("dodge"):
        raise RulesError(
            [
                error(
                    path,
                    "dodged",
                    "{n} a esquivé : plus d'action cet assaut (L109).",
                    "{n} dodged: no more actions this round (L109).",
                    n=c.name,
                )
            ]
        )
    cap = int(settings.get("max_actions_per_round") or 0)
    if cap and int(state.get("actions_taken") or 0) >= cap:
        raise RulesError(
            [error(path, "too_many_actions", "Nombre maximal d'actions atteint.", "Maximum number of actions reached.")]
        )


def _count_action(c: Combatant, state: dict[str, Any], changes: _Changes) -> None:
    before = int(state.get("actions_taken") or 0)
    state["actions_taken"] = before + 1
    changes.set(c.id, "actions_taken", before, before + 1)


# ---------------------------------------------------------------------------
# Initiative
# ---------------------------------------------------------------------------
def initiative(
    combatants: Sequence[Combatant],
    declarations: dict[str, dict[str, Any]],
    rng: RandomSource,
    settings: dict[str, Any],
) -> list[dict[str, Any]]:
    """Order of action (L105, L202; A15).

    ``roll`` mode: each conscious combatant tests under Perception with the
    weapon's Initiative added to the die; order: critical success first,
    critical failure last, then margin, then Perception (L105), then a d1000
    draw for exact ties. ``static`` mode: Perception score, ties by a draw.
    Unconscious or dead combatants come last with ``acts: false``.
    Each entry holds ``state_changes`` (dicts) resetting the round counters.
    """
    mode = settings.get("initiative_mode", "roll")
    entries: list[dict[str, Any]] = []
    for c in combatants:
        state = _state(c)
        decl = declarations.get(c.id) or {}
        per = talent(c.sheet, "PER")
        entry: dict[str, Any] = {"id": c.id, "perception": per, "draws": [], "acts": True, "tags": []}
        entry["state_changes"] = [
            StateChange(c.id, "actions_taken", state.get("actions_taken", 0), 0).to_dict(),
            StateChange(c.id, "dodge", state.get("dodge"), None).to_dict(),
        ]
        if state.get("dead") or state.get("unconscious"):
            entry.update({"acts": False, "score": None, "rank": 3})
            entries.append(entry)
            continue
        if mode == "static":
            entry.update({"score": per, "rank": 1, "margin": per})
            entries.append(entry)
            continue
        weapon_key = decl.get("weapon") or next(
            (w.get("key") for w in c.sheet.get("weapons") or [] if isinstance(w, dict)), ""
        )
        row = catalogue_row(settings, "weapon_catalogue", str(weapon_key or ""))
        init_bonus = int((row or {}).get("initiative") or 0)
        natural = rng.randint(1, T.DIE)
        roll = evaluate(per + int(decl.get("modifier") or 0), natural, die_modifier=init_bonus)
        rank = {"crit_success": 0, "crit_failure": 2}.get(roll["outcome"], 1)
        entry.update(
            {
                "score": roll["signed_margin"],
                "margin": roll["signed_margin"],
                "rank": rank,
                "roll": roll,
                "weapon_initiative": init_bonus,
            }
        )
        entry["draws"].append(natural)
        if natural == 1:
            entry["tags"].append("natural_1")
        entries.append(entry)

    def key(e: dict[str, Any]) -> tuple[int, int, int]:
        return (e["rank"], -(e.get("margin") or 0), -e["perception"])

    groups: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for e in entries:
        if e["acts"]:
            groups.setdefault(key(e), []).append(e)
    for group in groups.values():
        if len(group) > 1:
            for e in group:
                e["tiebreak"] = rng.randint(1, 1000)
                e["draws"].append(e["tiebreak"])
    entries.sort(key=lambda e: (*key(e), -(e.get("tiebreak") or 0)))
    return entries


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------
def resolve_action(
    actor: Combatant, target: Combatant | None, declaration: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    errors = validate_fields(declaration, action_fields())
    if errors:
        raise RulesError(errors)
    action = declaration.get(ACTION_KEY, "attack")
    handler = {
        "attack": _attack,
        "cast": _cast,
        "magic_attack": _magic_attack,
        "recover": _recover,
        "damage": _gm_damage,
        "heal": _heal,
        "sleep": _sleep,
    }[action]
    result = handler(actor, target, declaration, rng, settings)
    out = result.outcome
    # Level: the attack hits (L105), the spell works (L120, L173), the magic attack affects its target
    # (L180); recovering, healing, sleeping and the GM's damage have no level.
    success = _SUCCESS_KEYS.get(action)
    result.level, result.margin = roll_level(out, out.get(success) if success else None)
    if action in ("attack", "damage"):
        result.severity = _severity(out.get("damage") if action == "attack" else out)
    return result


_SUCCESS_KEYS = {"attack": "hit", "cast": "spell_works", "magic_attack": "target_affected"}


def _severity(effects: Mapping[str, Any] | None) -> str:
    """Damage on the shared severity scale: the text has Endurance points, no wound words (L117-L120).
    Death (EP at the threshold) is "mortal", unconsciousness (a pool at 0) "grave", other damage "light"."""
    if not effects:
        return "none"
    if effects.get("dead"):
        return "mortal"
    if effects.get("unconscious"):
        return "grave"
    return "light" if int(effects.get("before") or 0) > int(effects.get("after") or 0) else "none"


def _lowering(natural: int, die_modifier: int, wanted: int) -> int:
    """XP actually spent lowering a die declared in advance (L217, A13): none on a natural 20, die floor 1.

    The combat app debits ``outcome["xp_spent"]`` (1 XP per point) from the ledger;
    it must check the balance before declaring.
    """
    if natural == T.NATURAL_CRIT_FAILURE:
        return 0
    return max(0, min(wanted, natural + die_modifier - 1))


def _need_target(target: Combatant | None) -> Combatant:
    if target is None:
        raise RulesError([error("target", "target_required", "Choisissez une cible.", "Choose a target.")])
    return target


def _roll_tags(roll: dict[str, Any] | None, prefix: str = "") -> list[str]:
    if not roll:
        return []
    if roll["natural"] == 1:
        return [f"{prefix}natural_1"]
    if roll["natural"] == 20:
        return [f"{prefix}natural_20"]
    return []


def _attack(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    target = _need_target(target)
    a_state, d_state = _state(actor), _state(target)
    _check_can_act(actor, a_state, settings)
    extras = gather_extras(decl)
    weapon = _weapon(str(decl.get("weapon") or ""), settings)
    if weapon and weapon.get("mounted_only") and not (actor.sheet.get("conditions") or {}).get("mounted"):
        raise RulesError(
            [
                error(
                    "weapon",
                    "mounted_only",
                    "Cette arme ne s'utilise que sur une monture (L200).",
                    "This weapon is only used mounted (L200).",
                )
            ]
        )
    stun = decl.get("damage_type") == "lucidite"
    a_target, a_parts = _combat_target(
        actor, a_state, weapon, str(decl.get("skill") or ""), int(decl.get("modifier") or 0), "skill", settings
    )
    changes = _Changes()
    draws: list[int] = []
    natural = rng.randint(1, T.DIE)
    draws.append(natural)
    a_mod = T.STUN_DIE_MODIFIER if stun else 0
    a_roll = evaluate(
        a_target, natural, die_modifier=a_mod, xp_lowering=_lowering(natural, a_mod, int(decl.get("xp_lowering") or 0))
    )
    _count_action(actor, a_state, changes)

    defence = decl.get("defence") or "none"
    d_roll = None
    reused_dodge = False
    if d_state.get("dodge"):  # an earlier dodge this round covers every blow (L109)
        d_roll = d_state["dodge"]
        defence, reused_dodge = "dodge", True
    elif defence != "none" and not d_state.get("unconscious") and not d_state.get("dead"):
        d_weapon = _weapon(str(decl.get("defender_weapon") or ""), settings) if defence == "parry" else None
        d_skill = str(decl.get("defender_skill") or "")
        if defence == "dodge":
            d_skill = d_skill or str(settings.get("dodge_skill") or "")
            if not d_skill:
                raise RulesError(
                    [
                        error(
                            "defender_skill",
                            "dodge_skill_required",
                            "Indiquez la Compétence d'esquive (catalogue).",
                            "Give the dodge skill (catalogue).",
                        )
                    ]
                )
        d_target, _ = _combat_target(
            target, d_state, d_weapon, d_skill, int(decl.get("defender_modifier") or 0), "defender_skill", settings
        )
        if defence == "dodge":  # the VIG Mini malus does not apply to dodging (A21)
            d_target -= vig_min_malus(talent(target.sheet, "VIG"), int((d_weapon or {}).get("vig_min") or 0))
        d_nat = rng.randint(1, T.DIE)
        draws.append(d_nat)
        d_roll = evaluate(d_target, d_nat, xp_lowering=_lowering(d_nat, 0, int(decl.get("defender_xp_lowering") or 0)))
        _count_action(target, d_state, changes)
        if defence == "dodge":
            changes.set(target.id, "dodge", None, d_roll)
    else:
        defence = "none"
    contest = opposed(a_roll, d_roll, settings.get("crit_success_wins_opposed", True))
    outcome: dict[str, Any] = {
        "roll": a_roll,
        "target_parts": a_parts,
        "defence": defence,
        "defender_roll": d_roll,
        "reused_dodge": reused_dodge,
        "contest": contest,
        "hit": contest["active_succeeds"],
        "damage_type": "lucidite" if stun else "physique",
    }
    tags = _roll_tags(a_roll) + ([] if reused_dodge else _roll_tags(d_roll, "defender_"))
    if contest["active_succeeds"]:
        margin = int(a_roll["success_margin"] or 0)
        if settings.get("damage_net_margin") and d_roll and d_roll["success"]:
            margin = max(0, margin - int(d_roll["success_margin"] or 0))
        if weapon:
            x = int(weapon.get("damage_lucidite" if stun else "damage_physique") or 0)
        else:
            x = int(decl.get("damage_x") or 0)
        dmg_nat = rng.randint(1, T.DIE)
        draws.append(dmg_nat)
        amount = damage_amount(margin, x, dmg_nat, extras)
        pool = "EL" if stun else "EP"
        effects = apply_damage(target.id, d_state, pool, amount, changes)
        outcome["damage"] = {
            "margin": margin,
            "x": x,
            "die": dmg_nat,
            "half_die": dmg_nat // 2,
            "extras": extras,
            "amount": amount,
            **effects,
        }
        if settings.get("xp_for_every_d20") and dmg_nat == 1:
            tags.append("natural_1")
        summary = Msg(
            f"{actor.name} touche {target.name} : {amount} points ({'Lucidité' if stun else 'Physique'})",
            f"{actor.name} hits {target.name}: {amount} points ({'Lucidity' if stun else 'Physical'})",
        )
    else:
        summary = Msg(f"{actor.name} ne touche pas {target.name}", f"{actor.name} does not hit {target.name}")
    # Natural 1s per side (L101, L213): the damage die only counts with ``xp_for_every_d20`` (A35).
    damage_one = bool(settings.get("xp_for_every_d20")) and outcome.get("damage", {}).get("die") == 1
    outcome["natural_ones"] = (1 if natural == 1 else 0) + (1 if damage_one else 0)
    outcome["defender_natural_ones"] = 1 if d_roll and not reused_dodge and d_roll["natural"] == 1 else 0
    outcome["xp_spent"] = {
        "actor": a_roll["xp_lowering"],
        "target": d_roll["xp_lowering"] if d_roll and not reused_dodge else 0,
    }
    return CombatResult(SLUG, "attack", dict(decl), draws, outcome, summary, changes.items, tags=tags)


def _cast(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    from rules.altaride.resolution import cast_cost

    state = _state(actor)
    _check_can_act(actor, state, settings)
    level = int(decl.get("spell_level") or 1)
    eo = int(state["endurance"]["EO"])
    if eo < level:
        raise RulesError(
            [
                error(
                    "spell_level",
                    "not_enough_eo",
                    "Endurance Occulte insuffisante : il faut au moins {n} points (L175).",
                    "Not enough Occult Endurance: at least {n} points needed (L175).",
                    n=level,
                )
            ]
        )
    k = int(state.get("actions_taken") or 0) + 1
    natural = rng.randint(1, T.DIE)
    roll = evaluate(
        talent(actor.sheet, "INC") + int(decl.get("modifier") or 0) + action_malus(k), natural, required_margin=level
    )
    cost = cast_cost(roll["meets_required"], natural, level, bool(settings.get("spell_works_on_low_margin", True)))
    changes = _Changes()
    _count_action(actor, state, changes)
    apply_damage(actor.id, state, "EO", cost["eo_cost"], changes)
    outcome = {
        "roll": roll,
        **cost,
        "spell_level": level,
        "eo_before": eo,
        "eo_after": eo - cost["eo_cost"],
        "natural_ones": 1 if natural == 1 else 0,
    }
    summary = Msg(
        f"{actor.name} lance un sort de niveau {level} : EO −{cost['eo_cost']}",
        f"{actor.name} casts a level-{level} spell: EO −{cost['eo_cost']}",
    )
    return CombatResult(SLUG, "cast", dict(decl), [natural], outcome, summary, changes.items, tags=_roll_tags(roll))


def _magic_attack(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    """Manipulations vs Manipulations (L180); tie -> target (A26)."""
    target = _need_target(target)
    a_state, d_state = _state(actor), _state(target)
    _check_can_act(actor, a_state, settings)
    changes = _Changes()
    k = int(a_state.get("actions_taken") or 0) + 1
    natural = rng.randint(1, T.DIE)
    roll = evaluate(talent(actor.sheet, "MAN") + int(decl.get("modifier") or 0) + action_malus(k), natural)
    _count_action(actor, a_state, changes)
    draws = [natural]
    d_roll = None
    if decl.get("defence", "none") != "none" and not d_state.get("unconscious") and not d_state.get("dead"):
        dk = int(d_state.get("actions_taken") or 0) + 1
        d_nat = rng.randint(1, T.DIE)
        draws.append(d_nat)
        d_roll = evaluate(
            talent(target.sheet, "MAN") + int(decl.get("defender_modifier") or 0) + action_malus(dk), d_nat
        )
        _count_action(target, d_state, changes)
    contest = opposed(roll, d_roll, settings.get("crit_success_wins_opposed", True))
    outcome = {
        "roll": roll,
        "defender_roll": d_roll,
        "contest": contest,
        "target_affected": contest["active_succeeds"],
        "natural_ones": 1 if natural == 1 else 0,
        "defender_natural_ones": 1 if d_roll and d_roll["natural"] == 1 else 0,
    }
    summary = Msg(
        f"Attaque magique de {actor.name} : {target.name} "
        + ("subit le sort" if contest["active_succeeds"] else "résiste"),
        f"{actor.name}'s magic attack: {target.name} " + ("is affected" if contest["active_succeeds"] else "resists"),
    )
    return CombatResult(
        SLUG,
        "magic_attack",
        dict(decl),
        draws,
        outcome,
        summary,
        changes.items,
        tags=_roll_tags(roll) + _roll_tags(d_roll, "defender_"),
    )


def _recover(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    """Start of a new round: +1 EL (max), then the wake-up roll if EL knocked out (L119; A23)."""
    state = _state(actor)
    changes = _Changes()
    changes.set(actor.id, "actions_taken", state.get("actions_taken", 0), 0)
    changes.set(actor.id, "dodge", state.get("dodge"), None)
    state["actions_taken"] = 0
    draws: list[int] = []
    outcome: dict[str, Any] = {"woke": False}
    if state.get("dead"):
        return CombatResult(
            SLUG,
            "recover",
            dict(decl),
            draws,
            {"dead": True},
            Msg(f"{actor.name} est mort", f"{actor.name} is dead"),
            changes.items,
        )
    el_before = int(state["endurance"]["EL"])
    el_after = min(el_before + T.EL_REGEN_PER_ROUND, int(state["endurance_max"]["EL"]))
    el_after = max(el_after, el_before)  # never lowers a value above the max
    changes.set(actor.id, "endurance.EL", el_before, el_after)
    outcome["el"] = {"before": el_before, "after": el_after}
    tags: list[str] = []
    if state.get("unconscious") and state.get("unconscious_cause") == "EL":
        natural = rng.randint(1, T.DIE)
        draws.append(natural)
        woke = natural < el_after
        outcome.update({"wake_roll": natural, "woke": woke})
        if natural == 1:
            tags.append("natural_1")
        if woke:  # waking is the 1st action (L119)
            changes.set(actor.id, "unconscious", True, False)
            changes.set(actor.id, "unconscious_cause", "EL", "")
            changes.set(actor.id, "actions_taken", state.get("actions_taken", 0), 1)
    outcome["natural_ones"] = tags.count("natural_1")
    summary = Msg(
        f"{actor.name} récupère (EL {el_before} → {el_after})" + (" et se réveille" if outcome["woke"] else ""),
        f"{actor.name} recovers (EL {el_before} → {el_after})" + (" and wakes up" if outcome["woke"] else ""),
    )
    return CombatResult(SLUG, "recover", dict(decl), draws, outcome, summary, changes.items, tags=tags)


def _gm_damage(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    victim = target or actor
    state = _state(victim)
    changes = _Changes()
    pool = decl.get("pool") or "EP"
    effects = apply_damage(victim.id, state, pool, int(decl.get("amount") or 0), changes)
    summary = Msg(
        f"{victim.name} perd {decl.get('amount') or 0} points ({pool})",
        f"{victim.name} loses {decl.get('amount') or 0} points ({pool})",
    )
    return CombatResult(SLUG, "damage", dict(decl), [], effects, summary, changes.items)


def _heal(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    """GM healing/rest, never above the max (L117); EP/EM unconsciousness ends above 0 (A24)."""
    victim = target or actor
    state = _state(victim)
    changes = _Changes()
    pool = decl.get("pool") or "EP"
    before = int(state["endurance"][pool])
    after = max(before, min(before + int(decl.get("amount") or 0), int(state["endurance_max"][pool])))
    changes.set(victim.id, f"endurance.{pool}", before, after)
    if state.get("unconscious") and state.get("unconscious_cause") == pool and pool in ("EP", "EM") and after > 0:
        # Still knocked out by another pool? EP/EM need care, EL a wake-up roll (L117-L119).
        others = {p: int(state["endurance"][p]) for p in ("EP", "EM", "EL") if p != pool}
        still = next((p for p in ("EP", "EM", "EL") if p in others and others[p] <= 0), "")
        if still:
            changes.set(victim.id, "unconscious_cause", pool, still)
        else:
            changes.set(victim.id, "unconscious", True, False)
            changes.set(victim.id, "unconscious_cause", pool, "")
    summary = Msg(
        f"{victim.name} récupère {after - before} points ({pool})",
        f"{victim.name} recovers {after - before} points ({pool})",
    )
    return CombatResult(
        SLUG, "heal", dict(decl), [], {"pool": pool, "before": before, "after": after}, summary, changes.items
    )


def _sleep(
    actor: Combatant, target: Combatant | None, decl: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    """EO fully restored on waking from a good sleep (L175)."""
    state = _state(actor)
    changes = _Changes()
    before, after = int(state["endurance"]["EO"]), int(state["endurance_max"]["EO"])
    changes.set(actor.id, "endurance.EO", before, max(before, after))
    return CombatResult(
        SLUG,
        "sleep",
        dict(decl),
        [],
        {"before": before, "after": max(before, after)},
        Msg(f"{actor.name} regagne son Endurance Occulte", f"{actor.name} regains Occult Endurance"),
        changes.items,
    )
