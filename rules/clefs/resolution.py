"""Action resolution (la résolution d'action, seed L691-L1109).

One roll per action (L694-L695). The procedure follows the spec §4.12:

1. ``ca`` (cible à atteindre) = aspect + means + BC (if a skill applies)
   − Σ handicaps + Σ advantages (L720-L724, L739-L754). Automatic-outcome
   thresholds use this *effective* CA (Konrad, L979-L982).
2. Rolled iff 2 ≤ CA ≤ 19, or the GM forces the roll (L732-L734), or a
   critical die is requested (it allows rolls "même lors d'une ra ou d'une
   ea", L998-L1001). Otherwise AUTO_FAILURE (CA ≤ 1) / AUTO_SUCCESS (CA ≥ 20).
3. d20 roll-under: r ≤ CA succeeds with °R = r, else failure with degree of
   failure r − CA (L759-L768). Forced at CA ≤ 1: a 1 succeeds with °R = CA;
   forced at CA ≥ 20: a 20 fails with degree 20 − CA (L797-L803).
4. Critical die (dé critique): on a natural 1, an open-ended d20 (rerolled
   and added while it shows 20) is added to °R or to the degree of failure;
   the level never changes (L1002-L1010). Reading G6: the reroll is
   mandatory ("peut", L1007, would let a player dodge every fumble).
5. ND (niveau de difficulté) is met iff the level is a success and °R > ND,
   strictly (Jérôme "entre 5 (exclus) et 12 (inclus)", L876-L879). With
   ND < 0 the GM may count a failure as a negative °R (L882-L888): met iff
   −DE > ND. Reading G2: ``nd=None`` (no ND set) means a success meets it,
   so forced-roll successes with °R ≤ 0 stay successes ("Au moins, ça
   tient!", L812-L813). Reading G3: with no roll, AUTO_SUCCESS meets any ND
   and AUTO_FAILURE none.

Draws are stored in a fixed order: main d20, critical die, extra d20s.
:func:`evaluate` is a pure function of (inputs, draws), so :func:`reevaluate`
changes the ND or the negative-ND switch after the roll without re-rolling
(L903-L911), and :func:`add_critical_die` draws the critical die later
(L1058-L1060).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from rules.base import (
    Field,
    FieldError,
    Msg,
    RandomSource,
    Resolution,
    RulesError,
    ScriptedRandom,
    error,
    is_digits,
)
from rules.clefs import schema
from rules.clefs import tables as t
from rules.clefs.derive import skill_bonus
from rules.clefs.sheet_tests import request_from_sheet

# ---------------------------------------------------------------------------
# Small formulas
# ---------------------------------------------------------------------------


def target_number(
    aspect: int,
    means: int = 0,
    skill_nc: int | None = None,
    handicaps: Iterable[int] = (),
    advantages: Iterable[int] = (),
) -> int:
    """CA = aspect + means + BC (if a skill applies) − handicaps + advantages (L720-L724, L739-L754)."""
    bc = skill_bonus(skill_nc) if skill_nc is not None else 0
    return aspect + means + bc - sum(handicaps) + sum(advantages)


def is_automatic(ca: int) -> str | None:
    """Level of an unrolled action at this CA, or ``None`` if it must be rolled (L724-L727)."""
    if ca <= t.AUTO_FAILURE_MAX_CA:
        return "AUTO_FAILURE"
    if ca >= t.AUTO_SUCCESS_MIN_CA:
        return "AUTO_SUCCESS"
    return None


def base_result(ca: int, r: int) -> tuple[str, int | None, int | None]:
    """(level, °R, degree of failure) of a natural d20 ``r`` at CA ``ca`` (L759-L768, L797-L803)."""
    if ca <= t.AUTO_FAILURE_MAX_CA:
        if r == 1:
            return "SUCCESS", ca, None
        return "FAILURE", None, r - ca
    if ca >= t.AUTO_SUCCESS_MIN_CA:
        if r == t.D20:
            return "FAILURE", None, t.D20 - ca
        return "SUCCESS", r, None
    if r <= ca:
        return "SUCCESS", r, None
    return "FAILURE", None, r - ca


def nd_met(level: str, dr: int | None, de: int | None, nd: int | None, negative_nd: bool = False) -> bool:
    """Whether a result beats the difficulty ND (L822-L825, L876-L888; readings G2, G3)."""
    if level == "AUTO_SUCCESS":
        return True
    if level == "AUTO_FAILURE":
        return False
    if nd is None:
        return level == "SUCCESS"
    if level == "SUCCESS":
        return dr is not None and dr > nd
    return bool(negative_nd and nd < 0 and de is not None and -de > nd)


def difficulty_label(nd: int | None) -> Msg | None:
    """Label of the ND from the table "les difficultés" (L837-L869): highest row ≤ ND."""
    if nd is None:
        return None
    if nd < 0:
        return Msg("négative (facile)", "negative (easy)")
    label = t.DIFFICULTIES[0][1]
    for value, msg in t.DIFFICULTIES:
        if nd >= value:
            label = msg
    return label


def multiple_action_handicap(planned: int, index: int) -> int:
    """Handicap of planned action ``index`` (1 = most important) of ``planned`` simultaneous ones.

    N + 3(i − 1) (L1080-L1083; Mireille 3, 6, 9, L1099-L1103). Reading G17:
    a single action (N = 1) is not a multiple action, handicap 0.
    """
    if planned < 1 or not 1 <= index <= planned:
        raise ValueError("index must be within 1..planned")
    if planned == 1:
        return 0
    return planned + t.MULTI_STEP * (index - 1)


def unplanned_action_handicap(planned: int, extra: int) -> int:
    """Handicap of the ``extra``-th unplanned action (action imprévue) after ``planned`` ones.

    Last planned handicap + 5 per extra action (L1083-L1087; Mireille 9 + 5 = 14, L1104-L1107).
    """
    if planned < 0 or extra < 1:
        raise ValueError("planned >= 0 and extra >= 1")
    last = multiple_action_handicap(planned, planned) if planned >= 1 else 0
    return last + t.UNPLANNED_STEP * extra


# ---------------------------------------------------------------------------
# Request normalisation
# ---------------------------------------------------------------------------
def _int(value: Any, path: str, errors: list[FieldError], lo: int, hi: int, default: int | None = None) -> int | None:
    if value.__class__ is int and lo <= value <= hi:  # the common case first (hot path)
        return value
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        errors.append(error(path, "invalid_int", "Entrez un nombre entier.", "Enter a whole number."))
        return default
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            errors.append(error(path, "invalid_int", "Entrez un nombre entier.", "Enter a whole number."))
            return default
    if not isinstance(value, int):
        errors.append(error(path, "invalid_int", "Entrez un nombre entier.", "Enter a whole number."))
        return default
    if not lo <= value <= hi:
        errors.append(
            error(path, "out_of_range", "Doit être entre {lo} et {hi}.", "Must be between {lo} and {hi}.", lo=lo, hi=hi)
        )
        return default
    return value


def _bool(value: Any, path: str, errors: list[FieldError], default: bool = False) -> bool:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    if value in ("true", "on", "1", 1):
        return True
    if value in ("false", "off", "0", 0):
        return False
    errors.append(error(path, "invalid_bool", "Valeur oui/non attendue.", "Expected yes or no."))
    return default


def _int_list(value: Any, path: str, errors: list[FieldError]) -> list[int]:
    """Handicaps/advantages: an int, a list of ints, or a list of ``{"value": int}`` objects."""
    if value is None or value == "":
        return []
    items = value if isinstance(value, list) else [value]
    out: list[int] = []
    for index, item in enumerate(items):
        if isinstance(item, dict):
            if item.get("active", True) is False:
                continue
            item = item.get("value")
        number = _int(item, f"{path}.{index}" if isinstance(value, list) else path, errors, 0, 200)
        if number is not None:
            out.append(number)
    return out


def parse_crit_die(value: Any, path: str, errors: list[FieldError], default: int | None) -> int | None:
    """Critical die size from ``10``, ``"10"``, ``"d10"``; ``"none"``/``""``/``None`` = none; ``"default"``."""
    if value == "default":
        return default
    if value is None or value in ("", "none", 0, "0"):
        return None
    text = str(value).strip().lower().removeprefix("d")
    if is_digits(text) and int(text) in t.CRIT_DIE_SIZES:
        return int(text)
    errors.append(
        error(
            path, "invalid_crit_die", "Dé critique : d6, d8, d10, d12 ou d20.", "Critical die: d6, d8, d10, d12 or d20."
        )
    )
    return None


def normalize_action(request: dict[str, Any], settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Validate one action request and return its canonical inputs; raise :class:`RulesError`."""
    errors: list[FieldError] = []
    if not isinstance(request, dict):
        raise RulesError([error(prefix.rstrip("."), "invalid_dict", "Objet attendu.", "Expected an object.")])
    aspect = _int(request.get("aspect"), f"{prefix}aspect", errors, -100, 200)
    if request.get("aspect") in (None, "") and not any(e.path == f"{prefix}aspect" for e in errors):
        errors.append(error(f"{prefix}aspect", "required", "Ce champ est obligatoire.", "This field is required."))
    means = _int(request.get("means"), f"{prefix}means", errors, -20, 20, default=0)
    skill_nc = _int(request.get("skill_nc"), f"{prefix}skill_nc", errors, t.NC_MIN, t.NC_MAX)
    handicaps = _int_list(request.get("handicaps"), f"{prefix}handicaps", errors)
    handicaps += _int_list(request.get("handicap"), f"{prefix}handicap", errors)
    advantages = _int_list(request.get("advantages"), f"{prefix}advantages", errors)
    advantages += _int_list(request.get("advantage"), f"{prefix}advantage", errors)
    # Spec §4.12 input names are accepted as aliases.
    if "crit_die" not in request and "crit_die_sides" in request:
        request = {**request, "crit_die": request["crit_die_sides"]}
    if "negative_nd" not in request and "negative_nd_converts_failure" in request:
        request = {**request, "negative_nd": request["negative_nd_converts_failure"]}
    default_crit = parse_crit_die(settings.get("default_crit_die", "none"), "default_crit_die", errors, None)
    crit_die = parse_crit_die(request.get("crit_die", "default"), f"{prefix}crit_die", errors, default_crit)
    nd = _int(request.get("nd"), f"{prefix}nd", errors, -100, 100)
    negative_nd = _bool(
        request.get("negative_nd"), f"{prefix}negative_nd", errors, bool(settings.get("negative_nd_default", False))
    )
    inputs: dict[str, Any] = {
        "aspect": aspect,
        "means": means,
        "skill_nc": skill_nc,
        "handicaps": handicaps,
        "advantages": advantages,
        "force_roll": _bool(request.get("force_roll"), f"{prefix}force_roll", errors),
        "crit_die": crit_die,
        "nd": nd,
        "nd_hidden": _bool(request.get("nd_hidden"), f"{prefix}nd_hidden", errors),
        "negative_nd": negative_nd,
    }
    for key in ("aspect_code", "means_code", "skill_name", "label"):
        value = request.get(key)
        if value not in (None, ""):
            if not isinstance(value, str) or len(value) > 120:
                errors.append(error(f"{prefix}{key}", "invalid_str", "Texte invalide.", "Invalid text."))
            else:
                inputs[key] = value
    if request.get("other_aspect"):
        inputs["other_aspect"] = True  # GM override L482-L485 (reading G26: BC still applies)
    if errors:
        raise RulesError(errors)
    return inputs


