"""Experience (L63-L81): scope XP per rank at the end of a scenario, session awards, the XP balance."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import Field, LedgerDraft, Msg, ProgressionResult, PurchaseResult, error, to_int, validate_fields
from rules.sms import schema
from rules.sms.creation import module_notation
from rules.sms.tables import MAGIC_MODULE

#: The GM's inputs on the session award screen, read by ``suggest_session_awards`` (L75).
SESSION_FACT_FIELDS: tuple[Field, ...] = (
    Field("scenario_completed", "bool", Msg("Scénario terminé", "Scenario completed"), default=False),
    Field("gm_bonus", "bool", Msg("Bonus du MJ", "GM bonus"), default=False),
    Field("scenario", "str", Msg("Scénario", "Scenario"), default="", max_length=100),
)


def purchase(
    sheet: dict[str, Any],
    request: dict[str, Any],
    balances: dict[str, int],
    settings: dict[str, Any],
) -> PurchaseResult:
    """Spend XP at the end of a scenario (L77): scope XP per rank, one rank per module per scenario."""
    s = settings
    kind = request.get("kind", "")
    fields = schema.purchase_fields()
    if kind not in fields:
        return PurchaseResult(
            sheet, [], [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")]
        )
    errors = validate_fields(request, fields[kind])
    if errors:
        return PurchaseResult(sheet, [], errors)
    if request.get("scenario_completed", True) is not True:
        return PurchaseResult(
            sheet,
            [],
            [
                error(
                    "scenario_completed",
                    "scenario_not_completed",
                    "On ne progresse qu'à la fin d'un scénario (L77).",
                    "Progression happens at the end of a scenario (L77).",
                )
            ],
        )
    new = copy.deepcopy(sheet)
    modules = new.setdefault("modules", [])
    advances = new.setdefault("advances", [])
    scenario = str(request["scenario"])
    xp = to_int((balances or {}).get("xp"))
    if kind == "raise_module":
        index = to_int(request.get("module"))
        if index >= len(modules):
            return PurchaseResult(sheet, [], [error("module", "not_found", "Module introuvable.", "Module not found.")])
        m = modules[index]
        name = m.get("name", "")
        checks = [
            (
                m.get("kind") == "negative",
                "negative_module",
                "Les défauts ne s'achètent pas.",
                "Flaws are not bought.",
            ),
            (
                not m.get("progressable", True),
                "not_progressable",
                "Qualité intrinsèque d'un objet : ne progresse pas (L81).",
                "An object's intrinsic quality cannot progress (L81).",
            ),
            (
                m.get("removable") and not m.get("object_possessed", True),
                "object_lost",
                "Objet perdu : module inaccessible (L53).",
                "Object lost: module unavailable (L53).",
            ),
            (
                any(a.get("module") == name and a.get("scenario") == scenario for a in advances),
                "one_rank_per_scenario",
                "Un seul rang par module à la fin d'un scénario (L77).",
                "One rank per module at the end of a scenario (L77).",
            ),
        ]
        max_rank = to_int(s.get("max_rank"))
        if m.get("predefined") in MAGIC_MODULE.values():
            max_rank = to_int(s.get("magic_max_rank"), 5)
        checks.append(
            (
                bool(max_rank) and to_int(m.get("rank")) + 1 > max_rank,
                "max_rank",
                "Rang maximum atteint.",
                "Maximum rank reached.",
            )
        )
        for failed, code, fr, en in checks:
            if failed:
                return PurchaseResult(sheet, [], [error("module", code, fr, en)])
        cost = to_int(m.get("scope"), 1)
        if cost > xp:
            return PurchaseResult(
                sheet, [], [error("module", "not_enough_xp", "Il faut {n} XP.", "{n} XP needed.", n=cost)]
            )
        m["rank"] = to_int(m.get("rank")) + 1
        m["progress_ranks"] = to_int(m.get("progress_ranks")) + 1
    else:
        name = str(request["name"]).strip()
        if any(x.get("name") == name for x in modules):
            return PurchaseResult(
                sheet, [], [error("name", "duplicate", "Ce module existe déjà.", "This module already exists.")]
            )
        cost = to_int(request.get("scope"), 1)
        if cost > xp:
            return PurchaseResult(
                sheet, [], [error("scope", "not_enough_xp", "Il faut {n} XP.", "{n} XP needed.", n=cost)]
            )
        modules.append(
            {
                "name": name,
                "kind": request.get("module_kind") or "positive",
                "scope": cost,
                "rank": 1,
                "free_rank": 0,
                "progress_ranks": 1,
                "source": "purchased",
                "predefined": request.get("predefined", ""),
                "domain": "",
                "removable": False,
                "object_name": "",
                "object_possessed": True,
                "progressable": True,
                "roleplay": False,
            }
        )
    advances.append({"module": name, "scenario": scenario, "cost": cost})
    note = Msg(f"Progression : {name} (+1 rang)", f"Advance: {name} (+1 rank)")
    entry = LedgerDraft("xp", -cost, "purchase", note, {"module": name, "scenario": scenario})
    return PurchaseResult(new, [entry])


def module_offers(
    sheet: dict[str, Any],
    balances: dict[str, int],
    settings: dict[str, Any],
) -> list[dict[str, Any]]:
    """One more rank in each module the XP pay for: "autant de point d'expérience que sa portée" (L63,
    L77), priced by :func:`purchase`. The scenario is the player's to name in the form (L77)."""
    out: list[dict[str, Any]] = []
    for index, m in enumerate(sheet.get("modules") or []):
        if not isinstance(m, Mapping):
            continue
        request = {"kind": "raise_module", "module": index, "scenario": "—", "scenario_completed": True}
        result = purchase(sheet, request, balances, settings)
        if result.errors or not result.entries:
            continue
        rank = to_int(m.get("rank"))
        label = f"{module_notation(m)} → {rank + 1}"
        out.append(
            {
                "kind": "raise_module",
                "request": {"module": index},
                "label": Msg(label, label),
                "cost": -sum(d.amount for d in result.entries if d.currency == "xp"),
            }
        )
    return out


