"""Experience and progression (l'expérience et la progression, L623-L685).

* PX are awarded by the GM per trial (épreuve) as the group agreed (L626-L642):
  no formula, so the session job only totals ledger entries.
* Raising a skill by 1 costs the NC reached (L644-L645); a new skill starts
  at NC 0 (profane) so learning it at 1 costs 1 (footnote L655-L656).
  NC is capped at 20 (L432, reading G12).
* Each level gained gives 1 aspect-PX to the skill's aspect; the aspect
  ladder and the means-exchange tokens are derived (:mod:`rules.clefs.derive`).
* Optional anti-abuse limit (footnote L655-L665), campaign setting
  ``aspect_feeding_skills``: a level feeds the aspect only if, after that
  level, the skill is among the character's N strongest (ties: earliest
  acquired, i.e. list order). Never retroactive (reading G11).
* Means exchange on an aspect increase (L650-L653): one token per
  post-creation increase, spent by ``means_exchange`` (one point moved,
  constraints M1-M5 kept) or ``decline_means_exchange`` (Berthiaume
  "laisse faire l'échange", L680-L681).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from rules.base import FieldError, LedgerDraft, Msg, ProgressionResult, PurchaseResult, as_int, error, is_digits
from rules.clefs import tables as t
from rules.clefs.derive import (
    aspect_state,
    find_skill,
    means_errors,
    pending_means_exchanges,
    skill_cost,
    skills_of,
)


def _limit(settings: dict[str, Any]) -> int | None:
    return t.ANTI_ABUSE_CHOICES.get(settings.get("aspect_feeding_skills", "unlimited"))


def _in_top(skills: list[dict[str, Any]], index: int, limit: int) -> bool:
    order = sorted(range(len(skills)), key=lambda i: (-as_int(skills[i].get("nc")), i))
    return index in order[:limit]


def raise_skill_levels(sheet: dict[str, Any], index: int, to: int, settings: dict[str, Any]) -> int:
    """Raise skill ``index`` of ``sheet`` (in place) to NC ``to``; returns the aspect-PX it gave."""
    skills = sheet["skills"]
    skill = skills[index]
    start = as_int(skill.get("nc"))
    if skill.get("creation_nc") is None:
        skill["creation_nc"] = start  # freeze the creation level before the first purchase
    limit = _limit(settings)
    granted_before = skill.get("aspect_px_granted")
    if limit is None:
        skill["nc"] = to
        if granted_before is not None:
            skill["aspect_px_granted"] = as_int(granted_before) + (to - start)
        return to - start
    counted = 0
    for level in range(start + 1, to + 1):
        skill["nc"] = level
        if _in_top([s if isinstance(s, dict) else {} for s in skills], index, limit):
            counted += 1
    base = start if granted_before is None else as_int(granted_before)
    skill["aspect_px_granted"] = base + counted
    return counted


def _aspect_report(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, Any]:
    return {
        code: {"from": before[code]["current"], "to": after[code]["current"], "px": after[code]["px"]}
        for code in t.ASPECTS
        if before[code]["current"] != after[code]["current"] or before[code]["px"] != after[code]["px"]
    }


def purchase(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]
) -> PurchaseResult:
    kind = request.get("kind") if isinstance(request, dict) else None
    handlers = {
        "raise_skill": _raise_skill,
        "new_skill": _new_skill,
        "means_exchange": _means_exchange,
        "decline_means_exchange": _decline,
    }
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        return PurchaseResult(
            sheet, [], [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")]
        )
    return handler(sheet, request, balances, settings)


def _target(request: dict[str, Any], current: int, errors: list[FieldError]) -> int:
    to = request.get("to")
    if isinstance(to, str) and is_digits(to.strip().lstrip("-")):
        to = int(to)
    if not isinstance(to, int) or isinstance(to, bool):
        errors.append(error("to", "invalid_int", "Entrez un nombre entier.", "Enter a whole number."))
        return current
    if to > t.NC_MAX:
        errors.append(error("to", "nc_cap", "Le NC va de 0 à 20 (L432).", "NC ranges from 0 to 20 (L432)."))
    elif to <= current:
        errors.append(
            error("to", "not_an_increase", "Le nouveau NC doit dépasser {n}.", "The new NC must exceed {n}.", n=current)
        )
    return to


def _spend(
    sheet: dict[str, Any],
    new: dict[str, Any],
    index: int,
    start: int,
    to: int,
    balances: dict[str, int],
    settings: dict[str, Any],
    kind: str,
) -> PurchaseResult:
    cost = skill_cost(start, to)
    available = as_int(balances.get("xp"))
    if cost > available:
        return PurchaseResult(
            sheet,
            [],
            [
                error(
                    "to",
                    "insufficient_px",
                    "Il faut {c} PX, il en reste {a}.",
                    "This costs {c} PX, {a} left.",
                    c=cost,
                    a=available,
                )
            ],
        )
    before = aspect_state(new)
    gained = raise_skill_levels(new, index, to, settings)
    after = aspect_state(new)
    skill = new["skills"][index]
    increases = {
        c: after[c]["current"] - before[c]["current"] for c in t.ASPECTS if after[c]["current"] != before[c]["current"]
    }
    note = Msg(f"{skill['name']} : NC {start} → {to} ({cost} PX)", f"{skill['name']}: NC {start} → {to} ({cost} PX)")
    entry = LedgerDraft(
        "xp",
        -cost,
        "purchase",
        note,
        data={
            "purchase": kind,
            "skill": skill["name"],
            "aspect": skill.get("aspect"),
            "from": start,
            "to": to,
            "cost": cost,
            "aspect_px_gained": gained,
            "aspect_increases": increases,
            "aspects": _aspect_report(before, after),
            "means_exchanges_earned": sum(increases.values()),
        },
    )
    return PurchaseResult(new, [entry])


def _raise_skill(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]
) -> PurchaseResult:
    name = request.get("skill")
    aspect = request.get("aspect") or None
    if not isinstance(name, str) or not name.strip():
        return PurchaseResult(
            sheet, [], [error("skill", "required", "Ce champ est obligatoire.", "This field is required.")]
        )
    matches = [s for s in skills_of(sheet) if str(s.get("name", "")).strip().casefold() == name.strip().casefold()]
    if aspect is None and len({s.get("aspect") for s in matches}) > 1:
        return PurchaseResult(
            sheet,
            [],
            [
                error(
                    "aspect",
                    "ambiguous_skill",
                    "Précisez l'aspect de la compétence.",
                    "Say which aspect the skill is under.",
                )
            ],
        )
    found = find_skill(sheet, name, aspect)
    if found is None:
        return PurchaseResult(
            sheet, [], [error("skill", "unknown_skill", "Compétence inconnue : {n}.", "Unknown skill: {n}.", n=name)]
        )
    index, skill = found
    errors: list[FieldError] = []
    start = as_int(skill.get("nc"))
    to = _target(request, start, errors)
    if errors:
        return PurchaseResult(sheet, [], errors)
    new = copy.deepcopy(sheet)
    return _spend(sheet, new, index, start, to, balances, settings, "raise_skill")


def _new_skill(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]
) -> PurchaseResult:
    errors: list[FieldError] = []
    name: str = request["skill"] if isinstance(request.get("skill"), str) else ""
    aspect = request.get("aspect")
    means = request.get("default_means")
    if not name.strip() or len(name) > 80:
        errors.append(
            error(
                "skill",
                "required",
                "Nom de compétence requis (80 caractères au plus).",
                "Skill name required (80 characters at most).",
            )
        )
    if aspect not in t.ASPECTS:
        errors.append(error("aspect", "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=aspect))
    if means not in t.MEANS:
        errors.append(
            error("default_means", "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=means)
        )
    if not errors and find_skill(sheet, name, aspect) is not None:
        errors.append(
            error(
                "skill",
                "duplicate_skill",
                "Cette compétence existe déjà sous cet aspect.",
                "This skill already exists under this aspect.",
            )
        )
    to = _target(request, 0, errors)
    if errors:
        return PurchaseResult(sheet, [], errors)
    new = copy.deepcopy(sheet)
    new.setdefault("skills", [])
    granted = None if _limit(settings) is None else 0
    new["skills"].append(
        {
            "name": name.strip(),
            "aspect": aspect,
            "default_means": means,
            "nc": 0,
            "creation_nc": 0,
            "aspect_px_granted": granted,
        }
    )
    return _spend(sheet, new, len(new["skills"]) - 1, 0, to, balances, settings, "new_skill")


def _means_exchange(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]
) -> PurchaseResult:
    source, target = request.get("from"), request.get("to")
    errors: list[FieldError] = []
    if source not in t.MEANS:
        errors.append(error("from", "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=source))
    if target not in t.MEANS:
        errors.append(error("to", "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=target))
    if not errors and source == target:
        errors.append(error("to", "same_means", "Choisissez deux moyens différents.", "Choose two different means."))
    if pending_means_exchanges(sheet) < 1:
        errors.append(
            error("", "no_means_exchange", "Aucun échange de moyens disponible.", "No means exchange available.")
        )
    if errors:
        return PurchaseResult(sheet, [], errors)
    new = copy.deepcopy(sheet)
    new["means"][source] = as_int(new["means"].get(source)) - 1
    new["means"][target] = as_int(new["means"].get(target)) + 1
    problems = means_errors(new["means"])
    if problems:
        return PurchaseResult(sheet, [], [FieldError(path, code, msg) for path, code, msg in problems])
    new["means_exchanges_done"] = as_int(new.get("means_exchanges_done")) + 1
    return PurchaseResult(new, [])


def _decline(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]
) -> PurchaseResult:
    if pending_means_exchanges(sheet) < 1:
        return PurchaseResult(
            sheet,
            [],
            [error("", "no_means_exchange", "Aucun échange de moyens disponible.", "No means exchange available.")],
        )
    new = copy.deepcopy(sheet)
    new["means_exchanges_done"] = as_int(new.get("means_exchanges_done")) + 1
    return PurchaseResult(new, [])


def apply_progression(
    sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any]
) -> ProgressionResult:
    """Idempotent recomputation: PX balance from the ledger, aspects derived from the skills."""
    xp = sum(int(e.get("amount", 0)) for e in entries if e.get("currency", "xp") == "xp")
    flags: list[dict[str, Any]] = []
    notes: list[Msg] = []
    if xp < 0:
        flags.append({"code": "negative_xp_balance", "balance": xp})
    pending = pending_means_exchanges(sheet)
    if pending:
        flags.append({"code": "pending_means_exchanges", "count": pending})
        notes.append(
            Msg(
                f"{pending} échange(s) de moyens à faire ou refuser.", f"{pending} means exchange(s) to use or decline."
            )
        )
    state = aspect_state(sheet)
    notes.append(
        Msg(
            "Aspects : " + ", ".join(f"{c} {state[c]['current']} ({state[c]['px']} PX)" for c in t.ASPECTS),
            "Aspects: " + ", ".join(f"{c} {state[c]['current']} ({state[c]['px']} PX)" for c in t.ASPECTS),
        )
    )
    return ProgressionResult(balances={"xp": xp}, sheet=sheet, flags=flags, notes=notes)


def suggest_session_awards(sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any]) -> list[LedgerDraft]:
    """GM-configured suggestions only: the text has no award formula (L626-L642)."""
    drafts: list[LedgerDraft] = []
    per_session = as_int(settings.get("px_per_session"))
    if per_session > 0 and facts.get("present", True):
        drafts.append(
            LedgerDraft(
                "xp", per_session, "system_award", Msg("PX de séance", "Session PX"), {"rule": "px_per_session"}
            )
        )
    per_crit = as_int(settings.get("px_per_critical"))
    if per_crit > 0:
        count = sum(1 for r in facts.get("resolutions") or [] if "critical_triggered" in (r.get("tags") or []))
        if count:
            drafts.append(
                LedgerDraft(
                    "xp",
                    per_crit * count,
                    "system_award",
                    Msg(f"Dé critique déclenché ({count} fois)", f"Critical die triggered ({count} times)"),
                    {"rule": "px_per_critical", "count": count},
                )
            )
    return drafts


def skill_offers(sheet: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]) -> list[dict[str, Any]]:
    """One level more in each skill the PX pay for: "chaque niveau coûte le nouveau NC"
    (L626-L667, :func:`~rules.clefs.derive.skill_cost`), priced by :func:`purchase`."""
    out: list[dict[str, Any]] = []
    for skill in skills_of(sheet):
        name, nc = skill.get("name"), skill.get("nc")
        if not isinstance(name, str) or not name.strip() or not isinstance(nc, int) or nc >= t.NC_MAX:
            continue
        offer = {"skill": name, "aspect": skill.get("aspect"), "to": nc + 1}
        result = purchase(sheet, {"kind": "raise_skill", **offer}, balances, settings)
        if result.errors or not result.entries:
            continue
        out.append(
            {
                "kind": "raise_skill",
                "request": offer,
                "label": Msg(f"{name} : NC {nc} → {nc + 1}", f"{name}: NC {nc} → {nc + 1}"),
                "cost": -sum(d.amount for d in result.entries if d.currency == "xp"),
            }
        )
    return out


#: Names of the purchase kinds (*types d'achat*, the ``purchase_fields()`` keys).
PURCHASE_KIND_LABELS: dict[str, Msg] = {
    "raise_skill": Msg("Augmenter une compétence", "Raise a skill"),
    "new_skill": Msg("Nouvelle compétence", "New skill"),
    "means_exchange": Msg("Échange de moyens", "Means exchange"),
    "decline_means_exchange": Msg("Refuser l'échange de moyens", "Decline the means exchange"),
}