# ---------------------------------------------------------------------------
# Rolling and evaluating
# ---------------------------------------------------------------------------
def compute_ca(inputs: dict[str, Any]) -> int:
    return target_number(
        inputs["aspect"],
        inputs.get("means") or 0,
        inputs.get("skill_nc"),
        inputs.get("handicaps") or (),
        inputs.get("advantages") or (),
    )


def must_roll(inputs: dict[str, Any]) -> bool:
    """Step 2 of §4.12: roll iff 2 ≤ CA ≤ 19, forced by the GM, or a critical die is requested."""
    return is_automatic(compute_ca(inputs)) is None or bool(inputs.get("force_roll")) or bool(inputs.get("crit_die"))


def draw_open_ended(rng: RandomSource) -> list[int]:
    """The open-ended d20 of the critical die: reroll and add while it shows 20 (L1008-L1010)."""
    rolls = [rng.randint(1, t.D20)]
    while rolls[-1] == t.CRIT_EXPLODE_ON:
        rolls.append(rng.randint(1, t.D20))
    return rolls


def draw(inputs: dict[str, Any], rng: RandomSource) -> list[int]:
    """Draw the dice of one action in the fixed order: d20, critical die, extra d20s."""
    if not must_roll(inputs):
        return []
    draws = [rng.randint(1, t.D20)]
    if inputs.get("crit_die"):
        draws.extend(_draw_crit(inputs["crit_die"], rng))
    return draws