def suggest_session_awards(sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any]) -> list[LedgerDraft]:
    """+1 per session played, +1 per scenario completed, +1 GM bonus (L75)."""
    out: list[LedgerDraft] = []
    session = facts.get("session_id") or facts.get("session")
    scenario = facts.get("scenario_id") or facts.get("scenario")
    if facts.get("present"):
        out.append(
            LedgerDraft(
                "xp",
                1,
                "system_award",
                Msg("Partie jouée (L75)", "Session played (L75)"),
                {"reason": "session", "session": session},
            )
        )
    played = facts.get("played_in_scenario", facts.get("present", False))
    if facts.get("scenario_completed") and played:
        out.append(
            LedgerDraft(
                "xp",
                1,
                "system_award",
                Msg("Scénario terminé (L75)", "Scenario completed (L75)"),
                {"reason": "scenario", "scenario": scenario},
            )
        )
        if facts.get("gm_bonus"):
            out.append(
                LedgerDraft(
                    "xp",
                    1,
                    "gm_award",
                    Msg("Bonus du MJ (L75)", "GM bonus (L75)"),
                    {"reason": "gm_bonus", "scenario": scenario},
                )
            )
    return out


def apply_progression(
    sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any]
) -> ProgressionResult:
    """XP balance recomputed from the ledger (idempotent); duplicated award keys count once."""
    seen: set[tuple[Any, ...]] = set()
    xp = 0
    for e in entries:
        if e.get("currency", "xp") != "xp":
            continue
        data = e.get("data") or {}
        reason = data.get("reason")
        if reason in ("session", "scenario", "gm_bonus"):
            key = (reason, data.get("session"), data.get("scenario"))
            if key in seen:
                continue
            seen.add(key)
        xp += to_int(e.get("amount"))
    flags = [{"code": "negative_xp", "xp": xp}] if xp < 0 else []
    return ProgressionResult({"xp": xp}, sheet, flags)


#: Names of the purchase kinds (*types d'achat*, the ``purchase_fields()`` keys).
PURCHASE_KIND_LABELS: dict[str, Msg] = {
    "raise_module": Msg("Augmenter un module", "Raise a module"),
    "new_module": Msg("Nouveau module", "New module"),
}
