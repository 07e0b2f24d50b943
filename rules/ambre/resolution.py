"""Diceless tests: value comparison, wound reading, spell cost (L34, L416–L449).

Ambre has no randomness: every test compares two numbers and the higher wins
(L418 "prend l'avantage"; L34 attributes serve comparisons). Ties are not
covered by the seed; the ``tie_rule`` campaign setting decides (spec §4.4):
"stalemate" (default, nobody wins), "attribute" (the parent attributes'
points, given as ``a_tiebreak``/``b_tiebreak``, break it) or "gm".
No draw is ever made, so ``Resolution.draws`` is always empty and replaying
with ``ScriptedRandom([])`` gives the same result.
"""

from __future__ import annotations

from typing import Any

from rules.ambre import tables as T
from rules.ambre.combat import stays_determined, wound_severity
from rules.ambre.schema import safe_validate
from rules.ambre.sorcery import spell_cost, spell_request_errors
from rules.base import (
    Field,
    LazyMsg,
    Msg,
    RandomSource,
    Resolution,
    RulesError,
    error,
    fields_reader,
    level_of,
)

SLUG = "ambre"


def test_kinds() -> dict[str, tuple[Field, ...]]:
    return {
        "comparison": (
            Field("a_value", "int", Msg("Valeur A", "Value A"), required=True, minimum=-100000, maximum=100000),
            Field(
                "b_value",
                "int",
                Msg("Valeur B", "Value B"),
                required=True,
                minimum=-100000,
                maximum=100000,
                audience="gm",
            ),
            Field("a_label", "str", Msg("Libellé A", "Label A"), default="A", max_length=120),
            Field("b_label", "str", Msg("Libellé B", "Label B"), default="B", max_length=120, audience="gm"),
            Field(
                "a_tiebreak",
                "int",
                Msg("Départage A (points d'attribut)", "Tiebreak A (attribute points)"),
                default=None,
                minimum=-100000,
                maximum=100000,
            ),
            Field(
                "b_tiebreak",
                "int",
                Msg("Départage B (points d'attribut)", "Tiebreak B (attribute points)"),
                default=None,
                minimum=-100000,
                maximum=100000,
                audience="gm",
            ),
        ),
        "wound": (
            Field("net", "int", Msg("Dégâts nets", "Net damage"), required=True, minimum=-100000, maximum=100000),
            Field("resistance", "int", Msg("Résistance", "Resistance"), required=True, minimum=0, maximum=100000),
            Field("volonte", "int", Msg("Volonté", "Willpower"), default=None, minimum=0, maximum=100000),
        ),
        "spell_cost": (
            Field(
                "base_cost",
                "int",
                Msg("Coût du sort (énergie)", "Spell cost (energy)"),
                required=True,
                minimum=0,
                maximum=100000,
            ),
            Field(
                "modifications",
                "int",
                Msg("Modifications par clé", "Key modifications"),
                default=0,
                minimum=0,
                maximum=20,
            ),
            Field("real", "bool", Msg("Sort « réel »", '"Real" spell'), default=True),
            Field("prepared", "bool", Msg("Préparé (clé majeure)", "Prepared (major key)"), default=False),
            Field("instant", "bool", Msg("Instantané", "Instant"), default=False),
            Field(
                "magic_rich",
                "bool",
                Msg("Ombre magique / source d'énergie", "Magic-rich shadow / energy source"),
                default=False,
                audience="gm",
            ),
            Field("in_amber", "bool", Msg("En Ambre même", "In Amber itself"), default=False, audience="gm"),
            Field("keys_available", "int", Msg("Clés disponibles", "Keys available"), default=None, minimum=0),
            Field("energy_available", "int", Msg("Énergie disponible", "Energy available"), default=None, minimum=0),
        ),
    }


_KINDS = test_kinds()
_DEFAULTS = {kind: tuple((f.path, f.default) for f in fields) for kind, fields in _KINDS.items()}
_COMPARISON_INPUTS = fields_reader(_KINDS["comparison"], {"kind": "comparison"})


def _tie_summary(a: str, b: str, value: int, gm: bool) -> tuple[str, str]:
    """The sentence of a tied comparison (read lazily, :class:`rules.base.LazyMsg`)."""
    return (
        f"{a} et {b} sont à égalité ({value}){' : le MJ tranche' if gm else ''}.",
        f"{a} and {b} are tied ({value}){': the GM decides' if gm else ''}.",
    )


def _win_summary(name: str, a_value: int, b_value: int) -> tuple[str, str]:
    """The sentence of a won comparison (read lazily)."""
    return (f"{name} l'emporte ({a_value} contre {b_value}).", f"{name} wins ({a_value} vs {b_value}).")


def compare(
    a: int, b: int, rule: str = "stalemate", a_tiebreak: int | None = None, b_tiebreak: int | None = None
) -> str | None:
    """Winner of a comparison: "a", "b" or None (tie left to the rule/GM)."""
    if a != b:
        return "a" if a > b else "b"
    if rule == "attribute" and a_tiebreak is not None and b_tiebreak is not None and a_tiebreak != b_tiebreak:
        return "a" if a_tiebreak > b_tiebreak else "b"
    return None


