"""Karma: balance from the ledger, purchases, session job (L22, L383–L392).

Karma points are the creation points (L22) and the experience currency
(L391 "quelques misérables points d'xp"): entries in "xp" count as karma.
The "post Expérience" (L389) is missing, so no award rate is invented: the
GM awards (``session_award`` setting only *suggests* a preset, 0 = none).

* Balance = sum of approved entries (recomputed, idempotent).
* A negative balance is a loan (L389 "une espèce de prêt qu'il remboursera
  avec les prochains points de karma"): later awards repay it by addition. A
  purchase that would go below 0 needs ``accept_loan`` and respects the
  ``debt_limit`` setting.
* A mortal wound with negative karma is "la mort assurée" (L429): the session
  job FLAGS it for the GM (``mortal_wound_negative_karma``), never kills.
* After creation an attribute point costs ``attribute_point_cost`` (default 1,
  as at the auction; spec §5.3 #7), a human or chaosian attribute may be
  raised (-25 -> -10 -> 0 ...), and the new characteristic points are
  allocated in the same request (L28).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from rules.ambre import ranks
from rules.ambre import tables as T
from rules.ambre.costs import (
    Cost,
    ally_cost,
    artefact_cost,
    construct_cost,
    pattern_conversion_cost,
    power_cost,
    shadow_cost,
)
from rules.ambre.creation import owner_powers
from rules.ambre.derive import attribute_points, pool, wound_points
from rules.ambre.schema import safe_validate, sheet_fields
from rules.base import Field, FieldError, LedgerDraft, Msg, ProgressionResult, PurchaseResult, error


def karma_balance(entries: Sequence[dict[str, Any]]) -> int:
    """Sum of karma (and xp, the same currency) ledger entries."""
    total = 0
    for entry in entries:
        if entry.get("currency", "karma") in ("karma", "xp"):
            amount = entry.get("amount", 0)
            if isinstance(amount, int) and not isinstance(amount, bool):
                total += amount
    return total


def karma_state(balance: int) -> dict[str, Any]:
    """Good (> 0), neutral (0) or bad (< 0) karma and the distance from 0 (L390)."""
    state = "good" if balance > 0 else "bad" if balance < 0 else "neutral"
    labels = {
        "good": Msg("Karma positif", "Good karma"),
        "neutral": Msg("Karma neutre", "Neutral karma"),
        "bad": Msg("Karma négatif (prêt)", "Bad karma (a loan)"),
    }
    return {"state": state, "distance": abs(balance), "loan": max(0, -balance), "label": labels[state].to_dict()}


def _accept(path: str = "accept_loan") -> Field:
    return Field(
        path,
        "bool",
        Msg("J'accepte un karma négatif (prêt, L389)", "I accept negative karma (a loan, L389)"),
        default=False,
    )


def purchase_fields() -> dict[str, tuple[Field, ...]]:
    attr_choices = tuple((k, T.ATTRIBUTE_LABELS[k]) for k in T.ATTRIBUTES)
    power_choices = tuple((k, p.label) for k, p in T.POWERS.items())
    sheet_items = {f.path: f.item_fields for f in sheet_fields() if f.kind == "list"}

    def item(kind: str) -> Field:
        """The thing bought, described with the fields of its list on the sheet (an
        artefact as the sheet's artefacts...): forms show them as labelled inputs, never JSON."""
        return Field(
            "item",
            "dict",
            Msg("Description (comme sur la fiche)", "Description (as on the sheet)"),
            required=True,
            default={},
            item_fields=sheet_items[f"{kind}s" if kind != "ally" else "allies"],
        )

    return {
        "attribute": (
            Field("attribute", "choice", Msg("Attribut", "Attribute"), required=True, choices=attr_choices),
            Field("points", "int", Msg("Points ajoutés", "Points added"), required=True, minimum=1, maximum=1000),
            *(
                Field(f"allocation.{c}", "int", T.CHARACTERISTIC_LABELS[c], default=0, minimum=0, maximum=1000)
                for c in T.CHARACTERISTICS
            ),
            _accept(),
        ),
        "power": (
            Field("power", "choice", Msg("Pouvoir", "Power"), required=True, choices=power_choices),
            _accept(),
        ),
        "power_level": (
            Field("power", "choice", Msg("Pouvoir", "Power"), required=True, choices=power_choices),
            Field("level", "int", Msg("Nouveau niveau", "New level"), required=True, minimum=1, maximum=100),
            _accept(),
        ),
        "artefact": (item("artefact"), _accept()),
        "shadow": (item("shadow"), _accept()),
        "construct": (item("construct"), _accept()),
        "ally": (item("ally"), _accept()),
    }


_FIELDS = purchase_fields()
_LIST_OF = {"artefact": "artefacts", "shadow": "shadows", "construct": "constructs", "ally": "allies"}
#: The text's names of the assets a purchase adds (L96 "Artefacts", L169 "Ombres", L236 "Constructs", L325 "Alliés").
_ASSET_LABELS = {
    "artefact": Msg("Artefact", "Artefact"),
    "shadow": Msg("Ombre", "Shadow"),
    "construct": Msg("Construct", "Construct"),
    "ally": Msg("Allié", "Ally"),
}


def purchase(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any] | None = None
) -> PurchaseResult:
    """Cost and effect of spending karma (L389), as ledger drafts + new sheet."""
    settings = settings or {}
    kind = request.get("kind") if isinstance(request, dict) else None
    if not isinstance(kind, str) or kind not in _FIELDS:
        return PurchaseResult(
            sheet, [], [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")]
        )
    errors = safe_validate(request, _FIELDS[kind])
    if errors:
        return PurchaseResult(sheet, [], errors)
    new = copy.deepcopy(sheet)
    cost = Cost()
    data: dict[str, Any] = {"kind": kind}
    note = Msg("Achat", "Purchase")
    held = owner_powers(sheet)
    if kind == "attribute":
        key, points = request["attribute"], request["points"]
        old = attribute_points(sheet, key)
        target = old + points
        if target < 0 and target != T.CHAOSIAN_POINTS:
            errors.append(
                error(
                    "points",
                    "invalid_attribute_rank",
                    "Un attribut négatif ne peut valoir que −10 (Chaosien) ou −25 (Humain) (L18).",
                    "A negative attribute can only be −10 (Chaosian) or −25 (Human) (L18).",
                )
            )
        allocation = request.get("allocation") or {}
        gained = pool(target) - pool(old)
        spent = 0
        for char, value in allocation.items():
            if not value:
                continue
            if T.PARENT.get(char) != key:
                errors.append(
                    error(
                        f"allocation.{char}",
                        "wrong_attribute",
                        "Cette caractéristique ne dépend pas de cet attribut.",
                        "This characteristic does not belong to this attribute.",
                    )
                )
            spent += value
        if spent != gained and not errors:
            errors.append(
                error(
                    "allocation",
                    "allocation_sum",
                    "Répartissez exactement {n} points (L28).",
                    "Allocate exactly {n} points (L28).",
                    n=gained,
                )
            )
        unit = settings.get("attribute_point_cost") or 1
        cost.add(T.ATTRIBUTE_LABELS[key], points * unit, "points")
        new.setdefault("attributes", {})[key] = target
        # L18: the rank stays where the last comparison put it; remember the points it was compared with
        # (sheets from before ``public_points`` existed), so the owner sees his rank turn secret.
        slot = (new.get("ladder") or {}).get(key)
        if isinstance(slot, dict) and slot.get("public_points") is None and slot.get("public_position"):
            slot["public_points"] = old
        chars = new.setdefault("characteristics", {})
        for char, value in allocation.items():
            if value and T.PARENT.get(char) == key:
                chars[char] = (chars.get(char) or 0) + value
        data.update({"attribute": key, "from": old, "to": target})
        note = Msg(f"{T.ATTRIBUTE_LABELS[key].fr} +{points}", f"{T.ATTRIBUTE_LABELS[key].en} +{points}")
    elif kind == "power":
        key = request["power"]
        spec = T.POWERS[key]
        if key in held:
            errors.append(error("power", "power_duplicate", "Pouvoir déjà possédé.", "Power already held."))
        for need in spec.requires:
            if need not in held:
                errors.append(
                    FieldError(
                        "power",
                        "power_prerequisite",
                        Msg(
                            f"{spec.label.fr} exige {T.POWERS[need].label.fr} ({spec.line}).",
                            f"{spec.label.en} requires {T.POWERS[need].label.en} ({spec.line}).",
                        ),
                    )
                )
        powers = new.setdefault("powers", [])
        if key == "marelle" and "marelle_brisee" in held:
            # L73: Broken Pattern points are kept; the Pattern replaces it.
            cost.add(
                Msg("Marelle après la Marelle brisée (L73)", "Pattern after the Broken Pattern (L73)"),
                pattern_conversion_cost(settings),
                "power",
            )
            new["powers"] = [p for p in powers if not (isinstance(p, dict) and p.get("power") == "marelle_brisee")]
            new["powers"].append(
                {"power": "marelle", "level": spec.level, "via_marelle_brisee": True, "selections": ""}
            )
            data["conversion"] = "marelle_brisee"
        else:
            cost.add(spec.label, spec.cost, "power")
            powers.append({"power": key, "level": spec.level, "via_marelle_brisee": False, "selections": ""})
        data["power"] = key
        note = spec.label
    elif kind == "power_level":
        key, level = request["power"], request["level"]
        item = next((p for p in new.get("powers") or [] if isinstance(p, dict) and p.get("power") == key), None)
        if item is None:
            errors.append(error("power", "power_not_held", "Pouvoir non possédé.", "Power not held."))
        else:
            current = item.get("level") or T.POWERS[key].level
            if level <= current:
                errors.append(
                    error(
                        "level",
                        "level_not_higher",
                        "Le niveau doit dépasser {n}.",
                        "The level must exceed {n}.",
                        n=current,
                    )
                )
            else:
                before = power_cost(key, current, settings, bool(item.get("via_marelle_brisee")))
                raised = power_cost(key, level, settings, bool(item.get("via_marelle_brisee")), prefix="")
                errors.extend(e for e in raised.errors)
                errors.extend(e for e in before.errors)
                if not errors:
                    cost.add(
                        Msg(f"{T.POWERS[key].label.fr} niveau {level}", f"{T.POWERS[key].label.en} level {level}"),
                        max(0, raised.amount - before.amount),
                        "level",
                    )
                    item["level"] = level
            data.update({"power": key, "level": level})
            note = Msg(f"{T.POWERS[key].label.fr} niveau {level}", f"{T.POWERS[key].label.en} level {level}")
    else:
        item = request["item"]
        if not isinstance(item, dict):
            errors.append(error("item", "invalid_dict", "Objet attendu.", "Expected an object."))
        else:
            calc = {
                "artefact": lambda: artefact_cost(item, held, settings, prefix="item."),
                "shadow": lambda: shadow_cost(item, prefix="item."),
                "construct": lambda: construct_cost(item, held, settings, prefix="item."),
                "ally": lambda: ally_cost(item, prefix="item."),
            }[kind]()
            errors.extend(calc.errors)
            label = _ASSET_LABELS[kind]
            cost.add(label, calc.paid, "item")
            new.setdefault(_LIST_OF[kind], []).append(copy.deepcopy(item))
            data["item"] = item.get("name", "")
            note = Msg(f"{label.fr} : {item.get('name', '')}", f"{label.en}: {item.get('name', '')}")
    balance = int((balances or {}).get("karma", 0)) + int((balances or {}).get("xp", 0) or 0)
    after = balance - cost.amount
    if after < 0 and cost.amount > 0:
        if not request.get("accept_loan"):
            errors.append(
                error(
                    "accept_loan",
                    "karma_loan_required",
                    "Le karma passerait à {n} : acceptez explicitement le prêt (L389).",
                    "Karma would go to {n}: explicitly accept the loan (L389).",
                    n=after,
                )
            )
        limit = settings.get("debt_limit")
        if isinstance(limit, int) and not isinstance(limit, bool) and -after > limit:
            errors.append(
                error(
                    "accept_loan",
                    "debt_limit",
                    "Dette de karma limitée à {n}.",
                    "Karma debt is limited to {n}.",
                    n=limit,
                )
            )
    if errors:
        return PurchaseResult(sheet, [], errors)
    data.update({"cost": cost.amount, "balance_after": after})
    entries = [LedgerDraft("karma", -cost.amount, "purchase", note, data)] if cost.amount else []
    return PurchaseResult(new, entries, [])


def suggest_session_awards(
    sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any] | None = None
) -> list[LedgerDraft]:
    """Only the GM's preset (``session_award``); the seed has no rate (L389)."""
    amount = (settings or {}).get("session_award") or 0
    if not isinstance(amount, int) or amount <= 0 or not (facts or {}).get("present", True):
        return []
    return [
        LedgerDraft(
            "karma",
            amount,
            "system_award",
            Msg("Karma de séance (préréglage du MJ)", "Session karma (GM preset)"),
            {"preset": True},
        )
    ]