def _draw_crit(sides: int, rng: RandomSource) -> list[int]:
    crit = rng.randint(1, sides)
    return [crit, *draw_open_ended(rng)] if crit == t.CRIT_TRIGGER else [crit]


def evaluate(inputs: dict[str, Any], draws: Sequence[int]) -> dict[str, Any]:
    """The outcome of an action from its inputs and raw draws (pure; no randomness)."""
    ca = compute_ca(inputs)
    bc = skill_bonus(inputs["skill_nc"]) if inputs.get("skill_nc") is not None else None
    out: dict[str, Any] = {
        "ca": ca,
        "ca_parts": {
            "aspect": inputs["aspect"],
            "means": inputs.get("means") or 0,
            "bc": bc,
            "handicaps": sum(inputs.get("handicaps") or ()),
            "advantages": sum(inputs.get("advantages") or ()),
        },
        "rolled": bool(draws),
        "d20": None,
        "level": None,
        "dr": None,
        "de": None,
        "signed_degree": None,
        "crit": None,
        "nd": inputs.get("nd"),
        "nd_hidden": bool(inputs.get("nd_hidden")),
        "negative_nd": bool(inputs.get("negative_nd")),
        "nd_met": False,
        "success": False,
    }
    if not draws:
        level = is_automatic(ca)
        if level is None:
            raise ValueError("this action needs a roll")
        out["level"] = level
    else:
        r = draws[0]
        level, dr, de = base_result(ca, r)
        out.update(d20=r, level=level, dr=dr, de=de)
        if inputs.get("crit_die"):
            if len(draws) < 2:
                raise ValueError("missing critical die draw")
            crit_value = draws[1]
            extra = list(draws[2:])
            bonus = sum(extra)
            triggered = crit_value == t.CRIT_TRIGGER
            if triggered != bool(extra):
                raise ValueError("critical die draws are inconsistent")
            out["crit"] = {
                "sides": inputs["crit_die"],
                "die": crit_value,
                "triggered": triggered,
                "extra": extra,
                "bonus": bonus,
            }
            if level == "SUCCESS":  # a success has its °R, a failure its degree (base_result)
                out["dr"] = (dr or 0) + bonus
            else:
                out["de"] = (de or 0) + bonus
        elif len(draws) != 1:
            raise ValueError("unexpected extra draws")
    out["r"] = out["d20"]  # spec §4.12 output name
    if out["crit"]:
        crit = out["crit"]
        crit.update(c=crit["die"], extra_rolls=crit["extra"], X=crit["bonus"])
    out["signed_degree"] = out["dr"] if out["level"] == "SUCCESS" else (-out["de"] if out["de"] is not None else None)
    out["success"] = out["level"] in t.SUCCESS_LEVELS
    out["nd_met"] = nd_met(out["level"], out["dr"], out["de"], out["nd"], out["negative_nd"])
    out["difficulty_label"] = (lab := difficulty_label(out["nd"])) and lab.to_dict()
    return out