def resolve(
    request: dict[str, Any], rng: RandomSource | None = None, settings: dict[str, Any] | None = None
) -> Resolution:
    if request.__class__ is dict and request.get("kind") == "comparison":
        read = _COMPARISON_INPUTS(request)  # checked and read in one pass (the common test)
        if read is not None:
            return _comparison(read, settings)
    if not isinstance(request, dict):
        raise RulesError([error("", "invalid_request", "Requête invalide.", "Invalid request.")])
    kind = request.get("kind")
    if not isinstance(kind, str) or kind not in _KINDS:
        raise RulesError(
            [error("kind", "unsupported", "Test non pris en charge : {v}.", "Unsupported test: {v}.", v=kind)]
        )
    errors = safe_validate(request, _KINDS[kind])
    if kind == "spell_cost" and not errors:
        errors = spell_request_errors(request)
    if errors:
        raise RulesError(errors)
    settings = settings or {}
    get = request.get
    inputs: dict[str, Any] = {path: get(path, default) for path, default in _DEFAULTS[kind]}
    inputs["kind"] = kind
    if kind == "comparison":
        return _comparison(inputs, settings)
    if kind == "wound":
        wound = wound_severity(inputs["net"], inputs["resistance"])
        determined = None
        if inputs["volonte"] is not None:
            determined = stays_determined(
                wound, inputs["net"], inputs["volonte"], settings.get("mortal_determination", "below_5v")
            )
        label = T.WOUND_LABELS[wound] if wound else Msg("aucune", "none")
        tags = ["zero_resistance"] if inputs["resistance"] == 0 and inputs["net"] > 0 else []
        return Resolution(
            SLUG,
            kind,
            inputs,
            [],
            {"wound": wound, "determined": determined},
            Msg(f"Blessure {label.fr}.", f"Wound: {label.en}."),
            determined,
            tags,
            level_of(determined),  # the wounded stays determined (L431-L434): success
        )
    cost = spell_cost(
        inputs["base_cost"],
        inputs["modifications"],
        real=inputs["real"] is not False,
        prepared=bool(inputs["prepared"]),
        instant=bool(inputs["instant"]),
        magic_rich=bool(inputs["magic_rich"]),
        in_amber=bool(inputs["in_amber"]),
    )
    affordable = True
    if inputs["keys_available"] is not None and cost["keys"] > inputs["keys_available"]:
        affordable = False
    if inputs["energy_available"] is not None and cost["energy"] > inputs["energy_available"]:
        affordable = False
    outcome = {**cost, "affordable": affordable}
    summary = Msg(
        f"{cost['keys']} clé(s), {cost['energy']} points d'énergie, {cost['turns']} tour(s).",
        f"{cost['keys']} key(s), {cost['energy']} energy points, {cost['turns']} turn(s).",
    )
    tags = [] if affordable else ["unaffordable"]
    return Resolution(SLUG, kind, inputs, [], outcome, summary, affordable, tags, level_of(affordable))


def _comparison(inputs: dict[str, Any], settings: dict[str, Any] | None) -> Resolution:
    """A valid comparison's ``inputs`` (the declared defaults filled in): the higher value wins
    (L418); a tie follows the campaign's ``tie_rule`` (spec §4.4)."""
    a_value, b_value = inputs["a_value"], inputs["b_value"]
    margin = a_value - b_value
    # Level (README): the winner is side a → success, side b → failure, no winner → tie (L5-L51).
    if margin:
        won = margin > 0
        name = (inputs["a_label"] or "A") if won else (inputs["b_label"] or "B")
        outcome = {"winner": "a" if won else "b", "margin": abs(margin), "tie": False, "tie_rule": None}
        level = "success" if won else "failure"
        return Resolution(
            SLUG,
            "comparison",
            inputs,
            [],
            outcome,
            LazyMsg(_win_summary, name, a_value, b_value),
            won,
            [],
            level,
            margin,
        )
    a, b = inputs["a_label"] or "A", inputs["b_label"] or "B"
    rule = (settings or {}).get("tie_rule", "stalemate")
    winner = compare(a_value, b_value, rule, inputs["a_tiebreak"], inputs["b_tiebreak"])
    outcome = {"winner": winner, "margin": 0, "tie": True, "tie_rule": rule}
    if winner is None:
        tags = ["tie", "gm_decision"] if rule == "gm" else ["tie"]
        summary = LazyMsg(_tie_summary, a, b, a_value, rule == "gm")
        return Resolution(SLUG, "comparison", inputs, [], outcome, summary, None, tags, "tie", 0)
    won = winner == "a"
    summary = LazyMsg(_win_summary, a if won else b, a_value, b_value)
    return Resolution(
        SLUG, "comparison", inputs, [], outcome, summary, won, ["tiebreak"], "success" if won else "failure", 0
    )


def odds(request: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Diceless: the outcome is certain. Returns probability 1 for the result."""
    if not isinstance(request, dict) or request.get("kind") != "comparison":
        return None
    try:
        result = resolve(request, None, settings)
    except RulesError:
        return None
    winner = result.outcome["winner"]
    return {
        "a": 1.0 if winner == "a" else 0.0,
        "b": 1.0 if winner == "b" else 0.0,
        "tie": 1.0 if winner is None else 0.0,
        "exact": True,
    }


#: Names of the test kinds (:func:`test_kinds` keys).
TEST_KIND_LABELS: dict[str, Msg] = {
    "comparison": Msg("Comparaison", "Comparison"),
    "wound": Msg("Blessure", "Wound"),
    "spell_cost": Msg("Coût d'un sort", "Spell cost"),
}
