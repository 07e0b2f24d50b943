"""Combat as confrontations round by round (reading of a truncated seed).

The seed stops before its combat chapter (L1134; revision history L72-L92
names a "combat par surclassement" that is not supplied, gap G1). So the app
builds combat only from what the text gives:

* **Who acts.** The text has no initiative. Campaign setting
  ``initiative_mode``: ``declared`` (default) — the GM sets an ``order`` per
  declaration, lowest first, no dice; ``opposed_roll`` — each participant
  rolls aspect + means (settings ``initiative_aspect``/``initiative_means``,
  default Physique + Perception, forced roll) and the results are ranked as
  in a confrontation (success before failure, higher °R first, L1068-L1072;
  failures by smaller degree of failure). Ties keep the listed order.
* **What is opposed.** An ``opposed`` action is a confrontation (L1065-L1073):
  the actor's aspect + means (+ skill BC) against the target's defence
  aspect + means (+ skill BC), declared by the GM/actor in the same
  declaration (default defence Physique + Résistance, "essaye de résister",
  L275). Both sides are rolled even at CA ≤ 1 or ≥ 20 when
  ``confrontation_force_roll`` (default, reading G4) so °R is defined.
  Draw order: actor's draws, then the target's.
* **Several actions in a turn** use the multiple-action handicaps
  (``planned_actions`` N, ``action_index`` i, ``unplanned_index`` j;
  L1078-L1087).
* **Harm.** Wounds exist in the text only as handicaps ("à cause d'une
  blessure", L742-L743; Gaston's CA −18, L1017-L1018). When the actor wins,
  the GM's ``harm`` value is recorded as a handicap in the target's state
  (``handicaps`` list); setting ``harm_mode = "margin"`` is an explicit
  house rule (handicap = winner's °R − loser's °R, or the winner's °R if
  the loser failed). A ``condition`` action lets the GM add, remove or clear
  handicaps and advantages. Every active handicap is subtracted from the
  participant's CA on later actions (L739-L746).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from rules.base import (
    ACTION_KEY,
    Combatant,
    CombatResult,
    FieldError,
    Msg,
    RandomSource,
    RulesError,
    StateChange,
    as_int,
    error,
    with_action_key,
)
from rules.base.clean import _copy
from rules.clefs import tables as t
from rules.clefs.derive import find_skill
from rules.clefs.resolution import (
    WINNER_LEVELS,
    action_level,
    confrontation_winner,
    draw,
    evaluate,
    multiple_action_handicap,
    normalize_action,
    summary_for,
    unplanned_action_handicap,
)
from rules.clefs.sheet_tests import request_from_sheet


def declaration_errors(
    actor_sheet: dict[str, Any], declaration: dict[str, Any], target_sheet: dict[str, Any] | None = None
) -> list[FieldError]:
    """A declared skill must be one of the character's skills (issue #19 item 9).

    A skill is "reliée à un aspect particulier" and written on the sheet
    with its NC (L429-L432, L475); a name the sheet does not hold would be
    resolved as an untrained NC 0 (reading G13) without anyone noticing.
    So it is refused, unless the GM marks the roll untrained
    (``skill_untrained``, G13 (a): "profane", BC −10). The defence's skill
    is checked against the target's sheet the same way.
    """
    errors: list[FieldError] = []
    checks = [("skill_name", actor_sheet, bool(declaration.get("skill_untrained")))]
    if target_sheet is not None:
        checks.append(("defense_skill_name", target_sheet, False))
    for path, sheet, untrained in checks:
        name = declaration.get(path)
        if not isinstance(name, str) or not name.strip() or untrained:
            continue
        if find_skill(sheet or {}, name) is None:
            known = ", ".join(str(s.get("name")) for s in (sheet or {}).get("skills") or [] if isinstance(s, dict))
            errors.append(
                error(
                    path,
                    "unknown_skill",
                    "« {name} » n'est pas une compétence du personnage ({known}). "
                    "Laissez vide pour aspect + moyen seuls.",
                    "“{name}” is not one of the character's skills ({known}). Leave empty for aspect + means only.",
                    name=name.strip(),
                    known=known or "—",
                )
            )
    return errors


def combat_state(sheet: dict[str, Any]) -> dict[str, Any]:
    """Initial state: the sheet's active handicaps and advantages (wounds, gear...)."""
    handicaps: list[dict[str, Any]] = []
    advantages: list[dict[str, Any]] = []
    for condition in sheet.get("conditions") or []:
        if isinstance(condition, dict) and condition.get("active", True):
            item = {
                "value": as_int(condition.get("value")),
                "source": condition.get("source", ""),
                "note": condition.get("note", ""),
            }
            (advantages if condition.get("kind") == "advantage" else handicaps).append(item)
    # Out of the fight or dead: the Keeper's decision (the text has no wound scale, gap G1).
    return {"handicaps": handicaps, "advantages": advantages, "unconscious": False, "dead": False}


def _state_values(state: dict[str, Any], key: str) -> list[int]:
    return [as_int(item.get("value")) for item in state.get(key) or [] if isinstance(item, dict)]