def apply_progression(
    sheet: dict[str, Any], entries: Sequence[dict[str, Any]], settings: dict[str, Any] | None = None
) -> ProgressionResult:
    """Idempotent recomputation: balance, karma state and GM flags."""
    balance = karma_balance(entries)
    state = karma_state(balance)
    flags: list[dict[str, Any]] = []
    notes: list[Msg] = []
    if balance < 0:
        flags.append({"code": "negative_karma", "balance": balance, "loan": -balance})
        notes.append(
            Msg(
                f"Karma négatif ({balance}) : prêt remboursé par les prochains gains (L389).",
                f"Negative karma ({balance}): a loan repaid by the next awards (L389).",
            )
        )
    wounds = ((sheet.get("condition") or {}).get("wounds")) or {}
    if wound_points(wounds) >= T.WOUND_WEIGHTS["mortal"] and balance < 0:
        flags.append({"code": "mortal_wound_negative_karma", "balance": balance})
        notes.append(
            Msg(
                "Blessure mortelle et karma négatif : « la mort assurée » (L429). Décision du MJ.",
                'Mortal wound and negative karma: "la mort assurée" (L429). GM decision.',
            )
        )
    # Nothing here changes the sheet: it is handed back as it is (never mutated, so never copied).
    return ProgressionResult(
        balances={"karma": balance},
        sheet=sheet,
        flags=flags,
        notes=[*notes, Msg(state["label"]["fr"], state["label"]["en"])],
    )