def tags_for(outcome: dict[str, Any]) -> list[str]:
    tags = [outcome["level"].lower()]
    crit = outcome.get("crit")
    if crit and crit["triggered"]:
        tags.append("exceptional_feat" if outcome["level"] == "SUCCESS" else "exceptional_fumble")
        tags.append("critical_triggered")
    if outcome.get("nd") is not None:
        tags.append("nd_met" if outcome["nd_met"] else "nd_not_met")
    return tags


def summary_for(outcome: dict[str, Any], label: str | None = None) -> Msg:
    """A bilingual one-line summary; a hidden ND is not revealed.

    A triggered critical die names the result as the text does: "prouesse
    exceptionnelle" / "maladresse exceptionnelle" (L993-L1047), not "réussite
    normale" / "échec normal".
    """
    level = t.LEVEL_LABELS[outcome["level"]]
    crit = outcome.get("crit")
    if crit and crit.get("triggered") and outcome["level"] in t.EXCEPTIONAL_LABELS:
        level = t.EXCEPTIONAL_LABELS[outcome["level"]]
    head = f"{label} : " if label else ""
    head_en = f"{label}: " if label else ""
    fr = f"{head}CA {outcome['ca']}"
    en = f"{head_en}CA {outcome['ca']}"
    if outcome["rolled"]:
        fr += f", d20 = {outcome['d20']}"
        en += f", d20 = {outcome['d20']}"
        crit = outcome.get("crit")
        if crit:
            fr += f", dé critique d{crit['sides']} = {crit['die']}"
            en += f", critical d{crit['sides']} = {crit['die']}"
            if crit["triggered"]:
                extra = " + ".join(str(x) for x in crit["extra"])
                fr += f" (relance {extra})"
                en += f" (reroll {extra})"
    fr += f" → {level.fr}"
    en += f" → {level.en}"
    if outcome["level"] == "SUCCESS":
        fr += f", °R {outcome['dr']}"
        en += f", degree of success {outcome['dr']}"
    elif outcome["level"] == "FAILURE":
        fr += f", degré d'échec {outcome['de']}"
        en += f", degree of failure {outcome['de']}"
    if outcome.get("nd") is not None and not outcome.get("nd_hidden"):
        fr += f" ; ND {outcome['nd']} " + ("atteint" if outcome["nd_met"] else "non atteint")
        en += f"; ND {outcome['nd']} " + ("met" if outcome["nd_met"] else "not met")
    return Msg(fr, en)


def action_level(outcome: dict[str, Any]) -> str:
    """The shared level of one action's outcome (``rules/README.md``).

    SUCCESS and AUTO_SUCCESS are a success, FAILURE and AUTO_FAILURE a failure
    (L724-L768); a triggered critical die makes the rolled SUCCESS a
    "prouesse exceptionnelle" (critical_success) and the FAILURE a
    "maladresse exceptionnelle" (critical_failure), L993-L1047."""
    level = outcome["level"]
    crit = outcome.get("crit")
    if crit and crit["triggered"]:
        if level == "SUCCESS":
            return "critical_success"
        if level == "FAILURE":
            return "critical_failure"
    return "success" if level in t.SUCCESS_LEVELS else "failure"


#: The shared level of a confrontation, from side a: it wins, it loses, nobody does (equal °R, G4).
WINNER_LEVELS: dict[str | None, str] = {"a": "success", "b": "failure", None: "tie"}