def _check(declaration: dict[str, Any], key: str, lo: int, hi: int, default: int, errors: list[FieldError]) -> int:
    value = declaration.get(key, default)
    if value is None or value == "":
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        errors.append(
            error(key, "out_of_range", "Doit être entre {lo} et {hi}.", "Must be between {lo} and {hi}.", lo=lo, hi=hi)
        )
        return default
    return value


def _side_request(
    participant: Combatant,
    aspect_code: Any,
    means_code: Any,
    skill: Any,
    declaration: dict[str, Any],
    extra_handicaps: list[int],
    extra_advantages: list[int],
    force: bool,
    crit: Any,
    nd: Any,
) -> dict[str, Any]:
    request = request_from_sheet(
        {**participant.sheet, "conditions": []},
        aspect_code or "PH",
        means_code or None,
        skill or None,
        handicaps=_state_values(participant.state, "handicaps") + extra_handicaps,
        advantages=_state_values(participant.state, "advantages") + extra_advantages,
    )
    request.update(force_roll=force, crit_die=crit if crit is not None else "default", nd=nd, label=participant.name)
    return request


def initiative(
    combatants: Sequence[Combatant],
    declarations: dict[str, dict[str, Any]],
    rng: RandomSource,
    settings: dict[str, Any],
) -> list[dict[str, Any]]:
    mode = settings.get("initiative_mode", "declared")
    if mode == "opposed_roll":
        rows = []
        for position, combatant in enumerate(combatants):
            request = _side_request(
                combatant,
                settings.get("initiative_aspect", "PH"),
                settings.get("initiative_means", "PE"),
                None,
                {},
                [],
                [],
                True,
                "none",
                None,
            )
            inputs = normalize_action(request, settings)
            draws = draw(inputs, rng)
            outcome = evaluate(inputs, draws)
            success = outcome["level"] in t.SUCCESS_LEVELS
            key = (1, outcome["dr"]) if success else (0, -(outcome["de"] or 0))
            rows.append(
                (
                    key,
                    position,
                    {
                        "id": combatant.id,
                        "score": outcome["signed_degree"],
                        "draws": draws,
                        "level": outcome["level"],
                        "ca": outcome["ca"],
                    },
                )
            )
        rows.sort(key=lambda row: (-row[0][0], -row[0][1], row[1]))
        return [row[2] for row in rows]
    ordered = sorted(
        enumerate(combatants), key=lambda pair: (as_int((declarations.get(pair[1].id) or {}).get("order")), pair[0])
    )
    return [{"id": c.id, "score": as_int((declarations.get(c.id) or {}).get("order")), "draws": []} for _, c in ordered]


