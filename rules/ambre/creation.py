"""Creation budget and rule validation of an Ambre sheet.

Budget (L18, L22): 100 karma (or the GM's figure for a late joiner) plus
rank refunds (+25 human, +10 chaosian), minus attribute points bought, powers,
artefacts/creatures, shadows, constructs and allies. A negative balance is a
loan (L389): allowed only when the sheet explicitly accepts it
(``karma_loan``) and within the campaign's ``debt_limit``.
"""

from __future__ import annotations

from typing import Any

from rules.ambre import tables as T
from rules.ambre.costs import (
    Cost,
    ally_cost,
    artefact_cost,
    construct_cost,
    invented_power_cost,
    power_cost,
    shadow_cost,
)
from rules.ambre.derive import attribute_points, characteristic, pool
from rules.ambre.schema import coerce, safe_validate
from rules.base import Budget, Field, FieldError, LedgerDraft, Msg, error, is_int


def _key(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def owner_powers(sheet: dict[str, Any]) -> set[str]:
    """Power keys the character holds (for prerequisites, L144–L148, L241)."""
    held = set()
    for item in coerce(sheet)["powers"]:
        if isinstance(item.get("power"), str) and item["power"] in T.POWERS:
            held.add(item["power"])
            if item["power"] == "marelle" and item.get("via_marelle_brisee"):
                held.add("marelle_brisee")
    return held


def attribute_cost(points: int) -> int:
    """Karma effect of an attribute (L18): +25 human, +10 chaosian, -A bought."""
    if points == T.HUMAN_POINTS:
        return -25
    if points == T.CHAOSIAN_POINTS:
        return -10
    return max(0, points)


def starting_points(sheet: dict[str, Any], settings: dict[str, Any] | None) -> int:
    own = coerce(sheet).get("creation_points")
    if is_int(own):
        return own
    value = (settings or {}).get("starting_budget")
    return value if is_int(value) else T.STARTING_BUDGET


def _items(sheet: dict[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
    items = sheet.get(key) or []
    return [(i, item) for i, item in enumerate(items) if isinstance(item, dict)] if isinstance(items, list) else []


def asset_costs(sheet: dict[str, Any], settings: dict[str, Any] | None) -> list[tuple[str, Msg, Cost]]:
    """Every priced thing on the sheet: (path, label, cost)."""
    held = owner_powers(sheet)
    out: list[tuple[str, Msg, Cost]] = []
    for i, item in _items(sheet, "powers"):
        spec = T.POWERS.get(_key(item.get("power")) or "")
        label = spec.label if spec else Msg("Pouvoir", "Power")
        out.append(
            (
                f"powers.{i}",
                label,
                power_cost(
                    item.get("power"),
                    item.get("level"),
                    settings,
                    bool(item.get("via_marelle_brisee")),
                    prefix=f"powers.{i}.",
                ),
            )
        )
    for i, item in _items(sheet, "artefacts"):
        out.append(
            (
                f"artefacts.{i}",
                Msg(f"Artefact : {item.get('name') or i + 1}", f"Artefact: {item.get('name') or i + 1}"),
                artefact_cost(item, held, settings, prefix=f"artefacts.{i}."),
            )
        )
    for i, item in _items(sheet, "shadows"):
        out.append(
            (
                f"shadows.{i}",
                Msg(f"Ombre : {item.get('name') or i + 1}", f"Shadow: {item.get('name') or i + 1}"),
                shadow_cost(item, prefix=f"shadows.{i}."),
            )
        )
    for i, item in _items(sheet, "constructs"):
        out.append(
            (
                f"constructs.{i}",
                Msg(f"Construct : {item.get('name') or i + 1}", f"Construct: {item.get('name') or i + 1}"),
                construct_cost(item, held, settings, prefix=f"constructs.{i}."),
            )
        )
    for i, item in _items(sheet, "allies"):
        out.append(
            (
                f"allies.{i}",
                Msg(f"Allié : {item.get('name') or i + 1}", f"Ally: {item.get('name') or i + 1}"),
                ally_cost(item, prefix=f"allies.{i}."),
            )
        )
    for i, item in _items(sheet, "invented_powers"):
        out.append(
            (
                f"invented_powers.{i}",
                Msg(f"Pouvoir inventé : {item.get('name') or i + 1}", f"Invented power: {item.get('name') or i + 1}"),
                invented_power_cost(item, settings, prefix=f"invented_powers.{i}."),
            )
        )
    return out


def creation_budget(sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
    """What the sheet spends of its creation karma, what remains, what is invalid."""
    sheet = coerce(sheet)
    start = starting_points(sheet, settings)
    budget = Budget("karma", start, 0)
    budget.lines.append(
        {
            "label": Msg("Points de création (L22)", "Creation points (L22)").to_dict(),
            "amount": start,
            "path": "creation_points",
        }
    )
    for key in T.ATTRIBUTES:
        points = attribute_points(sheet, key)
        cost = attribute_cost(points)
        if cost < 0:
            budget.total += -cost
            budget.lines.append(
                {
                    "label": Msg(
                        f"Rang rétrogradé : {T.ATTRIBUTE_LABELS[key].fr}",
                        f"Downgraded rank: {T.ATTRIBUTE_LABELS[key].en}",
                    ).to_dict(),
                    "amount": -cost,
                    "path": f"attributes.{key}",
                }
            )
        elif cost:
            budget.spent += cost
            budget.lines.append(
                {"label": T.ATTRIBUTE_LABELS[key].to_dict(), "amount": -cost, "path": f"attributes.{key}"}
            )
        budget.pools[f"characteristics.{key}"] = {
            "total": pool(points),
            "spent": sum(characteristic(sheet, c) for c in T.GOVERNS[key]),
        }
    for path, label, asset in asset_costs(sheet, settings):
        budget.spent += asset.paid
        budget.lines.append({"label": label.to_dict(), "amount": -asset.paid, "path": path})
        budget.errors.extend(asset.errors)
    budget.errors.extend(karma_errors(budget.remaining, sheet, settings))
    return budget


def karma_errors(balance: int, sheet: dict[str, Any], settings: dict[str, Any] | None) -> list[FieldError]:
    """A negative balance needs an explicit loan and stays within the debt limit (L389)."""
    errors: list[FieldError] = []
    if balance < 0:
        if not sheet.get("karma_loan"):
            errors.append(
                error(
                    "karma_loan",
                    "karma_loan_required",
                    "Karma négatif ({n}) : acceptez explicitement le prêt (L389).",
                    "Negative karma ({n}): explicitly accept the loan (L389).",
                    n=balance,
                )
            )
        limit = (settings or {}).get("debt_limit")
        if is_int(limit) and -balance > limit:
            errors.append(
                error(
                    "karma_loan",
                    "debt_limit",
                    "Dette de karma limitée à {n} dans cette campagne.",
                    "Karma debt is limited to {n} in this campaign.",
                    n=limit,
                )
            )
    return errors


def validate_sheet(sheet: Any, settings: dict[str, Any], fields: tuple[Field, ...]) -> list[FieldError]:
    """The declared types and ranges (``fields``), then the rule checks of :func:`validate_rules`."""
    if not isinstance(sheet, dict):
        return [FieldError("", "invalid_dict", Msg("Objet attendu.", "Expected an object."))]
    errors = safe_validate(sheet, fields)
    if errors:
        return errors
    return validate_rules(sheet, settings)


def validate_rules(sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
    """Rule checks beyond types and ranges (spec §3.10)."""
    sheet = coerce(sheet)
    settings = settings or {}
    errors: list[FieldError] = []
    for key in T.ATTRIBUTES:
        points = attribute_points(sheet, key)
        if points < 0 and points not in (T.HUMAN_POINTS, T.CHAOSIAN_POINTS):
            errors.append(
                error(
                    f"attributes.{key}",
                    "invalid_attribute_rank",
                    "Négatif seulement pour un rang Chaosien (−10) ou Humain (−25) (L18).",
                    "Negative only for a Chaosian (−10) or Human (−25) rank (L18).",
                )
            )
            continue
        total = sum(characteristic(sheet, c) for c in T.GOVERNS[key])
        if total != pool(points):
            errors.append(
                FieldError(
                    f"attributes.{key}",
                    "characteristics_sum",
                    Msg(
                        f"Les caractéristiques de {T.ATTRIBUTE_LABELS[key].fr} totalisent {total} "
                        f"au lieu de {pool(points)} (L28).",
                        f"{T.ATTRIBUTE_LABELS[key].en} characteristics add up to {total} "
                        f"instead of {pool(points)} (L28).",
                    ),
                )
            )
    powers = _items(sheet, "powers")
    if not powers and not _items(sheet, "invented_powers"):
        errors.append(
            error(
                "powers",
                "power_required",
                "Au moins un pouvoir est obligatoire (L55).",
                "At least one power is mandatory (L55).",
            )
        )
    held = owner_powers(sheet)
    seen: set[str | None] = set()
    for i, item in powers:
        power = _key(item.get("power"))
        if power in seen:
            errors.append(error(f"powers.{i}.power", "power_duplicate", "Pouvoir déjà pris.", "Power already taken."))
        seen.add(power)
        spec = T.POWERS.get(power or "")
        if spec is None:
            continue
        for need in spec.requires:
            if need not in held:
                errors.append(
                    FieldError(
                        f"powers.{i}.power",
                        "power_prerequisite",
                        Msg(
                            f"{spec.label.fr} exige {T.POWERS[need].label.fr} ({spec.line}).",
                            f"{spec.label.en} requires {T.POWERS[need].label.en} ({spec.line}).",
                        ),
                    )
                )
        if item.get("via_marelle_brisee") and power != "marelle":
            errors.append(
                error(
                    f"powers.{i}.via_marelle_brisee",
                    "invalid_conversion",
                    "Seule la Marelle s'acquiert après la Marelle brisée (L73).",
                    "Only the Pattern follows the Broken Pattern (L73).",
                )
            )
        if (
            power == "marelle"
            and item.get("via_marelle_brisee")
            and "marelle_brisee" in seen | {p.get("power") for _, p in powers}
        ):
            errors.append(
                error(
                    f"powers.{i}.via_marelle_brisee",
                    "power_conversion_duplicate",
                    "La Marelle remplace la Marelle brisée : retirez celle-ci (L73).",
                    "The Pattern replaces the Broken Pattern: remove it (L73).",
                )
            )
    if _items(sheet, "invented_powers") and not settings.get("allow_invented_powers"):
        errors.append(
            error(
                "invented_powers",
                "invented_powers_disabled",
                "Les pouvoirs inventés ne sont pas autorisés dans cette campagne (L456).",
                "Invented powers are not allowed in this campaign (L456).",
            )
        )
    if settings.get("require_shadow_descriptions", True):
        for i, item in _items(sheet, "shadows"):
            cost = shadow_cost(item, prefix=f"shadows.{i}.", require_descriptions=True)
            errors.extend(e for e in cost.errors if e.code == "description_required")
    budget = creation_budget(sheet, settings)
    known = {(e.path, e.code) for e in errors}
    errors.extend(e for e in budget.errors if (e.path, e.code) not in known)
    return errors


def creation_ledger(sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[LedgerDraft]:
    """The karma ledger entries that record a validated creation (L18, L22): the starting points,
    the refunds of ranks given back, the auction bids and every purchase, one entry per budget line."""
    budget = creation_budget(sheet, settings)
    entries = []
    for line in budget.lines:
        path = line["path"]
        kind = (
            "creation_budget"
            if path == "creation_points"
            else "rank_refund"
            if path.startswith("attributes.") and line["amount"] > 0
            else "auction_bid"
            if path.startswith("attributes.")
            else "purchase"
        )
        if line["amount"]:
            entries.append(
                LedgerDraft(
                    "karma", line["amount"], kind, Msg(line["label"]["fr"], line["label"]["en"]), {"path": path}
                )
            )
    return entries