def campaign_ladders(
    sheets: Mapping[int, dict[str, Any]], settings: dict[str, Any] | None
) -> dict[int, dict[str, Any]]:
    """Every attribute's ladder after the session's buy-ups (L18, spec §6.3).

    Each attribute's *true* ladder is recomputed from the current points; the
    *public* ladder is the order last made public, read from the sheets'
    ``ladder.<attr>.public_position``. The true ladder goes to the GMs'
    snapshot (``state["ranks"]``); what the owner may know (public positions
    only) to ``state["known_ranks"]`` (:func:`rules.ambre.ranks.known_rank`).
    Nothing of the true ladder is written on a sheet: its owner and its history
    would show another character's buy-up (older sheets stored it: dropped here).
    """
    tie = (settings or {}).get("auction_tie") or "earlier"
    # Only the ladder is rewritten below: the rest of each sheet is shared, never copied nor mutated.
    out: dict[int, dict[str, Any]] = {}
    for pk, sheet in sheets.items():
        own = dict(sheet)
        ladder = own.get("ladder")
        if isinstance(ladder, dict):
            # Two levels (the attributes' slots) are all the loop below changes: copied, not deep-copied.
            own["ladder"] = {attr: dict(slot) if isinstance(slot, dict) else slot for attr, slot in ladder.items()}
        out[pk] = {"sheet": own, "state": {"ranks": {}}}
    for attr in T.ATTRIBUTES:
        points = {str(pk): attribute_points(sheet, attr) for pk, sheet in sheets.items()}
        public_positions = {
            str(pk): ((sheet.get("ladder") or {}).get(attr) or {}).get("public_position")
            for pk, sheet in sheets.items()
        }
        public_order = sorted(
            (pid for pid, pos in public_positions.items() if isinstance(pos, int) and not isinstance(pos, bool)),
            key=lambda pid: (public_positions[pid], int(pid)),
        )
        # "since": the earlier public holder ranks first on equal points.
        order_index = {pid: n for n, pid in enumerate(public_order)}
        since = {pid: order_index.get(pid, len(public_order) + int(pid)) for pid in points}
        table = ranks.ladder(points, public_order, since, tie if tie in ("earlier", "equal") else "earlier")
        for pid, info in table["ranks"].items():
            pk = int(pid)
            sheet = out[pk]["sheet"]
            ladder = sheet.setdefault("ladder", {})
            if not isinstance(ladder, dict):
                ladder = sheet["ladder"] = {}
            slot = ladder.setdefault(attr, {})
            if not isinstance(slot, dict):
                slot = ladder[attr] = {}
            # The true position is the GMs' (L18): never on the sheet, whose owner and history would show
            # another character's buy-up (older sheets stored it: dropped here).
            slot.pop("true_position", None)
            slot.setdefault("public_position", None)
            out[pk]["state"].setdefault("known_ranks", {})[attr] = ranks.known_rank(
                info["points"], slot.get("public_position"), slot.get("public_points")
            )
            out[pk]["state"]["ranks"][attr] = {
                "points": info["points"],
                "label": info["label"],
                "true_position": info["true_position"],
                "public_position": info["public_position"],
                "secret": bool(info["secret"]),
            }
    return out


#: Names of the purchase kinds (*types d'achat*, the ``purchase_fields()`` keys).
PURCHASE_KIND_LABELS: dict[str, Msg] = {
    "attribute": Msg("Points d'attribut", "Attribute points"),
    "power": Msg("Nouveau pouvoir", "New power"),
    "power_level": Msg("Niveau de pouvoir", "Power level"),
    "artefact": Msg("Artefact", "Artefact"),
    "shadow": Msg("Ombre personnelle", "Personal shadow"),
    "construct": Msg("Construct", "Construct"),
    "ally": Msg("Allié", "Ally"),
}
