"""The SMS core: action score, variable difficulty die, resolution, stakes.

Pure functions; the only randomness is the injected ``rng`` in :func:`roll_action`.

Readings (spec §7):
* the die is summed then rounded **once**, odd values up, values < 1 are D0 (L262–266);
  exactly 1 is D2; values above 12 are rounded the same way (13 → D14, spec Ambiguity 7);
* S ≥ die succeeds without a roll (L97; S = die is an automatic success, spec Ambiguity 4);
* stakes: D6 minor, D8 moderate, D10 major, D12 (and any failure above 12) critical (L101, L124, L268);
* die class = N / 2 (spec Ambiguity 3, used by Model B damage);
* criticals (falls/projections only, L625–633): roll 1 = critical success, roll = die maximum and
  above S = critical failure (spec Ambiguity 5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.base import LazyMsg, Msg, RandomSource, to_int
from rules.sms.tables import DIE_MAX, QUALITY_LABELS, STAKE_BY_DIE, STAKES


def round_die(value: int) -> int:
    """Round a summed die value to a real die (L264 «le dé entier supérieur», L266 «en-dessous de 1, le D0»).

    Returns 0 or an even number ≥ 2 (may exceed 12: see :func:`resolve_die`).
    """
    if value < 1:
        return 0
    return value + 1 if value % 2 else value


def difficulty_die(base: int, adjustments: Iterable[int] = ()) -> int:
    """Sum the base die and every adjustment, then round once (L264: «une fois tous les paramètres pris en compte»)."""
    total = int(base)
    for a in adjustments:
        total += int(a)
    return round_die(total)


def action_score(raw: int) -> int:
    """Clamp a summed score: «En cas de score d'action négatif ou nul, ce dernier est considéré égal à 1» (L95)."""
    return raw if raw >= 1 else 1


def die_class(die: int) -> int:
    """Class of a die (L95 «la classe d'un dé», undefined): N / 2 (spec Ambiguity 3)."""
    return max(0, die) // 2


def stake_for_die(die: int) -> str:
    """Narrative stake of a failure at this die (L101, L124–129); above 12 → critical (L268)."""
    if die > DIE_MAX:
        return "critical"
    return STAKE_BY_DIE.get(round_die(die), "none")


def quality_for_offset(offset: int) -> str:
    """Quality label of a chosen die relative to the GM die (L109–117); offsets beyond ±6 saturate."""
    offset = max(-6, min(6, offset))
    if offset % 2:
        offset += 1
    return QUALITY_LABELS[offset][0]


def choose_die(gm_die: int, requested: int, score: int) -> int:
    """Clamp a player-chosen die (L119): into [0, 12], except above 12 when the score reaches it."""
    requested = round_die(requested) if requested > 0 else 0
    if requested > DIE_MAX:
        return requested if requested <= score else DIE_MAX
    return requested


def success_probability(score: int, die: int) -> float:
    """Exact chance of success: 1 if S ≥ die (or D0), 0 above 12 when S is too low, else S / die."""
    score = action_score(score)
    if die <= 0 or score >= die:
        return 1.0
    if die > DIE_MAX:
        return 0.0
    return score / die


def resolve_die(
    score: int, die: int, rng: RandomSource | None, *, criticals: bool = False, force_roll: bool = False
) -> dict[str, Any]:
    """Resolve an action of score ``score`` against a final die (already rounded).

    R-R1 L97: S ≥ die → automatic success without a roll. D0 is always a success (L266).
    R-D4 L268: above 12 and S < die → automatic failure with the consequences of a failed D12.
    Otherwise roll 1d``die``; success iff roll ≤ S (L99).
    ``force_roll``: roll even when S ≥ die (a fall/projection cushion roll seeking a critical, L627, L633;
    spec Ambiguity 4); the success is then still certain.
    """
    score = action_score(score)
    out: dict[str, Any] = {
        "score": score,
        "die": die,
        "roll": None,
        "automatic": False,
        "critical_success": False,
        "critical_failure": False,
    }
    if die <= 0 or (score >= die and not (force_roll and die <= DIE_MAX)):
        out.update(success=True, automatic=True, stake="none")
        return out
    if die > DIE_MAX and score < die:
        out.update(success=False, automatic=True, stake="critical", impossible=True)
        return out
    if rng is None:
        raise ValueError("a roll is needed")
    roll = rng.randint(1, die)
    success = roll <= score
    out["roll"] = roll
    out["success"] = success
    out["stake"] = "none" if success else stake_for_die(die)
    if criticals:
        out["critical_success"] = roll == 1
        out["critical_failure"] = roll == die and roll > score
    return out


def resolve_with_degrees(
    score: int, gm_die: int, chosen_die: int | None, threshold: str, rng: RandomSource | None
) -> dict[str, Any]:
    """Resolve an action whose player may pick another die than the GM's (L97, L107–119).

    ``threshold``: ``"none"`` (the GM die is used), ``"relative"`` (degrees of success, quality label)
    or ``"absolute"`` (a lower die means failure: the crevasse, L107).
    """
    score = action_score(score)
    gm_die = round_die(gm_die) if gm_die > 0 else 0
    if threshold == "none" or chosen_die is None:
        die = gm_die
    else:
        die = choose_die(gm_die, chosen_die, score)
    if threshold == "absolute" and die < gm_die:
        return {
            "score": score,
            "die": die,
            "gm_die": gm_die,
            "roll": None,
            "automatic": True,
            "success": False,
            "stake": "none",
            "quality": None,
            "reason": "absolute_threshold_lower_die",
            "critical_success": False,
            "critical_failure": False,
        }
    out = resolve_die(score, die, rng)
    out["gm_die"] = gm_die
    out["quality"] = quality_for_offset(die - gm_die) if threshold == "relative" and out["success"] else None
    if threshold == "relative" and out["success"] and die > DIE_MAX:
        out["quality"] = quality_for_offset(die - gm_die)
    return out