def resolve_action(
    actor: Combatant, target: Combatant | None, declaration: dict[str, Any], rng: RandomSource, settings: dict[str, Any]
) -> CombatResult:
    if not isinstance(declaration, dict):
        raise RulesError([error("", "invalid_dict", "Objet attendu.", "Expected an object.")])
    declaration = with_action_key(declaration, "kind")  # a declaration stored before #16
    kind = declaration.get(ACTION_KEY, "opposed")
    if kind == "condition":
        return _condition(actor, target, declaration)
    if kind not in ("opposed", "simple"):
        raise RulesError([error("kind", "unsupported", "Action non prise en charge.", "Unsupported action.")])
    errors: list[FieldError] = []
    planned = _check(declaration, "planned_actions", 1, 10, 1, errors)
    index = _check(declaration, "action_index", 1, 10, 1, errors)
    unplanned = _check(declaration, "unplanned_index", 0, 10, 0, errors)
    handicap = _check(declaration, "handicap", 0, 200, 0, errors)
    advantage = _check(declaration, "advantage", 0, 200, 0, errors)
    harm = _check(declaration, "harm", 0, 100, 0, errors)
    if index > planned:
        errors.append(
            error(
                "action_index",
                "index_above_planned",
                "Le rang dépasse le nombre d'actions prévues.",
                "The rank exceeds the number of planned actions.",
            )
        )
    if kind == "opposed" and target is None:
        errors.append(error("target", "required", "Choisissez un adversaire.", "Choose an opponent."))
    if errors:
        raise RulesError(errors)
    multi = unplanned_action_handicap(planned, unplanned) if unplanned else multiple_action_handicap(planned, index)
    extra = [h for h in (handicap, multi) if h]
    actor_request = _side_request(
        actor,
        declaration.get("aspect_code"),
        declaration.get("means_code"),
        declaration.get("skill_name"),
        declaration,
        extra,
        [advantage] if advantage else [],
        bool(declaration.get("force_roll")),
        declaration.get("crit_die"),
        declaration.get("nd") if kind == "simple" else None,
    )
    actor_inputs = normalize_action(actor_request, settings)
    if kind == "opposed":
        actor_inputs["force_roll"] = actor_inputs["force_roll"] or bool(settings.get("confrontation_force_roll", True))
    actor_draws = draw(actor_inputs, rng)
    actor_out = evaluate(actor_inputs, actor_draws)
    inputs: dict[str, Any] = {"declaration": declaration, "actor": actor_inputs, "multiple_action_handicap": multi}
    outcome: dict[str, Any] = {"actor": actor_out}
    if kind == "simple":
        return CombatResult(
            t.SLUG,
            "simple",
            inputs,
            actor_draws,
            outcome,
            summary_for(actor_out, actor.name),
            tags=[actor_out["level"].lower()],
            level=action_level(actor_out),
            margin=actor_out["signed_degree"],
        )
    assert target is not None
    defense_request = _side_request(
        target,
        declaration.get("defense_aspect_code") or "PH",
        declaration.get("defense_means_code", "RE"),
        declaration.get("defense_skill_name"),
        declaration,
        [],
        [],
        bool(settings.get("confrontation_force_roll", True)),
        declaration.get("crit_die"),
        None,
    )
    target_inputs = normalize_action(defense_request, settings)
    target_draws = draw(target_inputs, rng)
    target_out = evaluate(target_inputs, target_draws)
    inputs["target"] = target_inputs
    outcome["target"] = target_out
    winner = confrontation_winner(actor_out, target_out)
    outcome["winner"] = {"a": actor.id, "b": target.id, None: None}[winner]
    changes: list[StateChange] = []
    inflicted = 0
    if winner == "a":
        if settings.get("harm_mode", "gm") == "margin":
            inflicted = (actor_out["dr"] or 0) - (target_out["dr"] or 0 if target_out["level"] == "SUCCESS" else 0)
            inflicted = max(inflicted, 0)
        else:
            inflicted = harm
    if inflicted:
        before = _copy(target.state.get("handicaps") or [])  # JSON data: copied as deepcopy would
        item = {
            "value": inflicted,
            "source": "harm",
            "note": str(declaration.get("harm_note") or "")[:200],
            "by": actor.id,
        }
        changes.append(StateChange(target.id, "handicaps", before, [*before, item]))
    outcome["harm"] = inflicted
    a_sum, b_sum = summary_for(actor_out, actor.name), summary_for(target_out, target.name)
    if winner is None:
        verdict = Msg("aucun vainqueur", "no winner")
    else:
        name = actor.name if winner == "a" else target.name
        verdict = Msg(f"{name} l'emporte", f"{name} wins")
    if inflicted:
        verdict = Msg(
            f"{verdict.fr} ; handicap {inflicted} pour {target.name}",
            f"{verdict.en}; handicap {inflicted} for {target.name}",
        )
    summary = Msg(f"{a_sum.fr} | {b_sum.fr} → {verdict.fr}", f"{a_sum.en} | {b_sum.en} → {verdict.en}")
    secret = {"target_ca": target_out["ca"]} if target.is_npc else {}
    tags = ["confrontation", f"winner_{winner or 'none'}"]
    # Level: the actor wins, loses or nobody does (WINNER_LEVELS). Severity: the text has no wound
    # scale (gap G1); the harm a win inflicts is a handicap, "light" on the shared scale.
    severity = "light" if inflicted else "none"
    draws = actor_draws + target_draws
    return CombatResult(
        t.SLUG, "opposed", inputs, draws, outcome, summary, changes, secret, tags, WINNER_LEVELS[winner], None, severity
    )


def _condition(actor: Combatant, target: Combatant | None, declaration: dict[str, Any]) -> CombatResult:
    who = target or actor
    errors: list[FieldError] = []
    op = declaration.get("condition_op", "add")
    kind = declaration.get("condition_kind", "handicap")
    value = _check(declaration, "condition_value", 0, 100, 0, errors)
    index = _check(declaration, "condition_index", 0, 100, 0, errors)
    if op not in ("add", "remove", "clear"):
        errors.append(error("condition_op", "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=op))
    if kind not in ("handicap", "advantage"):
        errors.append(
            error("condition_kind", "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=kind)
        )
    if errors:
        raise RulesError(errors)
    key = "advantages" if kind == "advantage" else "handicaps"
    before = copy.deepcopy(who.state.get(key) or [])
    if op == "add":
        if value <= 0:
            raise RulesError([error("condition_value", "min_value", "Doit être au moins 1.", "Must be at least 1.")])
        after = [*before, {"value": value, "source": "gm", "note": str(declaration.get("harm_note") or "")[:200]}]
    elif op == "remove":
        if not 0 <= index < len(before):
            raise RulesError([error("condition_index", "out_of_range", "Numéro inconnu.", "Unknown number.")])
        after = before[:index] + before[index + 1 :]
    else:
        after = []
    label = Msg("handicap", "handicap") if key == "handicaps" else Msg("avantage", "advantage")
    summary = Msg(
        f"{who.name} : {label.fr} {op} → total {sum(_state_values({key: after}, key))}",
        f"{who.name}: {label.en} {op} → total {sum(_state_values({key: after}, key))}",
    )
    return CombatResult(
        t.SLUG,
        "condition",
        {"declaration": declaration},
        [],
        {"target": who.id, key: after},
        summary,
        [StateChange(who.id, key, before, after)],
    )
