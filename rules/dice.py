"""Generic dice expressions (``2d6+3``, ``4d6kh3``, ``1d20``) via ``d20``.

The ``d20`` library draws from the module-level :mod:`random`; we swap in a
:class:`~rules.base.RecordingRandom` for the duration of one roll (under a
lock) so the source is injectable and every raw die is recorded.
"""

from __future__ import annotations

import threading
from typing import Any

import d20
import d20.expression

from rules.base import Msg, RandomSource, RecordingRandom, Resolution, RulesError, error

MAX_EXPRESSION_LENGTH = 100
MAX_DICE = 100
MAX_SIDES = 1000

_lock = threading.Lock()


def _count_dice(node: Any) -> int:
    total = 0
    if isinstance(node, d20.ast.Dice):
        if node.size > MAX_SIDES:
            raise RulesError(
                [error("expression", "too_many_sides", "{n} faces au plus.", "At most {n} sides.", n=MAX_SIDES)]
            )
        total += node.num
    for child in getattr(node, "children", []) or []:
        total += _count_dice(child)
    return total


def parse_expression(expression: str) -> d20.ast.Expression:
    """Parse and bound an expression; raise :class:`RulesError` if invalid."""
    expression = (expression or "").strip()
    if not expression:
        raise RulesError([error("expression", "required", "Expression de dés vide.", "Empty dice expression.")])
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise RulesError(
            [
                error(
                    "expression",
                    "too_long",
                    "Expression trop longue ({n} caractères au plus).",
                    "Expression too long (at most {n} characters).",
                    n=MAX_EXPRESSION_LENGTH,
                )
            ]
        )
    try:
        ast = d20.parse(expression)
    except d20.RollSyntaxError:
        raise RulesError(
            [
                error(
                    "expression",
                    "syntax",
                    "Expression de dés invalide : « {e} » (exemple : 2d6+3).",
                    "Invalid dice expression: “{e}” (example: 2d6+3).",
                    e=expression,
                )
            ]
        ) from None
    if _count_dice(ast) > MAX_DICE:
        raise RulesError([error("expression", "too_many_dice", "{n} dés au plus.", "At most {n} dice.", n=MAX_DICE)])
    return ast


def roll_expression(expression: str, rng: RandomSource, system: str = "dice") -> Resolution:
    """Roll a dice expression with ``rng`` and record every raw die."""
    parse_expression(expression)
    recorder = rng if isinstance(rng, RecordingRandom) else RecordingRandom(rng)
    with _lock:
        saved = d20.expression.random
        d20.expression.random = recorder
        try:
            result = d20.roll(expression.strip(), allow_comments=False)
        except d20.TooManyRolls:
            raise RulesError([error("expression", "too_many_rolls", "Trop de jets.", "Too many rolls.")]) from None
        except d20.RollError as exc:
            raise RulesError(
                [error("expression", "invalid", "Jet impossible : {e}", "Cannot roll: {e}", e=str(exc))]
            ) from None
        finally:
            d20.expression.random = saved
    detail = str(result)
    return Resolution(
        system=system,
        kind="expression",
        inputs={"expression": expression.strip()},
        draws=list(recorder.draws),
        outcome={"total": int(result.total), "detail": detail, "crit": int(result.crit)},
        summary=Msg(f"{expression.strip()} → {result.total}", f"{expression.strip()} → {result.total}"),
    )