def resolve_simple(inputs: dict[str, Any], rng: RandomSource, kind: str = "action") -> Resolution:
    draws = draw(inputs, rng)
    outcome = evaluate(inputs, draws)
    return Resolution(
        system=t.SLUG,
        kind=kind,
        inputs=inputs,
        draws=draws,
        outcome=outcome,
        summary=summary_for(outcome, inputs.get("label") or inputs.get("skill_name")),
        success=outcome["success"],
        tags=tags_for(outcome),
        level=action_level(outcome),
        margin=outcome["signed_degree"],  # °R, or minus the degree of failure (L759-L768)
    )


def _from_dict(resolution: dict[str, Any] | Resolution) -> dict[str, Any]:
    return resolution.to_dict() if isinstance(resolution, Resolution) else resolution


def reevaluate(
    resolution: dict[str, Any] | Resolution,
    difficulty: int | None,
    negative_nd: bool | None = None,
    nd_hidden: bool | None = None,
) -> dict[str, Any]:
    """Re-evaluate a stored action with a new ND (and optionally the GM's negative-ND switch).

    The GM may set the ND after seeing the roll (L903-L911). The CA
    components are frozen at roll time (reading G19); only ``nd``,
    ``negative_nd`` and ``nd_hidden`` change. Works for ``action`` and
    ``overreach`` resolutions; returns a new resolution dict with the
    same draws.
    """
    data = _from_dict(resolution)
    if data.get("kind") not in ("action", "overreach"):
        raise RulesError(
            [error("kind", "not_reevaluable", "Ce jet ne se réévalue pas.", "This roll cannot be re-evaluated.")]
        )
    errors: list[FieldError] = []
    nd = _int(difficulty, "nd", errors, -100, 100)
    if errors:
        raise RulesError(errors)
    inputs = dict(data["inputs"])
    inputs["nd"] = nd
    if negative_nd is not None:
        inputs["negative_nd"] = bool(negative_nd)
    if nd_hidden is not None:
        inputs["nd_hidden"] = bool(nd_hidden)
    replay = ScriptedRandom(data["draws"])
    new = resolve_simple(inputs, replay, kind=data["kind"])
    if replay.remaining:
        raise ValueError("stored draws do not match the inputs")
    if data["kind"] == "overreach":
        new.outcome["overreach"] = data["outcome"].get("overreach")
    return new.to_dict()


def add_critical_die(resolution: dict[str, Any] | Resolution, sides: int, rng: RandomSource) -> dict[str, Any]:
    """Roll the critical die after the normal result was given (L1058-L1060).

    Appends the critical die (and its extra d20s) to the stored draws; an
    unrolled automatic outcome first draws its d20 (the critical die allows
    rolls at automatic outcomes, L998-L1001).
    """
    data = _from_dict(resolution)
    errors: list[FieldError] = []
    size = parse_crit_die(sides, "crit_die", errors, None)
    if size is None and not errors:
        errors.append(error("crit_die", "required", "Choisissez un dé critique.", "Choose a critical die."))
    if data["inputs"].get("crit_die"):
        errors.append(
            error(
                "crit_die", "already_rolled", "Le dé critique a déjà été lancé.", "The critical die was already rolled."
            )
        )
    if errors or size is None:  # no size is one of the errors
        raise RulesError(errors)
    inputs = dict(data["inputs"])
    inputs["crit_die"] = size
    draws = list(data["draws"]) or [rng.randint(1, t.D20)]
    draws += _draw_crit(size, rng)
    new = resolve_simple(inputs, ScriptedRandom(draws), kind=data["kind"])
    return new.to_dict()