# ---------------------------------------------------------------------------
# Action score from modules (L14, L38, L44–47, L53, L95)
# ---------------------------------------------------------------------------
def module_xp(kind: str, scope: int, rank: int) -> int:
    """XP value of a module: ± scope × rank (L63, L67)."""
    value = int(scope) * int(rank)
    return -value if kind == "negative" else value


def wound_penalty(severities: Iterable[int]) -> int:
    """Σ penalties of wounds (light 1, serious 2, critical 4, mortal none: L137–140)."""
    from rules.sms.tables import SEVERITIES

    return sum(SEVERITIES[int(s)]["penalty"] for s in severities)


def resisted(penalty: int, resistive_rank: int) -> int:
    """A resistive module cancels penalties up to its rank, and lowers larger ones by its rank (L47)."""
    return max(0, int(penalty) - max(0, int(resistive_rank)))


def score_from_modules(modules: Iterable[Mapping[str, Any]], modifier: int = 0) -> dict[str, Any]:
    """Action score from the modules the GM approved for this action (R-S1..R-S5).

    Each module: ``kind`` (positive/negative/resistive), ``rank`` (magnitude), optional ``domain``
    (resistive modules cancel negatives of the same domain; an empty resistive domain covers every
    negative), optional ``as_positive`` (a resistive module the GM lets count as positive, L47),
    optional ``possessed`` (False excludes a removable module, L53).
    """
    positive = 0
    negatives: dict[str, int] = {}
    resist: dict[str, int] = {}
    for m in modules:
        if m.get("possessed", True) is False:
            continue
        rank = max(0, int(m.get("rank", 0)))
        kind = m.get("kind", "positive")
        domain = str(m.get("domain", "") or "")
        if kind == "positive" or (kind == "resistive" and m.get("as_positive")):
            positive += rank
        elif kind == "negative":
            negatives[domain] = negatives.get(domain, 0) + rank
        elif kind == "resistive":
            resist[domain] = resist.get(domain, 0) + rank
    general = resist.pop("", 0)
    remaining = 0
    for domain, total in negatives.items():
        total = resisted(total, resist.get(domain, 0))
        remaining += total
    remaining = resisted(remaining, general)
    raw = positive - remaining + int(modifier)
    return {
        "positive": positive,
        "negative": remaining,
        "modifier": int(modifier),
        "raw": raw,
        "score": action_score(raw),
    }


def request_score(request: Mapping[str, Any], extra: int = 0) -> dict[str, Any]:
    """Score of a request: from its ``modules`` list when given, else the typed ``score`` (+ ``modifier``)."""
    modifier = to_int(request.get("modifier")) + extra
    modules = request.get("modules") or []
    if modules:
        return score_from_modules(modules, modifier)
    raw = to_int(request.get("score"), 1) + modifier
    return {"raw": raw, "score": action_score(raw), "modifier": modifier}


def outcome_msg(out: Mapping[str, Any]) -> Msg:
    """The sentence of a resolved die: success (automatic or rolled) or failure with its stake (L95-L126).

    Written when read (:class:`rules.base.LazyMsg`), from the values ``out`` holds now."""
    return LazyMsg(
        _outcome_texts,
        bool(out.get("success")),
        bool(out.get("automatic")),
        out.get("score"),
        out.get("roll"),
        out.get("die", 0),
        out.get("stake", "none"),
    )


def _outcome_texts(success: bool, automatic: bool, score: Any, roll: Any, die: Any, stake_key: Any) -> tuple[str, str]:
    if success:
        if automatic:
            return (
                f"Réussite automatique (score {score} contre D{die}).",
                f"Automatic success (score {score} against D{die}).",
            )
        return (f"Réussite : {roll} sur D{die} (score {score}).", f"Success: {roll} on D{die} (score {score}).")
    stake = STAKES.get(stake_key, STAKES["none"])
    if roll is None:
        return (
            f"Échec automatique (D{die} inaccessible), {stake.fr}.",
            f"Automatic failure (D{die} out of reach), {stake.en}.",
        )
    return (
        f"Échec : {roll} sur D{die} (score {score}), {stake.fr}.",
        f"Failure: {roll} on D{die} (score {score}), {stake.en}.",
    )


def die_level(out: Mapping[str, Any], success: bool | None) -> tuple[str, int | None]:
    """The shared level and margin of a resolved die (``rules/README.md``).

    A success (roll ≤ S, L99) is a critical one on a natural 1, a failure a critical one on the
    die's highest face (L627, L633); the margin is the score minus the roll (``None`` when nothing
    was rolled: an automatic result, L97, L268)."""
    roll, score = out.get("roll"), out.get("score")
    margin = score - roll if roll.__class__ is int and score.__class__ is int else None
    if success:
        return ("critical_success" if out.get("critical_success") else "success"), margin
    if success is None:
        return "none", margin
    return ("critical_failure" if out.get("critical_failure") else "failure"), margin