# ---------------------------------------------------------------------------
# Confrontation (L1065-L1073)
# ---------------------------------------------------------------------------
def confrontation_winner(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """``"a"``, ``"b"`` or ``None`` from two action outcomes (L1068-L1072).

    Both fail → nobody; one succeeds → it wins; both succeed → the higher
    °R (critical bonus included, negative allowed). Reading G4: equal °R →
    no winner (status quo). An unrolled AUTO_SUCCESS compares with °R = CA
    (reading G3 (b); confrontations force rolls by default so it is rare).
    """
    a_ok, b_ok = a["level"] in t.SUCCESS_LEVELS, b["level"] in t.SUCCESS_LEVELS
    if a_ok and not b_ok:
        return "a"
    if b_ok and not a_ok:
        return "b"
    if not a_ok:
        return None
    a_dr = a["dr"] if a["dr"] is not None else a["ca"]
    b_dr = b["dr"] if b["dr"] is not None else b["ca"]
    if a_dr == b_dr:
        return None
    return "a" if a_dr > b_dr else "b"


# ---------------------------------------------------------------------------
# Exact odds (spec §4.13)
# ---------------------------------------------------------------------------
def p_open_ended_greater(m: int) -> Fraction:
    """P(X > m) for the open-ended d20 X: (20 − m)/20 on 0..19, P(X > m − 20)/20 above (§4.13)."""
    if m < 1:
        return Fraction(1)
    factor = Fraction(1)
    while m >= t.D20:
        factor /= t.D20
        m -= t.D20
    return factor * Fraction(t.D20 - m, t.D20)


def _met_with_bonus(level: str, dr: int | None, de: int | None, nd: int | None, negative_nd: bool) -> Fraction:
    """P(ND met) once the open-ended bonus X is added to °R or to the degree of failure."""
    if nd is None:
        return Fraction(1 if level == "SUCCESS" else 0)
    if level == "SUCCESS":  # a success has its °R, a failure its degree of failure
        return p_open_ended_greater(nd - (dr or 0))
    if not (negative_nd and nd < 0):
        return Fraction(0)
    # −(de + X) > nd  ⇔  X < −nd − de  ⇔  not X > −nd − de − 1
    bound = -nd - (de or 0) - 1
    if bound < 1:
        return Fraction(0)
    return 1 - p_open_ended_greater(bound)


def exact_odds(inputs: dict[str, Any], nds: Iterable[int | None] = ()) -> dict[str, Any]:
    """Exact probabilities of one action as :class:`~fractions.Fraction` values.

    Returns ``{"rolled", "success", "beat": {nd: P(ND met)}, "trigger"}``.
    """
    ca = compute_ca(inputs)
    rolled = must_roll(inputs)
    negative_nd = bool(inputs.get("negative_nd"))
    targets = list(dict.fromkeys(nds))
    if not rolled:
        level = is_automatic(ca)
        succ = Fraction(1 if level == "AUTO_SUCCESS" else 0)
        return {"rolled": False, "success": succ, "beat": {nd: succ for nd in targets}, "trigger": Fraction(0)}
    k = inputs.get("crit_die")
    p_trigger = Fraction(1, k) if k else Fraction(0)
    success = Fraction(0)
    beat = {nd: Fraction(0) for nd in targets}
    for r in range(1, t.D20 + 1):
        level, dr, de = base_result(ca, r)
        if level == "SUCCESS":
            success += Fraction(1, t.D20)
        for nd in targets:
            plain = Fraction(1 if nd_met(level, dr, de, nd, negative_nd) else 0)
            value = (1 - p_trigger) * plain
            if p_trigger:
                value += p_trigger * _met_with_bonus(level, dr, de, nd, negative_nd)
            beat[nd] += Fraction(1, t.D20) * value
    return {"rolled": True, "success": success, "beat": beat, "trigger": p_trigger}


def odds_report(inputs: dict[str, Any], extra_nds: Iterable[int] = ()) -> dict[str, Any]:
    """Odds for display: floats, exact fraction strings and percentages.

    ``beat_difficulty`` covers the request's ND (if any) and the table's
    levels 0, 5, 10, 15, 20 (L837-L869).
    """
    nds: list[int] = []
    if inputs.get("nd") is not None:
        nds.append(inputs["nd"])
    nds += [value for value, _ in t.DIFFICULTIES] + list(extra_nds)
    exact = exact_odds(inputs, nds)
    beat = exact["beat"]
    ca = compute_ca(inputs)
    report: dict[str, Any] = {
        "ca": ca,
        "rolled": exact["rolled"],
        "automatic": None if exact["rolled"] else is_automatic(ca),
        "success": float(exact["success"]),
        "failure": float(1 - exact["success"]),
        "beat_difficulty": {nd: float(p) for nd, p in beat.items()},
        "critical_trigger": float(exact["trigger"]),
        "exact": {
            "success": str(exact["success"]),
            "beat_difficulty": {str(nd): str(p) for nd, p in beat.items()},
            "critical_trigger": str(exact["trigger"]),
        },
        "percent": {
            "success": _pct(exact["success"]),
            "beat_difficulty": {str(nd): _pct(p) for nd, p in beat.items()},
        },
    }
    if inputs.get("nd") is not None:
        report["nd"] = inputs["nd"]
        report["nd_met"] = float(beat[inputs["nd"]])
    report["summary"] = _odds_summary(report, inputs.get("nd")).to_dict()
    return report


def _pct(p: Fraction) -> str:
    value = round(float(p) * 100, 2)
    return f"{value:g} %"


def _odds_summary(report: dict[str, Any], nd: int | None) -> Msg:
    succ = report["percent"]["success"]
    fr = f"{succ} de réussir"
    en = f"{succ} to succeed"
    if nd is not None:
        p = report["percent"]["beat_difficulty"][str(nd)]
        fr += f", {p} de battre la difficulté {nd}"
        en += f", {p} to beat difficulty {nd}"
    return Msg(fr, en)


# ---------------------------------------------------------------------------
# The system's entry points: test kinds, resolve, odds
# ---------------------------------------------------------------------------
def test_kinds() -> dict[str, tuple[Field, ...]]:
    """The request kinds :func:`resolve` accepts (fields declared in :mod:`rules.clefs.schema`)."""
    return schema.test_kinds()


def _inputs(request: dict[str, Any], settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    if isinstance(request, dict) and isinstance(request.get("sheet"), dict):
        extra = {
            k: v for k, v in request.items() if k not in ("sheet", "aspect_code", "means_code", "skill_name", "kind")
        }
        request = request_from_sheet(
            request["sheet"],
            request.get("aspect_code", ""),
            request.get("means_code"),
            request.get("skill_name"),
            **extra,
        )
    return normalize_action(request, settings, prefix)


def resolve(request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Resolve an action, an overreach, a confrontation or multiple actions (L691-L1134)."""
    if not isinstance(request, dict):
        raise RulesError([error("", "invalid_dict", "Objet attendu.", "Expected an object.")])
    kind = request.get("kind", "action")
    if kind == "action":
        return resolve_simple(_inputs(request, settings), rng)
    if kind == "overreach":
        return _overreach(request, rng, settings)
    if kind == "confrontation":
        return _confrontation(request, rng, settings)
    if kind == "multiple":
        return _multiple(request, rng, settings)
    raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])


def _overreach(request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Overreach action (action de dépassement, L1111-L1134), as far as the truncated text goes.

    Resolved like a simple action (L1114-L1116); Diff, "la difficulté du
    jet de résolution" (L1122-L1126), is used as the roll's ND unless an
    ND is given; Eff (effort maximal, "le [dom] maximal", L1130-L1132) is
    recorded without mechanics (reading G21). The player-controlled risk
    element is not in the supplied text.
    """
    errors: list[FieldError] = []
    values = {}
    for key, lo, hi in (("diff", -100, 100), ("eff", 0, 1000)):
        value = request.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi):
            errors.append(
                error(
                    key,
                    "out_of_range",
                    "Doit être entre {lo} et {hi}.",
                    "Must be between {lo} and {hi}.",
                    lo=lo,
                    hi=hi,
                )
            )
        values[key] = value
    if errors:
        raise RulesError(errors)
    base = dict(request)
    if base.get("nd") in (None, "") and values["diff"] is not None:
        base["nd"] = values["diff"]
    inputs = _inputs(base, settings)
    inputs["diff"], inputs["eff"] = values["diff"], values["eff"]
    resolution = resolve_simple(inputs, rng, kind="overreach")
    resolution.outcome["overreach"] = {"diff": values["diff"], "eff": values["eff"], "rules_complete": False}
    resolution.tags.append("overreach_incomplete_rules")
    return resolution


def _confrontation(request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Two opposed actions (la confrontation, L1065-L1073); draws: side a, then side b."""
    sides = {}
    errors: list[FieldError] = []
    for side in ("a", "b"):
        try:
            sides[side] = _inputs(request.get(side) or {}, settings, f"{side}.")
        except RulesError as exc:
            errors += exc.errors
    if errors:
        raise RulesError(errors)
    if settings.get("confrontation_force_roll", True):
        for inputs in sides.values():
            inputs["force_roll"] = True
    draws_a = draw(sides["a"], rng)
    draws_b = draw(sides["b"], rng)
    out_a, out_b = evaluate(sides["a"], draws_a), evaluate(sides["b"], draws_b)
    winner = confrontation_winner(out_a, out_b)
    verdict = {
        "a": Msg("A l'emporte", "A wins"),
        "b": Msg("B l'emporte", "B wins"),
        None: Msg("aucun vainqueur", "no winner"),
    }[winner]
    sa, sb = summary_for(out_a, sides["a"].get("label") or "A"), summary_for(out_b, sides["b"].get("label") or "B")
    return Resolution(
        t.SLUG,
        "confrontation",
        {"a": sides["a"], "b": sides["b"]},
        draws_a + draws_b,
        {"a": out_a, "b": out_b, "winner": winner, "draws_a": len(draws_a)},
        Msg(f"{sa.fr} | {sb.fr} → {verdict.fr}", f"{sa.en} | {sb.en} → {verdict.en}"),
        success=None,
        tags=["confrontation", f"winner_{winner or 'none'}"],
        level=WINNER_LEVELS[winner],
    )


def _multiple(request: dict[str, Any], rng: RandomSource, settings: dict[str, Any]) -> Resolution:
    """Simultaneous actions in order of importance, then unplanned ones (L1075-L1109)."""
    planned = request.get("actions")
    unplanned = request.get("unplanned") or []
    if not isinstance(planned, list) or not planned or len(planned) > 10:
        raise RulesError([error("actions", "invalid_list", "Entre 1 et 10 actions.", "Between 1 and 10 actions.")])
    if not isinstance(unplanned, list) or len(unplanned) > 10:
        raise RulesError([error("unplanned", "invalid_list", "10 actions imprévues au plus.", "At most 10 unplanned.")])
    n = len(planned)
    rows: list[tuple[str, dict[str, Any], int]] = []
    errors: list[FieldError] = []
    for group, items in (("actions", planned), ("unplanned", unplanned)):
        for i, item in enumerate(items, start=1):
            handicap = multiple_action_handicap(n, i) if group == "actions" else unplanned_action_handicap(n, i)
            try:
                inputs = _inputs(item, settings, f"{group}.{i - 1}.")
            except RulesError as exc:
                errors += exc.errors
                continue
            if handicap:
                inputs["handicaps"] = [*inputs["handicaps"], handicap]
            rows.append((group, inputs, handicap))
    if errors:
        raise RulesError(errors)
    all_draws: list[int] = []
    results: list[dict[str, Any]] = []
    for group, inputs, handicap in rows:
        draws = draw(inputs, rng)
        all_draws += draws
        outcome = evaluate(inputs, draws)
        results.append(
            {
                "group": group,
                "multiple_action_handicap": handicap,
                "inputs": inputs,
                "outcome": outcome,
                "draws": draws,
            }
        )
    fr = " | ".join(summary_for(r["outcome"], f"#{k + 1}").fr for k, r in enumerate(results))
    en = " | ".join(summary_for(r["outcome"], f"#{k + 1}").en for k, r in enumerate(results))
    return Resolution(
        t.SLUG,
        "multiple",
        {"actions": [r["inputs"] for r in results], "planned": n},
        all_draws,
        {"results": results},
        Msg(fr, en),
        success=None,
        tags=["multiple_actions"],
    )


def odds(request: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any] | None:
    """Exact odds before rolling (spec §4.13). Hidden NDs are left out of the report."""
    kind = request.get("kind", "action") if isinstance(request, dict) else None
    if kind in ("action", "overreach"):
        base = dict(request)
        if kind == "overreach" and base.get("nd") in (None, "") and base.get("diff") is not None:
            base["nd"] = base["diff"]
        inputs = _inputs(base, settings)
        hidden = inputs.get("nd_hidden")
        if hidden:
            inputs = {**inputs, "nd": None}
        report = odds_report(inputs)
        report["nd_hidden"] = bool(hidden)
        return report
    if kind == "confrontation":
        sides = {s: _inputs(request.get(s) or {}, settings, f"{s}.") for s in ("a", "b")}
        if settings.get("confrontation_force_roll", True):
            for inputs in sides.values():
                inputs["force_roll"] = True
        both: dict[str, Any] = {s: odds_report(sides[s]) for s in sides}
        both["winner"] = confrontation_odds(sides["a"], sides["b"])
        return both
    if kind == "multiple":
        planned = request.get("actions") or []
        if not isinstance(planned, list) or len(planned) > 10:
            raise RulesError([error("actions", "invalid_list", "Entre 1 et 10 actions.", "Between 1 and 10 actions.")])
        n = len(planned)
        out = []
        for i, item in enumerate(planned, start=1):
            inputs = _inputs(item, settings, f"actions.{i - 1}.")
            handicap = multiple_action_handicap(n, i)
            if handicap:
                inputs["handicaps"] = [*inputs["handicaps"], handicap]
            out.append(odds_report(inputs))
        return {"actions": out}
    return None


def confrontation_odds(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any] | None:
    """Exact P(a wins), P(b wins), P(no winner) by enumerating both d20s (no critical die; else ``None``)."""
    if a.get("crit_die") or b.get("crit_die"):
        return None

    def dist(inputs: dict[str, Any]) -> list[tuple[Fraction, dict[str, Any]]]:
        ca = compute_ca(inputs)
        if not must_roll(inputs):
            return [(Fraction(1), {"level": is_automatic(ca), "dr": None, "ca": ca})]
        rows = []
        for r in range(1, t.D20 + 1):
            level, dr, _ = base_result(ca, r)
            rows.append((Fraction(1, t.D20), {"level": level, "dr": dr, "ca": ca}))
        return rows

    result = {"a": Fraction(0), "b": Fraction(0), "none": Fraction(0)}
    for pa, oa in dist(a):
        for pb, ob in dist(b):
            winner = confrontation_winner(oa, ob)
            result[winner or "none"] += pa * pb
    return {key: float(value) for key, value in result.items()} | {
        "exact": {key: str(value) for key, value in result.items()}
    }


#: Names of the test kinds (:func:`test_kinds` keys).
TEST_KIND_LABELS: dict[str, Msg] = {
    "action": Msg("Action", "Action"),
    "confrontation": Msg("Confrontation", "Confrontation"),
    "multiple": Msg("Actions multiples", "Multiple actions"),
    "overreach": Msg("Action de dépassement", "Overreach action"),
}
