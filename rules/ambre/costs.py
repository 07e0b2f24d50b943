"""Karma cost calculators: powers, artefacts/creatures, shadows, constructs, allies.

Public functions take plain JSON-like specs (the same shape as the sheet's
list items) and return a :class:`Cost` (amount, explanatory lines, field
errors with dotted paths under ``prefix``). They never raise for a bad spec:
the errors say what is wrong, so a form can show them.

Readings chosen where the seed is silent (each is a campaign setting when it
changes a number):

* L109 "plusieurs rangs sont disponibles": a quality category holds ONE tier
  (higher tiers describe supersets, e.g. "+armes à feu").
* L119 "maîtrise du combat" has no cost: ``agression_tier3_cost`` (default 4).
* L100–L106 step order: transfers (step 4) come before the quantity
  multiplier (step 5), so they are multiplied (``transfers_multiplied``).
* L150: a transferred quality/power must exist on the item.
* L144/L146/L148 bracketed restrictions are enforced whenever the owner's
  powers are known; "conjurateurs dans le cas de créatures" (L148) lets a
  Conjuration holder store spells in a creature.
* L176 "1 seul point suffit pour obtenir une ombre": cost = type + barrier +
  control, one tier each (L178 asterisk, L199, L218).
* L234/L323 sharing: two owners pay half each; an odd point is paid by the
  owner flagged ``pays_odd_point`` (the GM designates him).
* L277: a shadow holding a Broken Pattern counts as a Primal Plane (type 4).
* L282 several origin shadows: ``construct_base_reading`` = "union" (default:
  a hypothetical shadow with every feature, i.e. the highest tier of each
  component), "most_expensive", or "literal" (most expensive, union on ties).
* L317 power-based construct psyche: GM-entered cost.
* L73 Broken Pattern -> Pattern: 50 - 10 - 2 = 38 (``broken_pattern_reading``
  "minus_2"; "plus_2" gives 42). The Broken Pattern power is replaced.
* L561 invented-power multipliers combine by ``invented_multiplier_rule``:
  "product" (default), "sum" or "max"; the GM may override the final cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rules.ambre import tables as T
from rules.base import FieldError, Msg, as_dict, error, is_digits


@dataclass
class Cost:
    """A computed karma cost with its explanation and errors."""

    amount: int = 0
    lines: list[dict[str, Any]] = field(default_factory=list)
    errors: list[FieldError] = field(default_factory=list)
    share: int | None = None  # what this owner pays when shared

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def paid(self) -> int:
        return self.amount if self.share is None else self.share

    def add(self, label: Msg, amount: int, path: str = "") -> None:
        self.lines.append({"label": label.to_dict(), "amount": amount, "path": path})
        self.amount += amount

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "amount": self.amount,
            "share": self.share,
            "paid": self.paid,
            "lines": self.lines,
            "errors": [e.to_dict(lang) for e in self.errors],
            "valid": self.valid,
        }


def _s(settings: dict[str, Any] | None, key: str, default: Any) -> Any:
    if not settings:
        return default
    value = settings.get(key, default)
    return default if value is None else value


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _p(prefix: str, path: str) -> str:
    return f"{prefix}{path}" if prefix else path


# --------------------------------------------------------------------------
# Powers
# --------------------------------------------------------------------------
def power_table(power: str, settings: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The GM-supplied level table of a power (L77–L94 are missing).

    ``settings["power_tables"][power]`` is a list of ``{"level": n, "cost": c,
    "rank": name?, "description": text?}`` where ``cost`` is the cumulative
    karma cost to hold that level. Empty when the GM entered nothing.
    """
    tables = _s(settings, "power_tables", {}) or {}
    rows = tables.get(power) or []
    return sorted(
        (r for r in rows if isinstance(r, dict) and isinstance(r.get("level"), int)), key=lambda r: r["level"]
    )


def pattern_conversion_cost(settings: dict[str, Any] | None = None) -> int:
    """Karma to walk the Pattern for a Broken Pattern holder (L73).

    "On soustrait alors le coût de la marelle brisée à celui de la Marelle -2
    points": default reading 50 - 10 - 2 = 38; setting "plus_2" reads
    50 - (10 - 2) = 42.
    """
    pattern, broken = T.POWERS["marelle"].cost, T.POWERS["marelle_brisee"].cost
    if _s(settings, "broken_pattern_reading", "minus_2") == "plus_2":
        return pattern - (broken - T.BROKEN_PATTERN_DISCOUNT)
    return pattern - broken - T.BROKEN_PATTERN_DISCOUNT


def power_cost(
    power: object,
    level: int | None = None,
    settings: dict[str, Any] | None = None,
    via_broken_pattern: bool = False,
    prefix: str = "",
) -> Cost:
    """Karma cost of holding ``power`` at ``level`` (L59–L75, L77–L94).

    The initial cost buys the starting level. A higher level needs the GM's
    table (cumulative ``cost`` per level); without it the request is refused
    rather than priced with invented numbers. ``via_broken_pattern`` (Pattern
    only) prices the Broken Pattern already paid plus the conversion (L73).
    """
    result = Cost()
    spec = T.POWERS.get(power) if isinstance(power, str) else None
    if power is None or power == "":
        return result  # not chosen yet: the schema's "required" error says so (no "unknown power: None")
    if spec is None:
        result.errors.append(
            error(_p(prefix, "power"), "invalid_choice", "Pouvoir inconnu : {v}.", "Unknown power: {v}.", v=power)
        )
        return result
    level = spec.level if level is None else level
    if not isinstance(level, int) or isinstance(level, bool) or level < 1:
        result.errors.append(error(_p(prefix, "level"), "invalid_int", "Niveau invalide.", "Invalid level."))
        return result
    if via_broken_pattern and power == "marelle":
        result.add(T.POWERS["marelle_brisee"].label, T.POWERS["marelle_brisee"].cost, _p(prefix, "power"))
        result.add(
            Msg("Passage de la Marelle (L73)", "Walking the Pattern (L73)"),
            pattern_conversion_cost(settings),
            _p(prefix, "via_marelle_brisee"),
        )
    else:
        result.add(spec.label, spec.cost, _p(prefix, "power"))
    if level < spec.level:
        result.errors.append(
            FieldError(
                _p(prefix, "level"),
                "power_level_below_start",
                Msg(
                    f"{spec.label.fr} commence au niveau {spec.level}.",
                    f"{spec.label.en} starts at level {spec.level}.",
                ),
            )
        )
        return result
    if level > spec.level:
        rows = {r["level"]: r for r in power_table(str(power), settings)}
        start_row, row = rows.get(spec.level), rows.get(level)
        if row is None:
            result.errors.append(
                FieldError(
                    _p(prefix, "level"),
                    "power_table_missing",
                    Msg(
                        f"Le coût du niveau {level} de {spec.label.fr} doit être fourni par le MJ "
                        "(table absente, L94).",
                        f"The cost of {spec.label.en} level {level} must be supplied by the GM (table missing, L94).",
                    ),
                )
            )
            return result
        start_cost = int(start_row["cost"]) if start_row and isinstance(start_row.get("cost"), int) else spec.cost
        extra = int(row.get("cost", 0)) - start_cost
        result.add(
            Msg(f"Niveaux {spec.level + 1}–{level}", f"Levels {spec.level + 1}–{level}"),
            max(0, extra),
            _p(prefix, "level"),
        )
    return result


def available_selections(power: str, level: int, settings: dict[str, Any] | None = None) -> list[str]:
    """Words, spell lists or conjuration types a power holder may pick (L67, L69, L71, L85–L88).

    The GM's table rows may list ``items`` (names) per level. Reaching a level
    makes every item of that level's row available, and "il n'est pas
    nécessaire d'obtenir tout les mots qui précède celui qu'on veut si
    celui-ci coûte autant" (L85): items of any row whose cumulative cost is
    at most the reached level's cost may be picked in any order (S10: at
    level 5, "mots d'attaque niveau 1" instead of "mots de défense niveau 1").
    """
    rows = power_table(power, settings)
    reached = [r for r in rows if r["level"] <= level]
    if not reached:
        return []
    top_cost = max(int(r.get("cost", 0)) if isinstance(r.get("cost"), int) else 0 for r in reached)
    items: list[str] = []
    for row in rows:
        cost = row.get("cost") if isinstance(row.get("cost"), int) else None
        if row["level"] <= level or (cost is not None and cost <= top_cost):
            for item in row.get("items") or []:
                if isinstance(item, str) and item not in items:
                    items.append(item)
    return items


def power_rank(level: int, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Rank of a power level (L77): 1–4 novice, 5–8 adept, then rank 3, 4...

    The GM may name later ranks with ``power_rank_names`` ({"3": "Maître"}).
    """
    rank = max(1, (max(1, level) - 1) // T.LEVELS_PER_POWER_RANK + 1)
    names = _s(settings, "power_rank_names", {}) or {}
    label = T.POWER_RANK_NAMES.get(rank)
    if str(rank) in names and isinstance(names[str(rank)], str):
        label = Msg(names[str(rank)], names[str(rank)])
    if label is None:
        label = Msg(f"Rang {rank}", f"Rank {rank}")
    return {"rank": rank, "label": label.to_dict()}


# --------------------------------------------------------------------------
# Artefacts and creatures
# --------------------------------------------------------------------------
def _tier_index(category: T.Category, value: Any) -> int | None:
    """A tier given as slug, 1-based number, or label; None if invalid; -1 = none."""
    if value in (None, "", 0, False):
        return -1
    if isinstance(value, bool):
        return -1 if not value else None
    if isinstance(value, int):
        return value - 1 if 1 <= value <= len(category.tiers) else None
    if isinstance(value, str):
        slugs = [slug for slug, _ in category.tiers]
        if value in slugs:
            return slugs.index(value)
        if is_digits(value):
            return _tier_index(category, int(value))
    return None


def _tiers_of(category: T.Category, value: Any) -> list[int] | None:
    """Normalise a power/quality value into sorted tier indexes (None = invalid)."""
    if isinstance(value, dict):
        items = [k for k, v in value.items() if v]
    elif isinstance(value, list | tuple | set):
        items = list(value)
    else:
        items = [value]
    tiers: list[int] = []
    for item in items:
        idx = _tier_index(category, item)
        if idx is None:
            return None
        if idx >= 0 and idx not in tiers:
            tiers.append(idx)
    return sorted(tiers)


def _multiplier(table: dict[str, tuple[int, Msg]], value: Any, default: str = "unique") -> int | None:
    if value in (None, ""):
        value = default
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value in {m for m, _ in table.values()} else None
    if isinstance(value, str) and value in table:
        return table[value][0]
    return None


def artefact_cost(
    spec: dict[str, Any],
    owner_powers: Iterable[str] | None = None,
    settings: dict[str, Any] | None = None,
    prefix: str = "",
    apply_minimum: bool = True,
) -> Cost:
    """Cost of an artefact or creature (L96–L167), the five steps of Wujcik.

    ``spec``: ``{"kind": "artefact"|"creature", "qualities": {cat: tier},
    "powers": {cat: tier | [tiers] | {slug: bool}}, "transfers": [{"kind":
    "quality"|"power", "target": cat or "cat.slug"}], "quantity": key}``.
    Tiers may be slugs ("doublee") or 1-based numbers. ``owner_powers`` (the
    owner's power keys) enables the bracketed restrictions (L144–L148); pass
    ``None`` to skip them.

    cost = (qualities + powers + 5 x quality transfers + 10 x power transfers)
    x quantity multiplier (transfers outside the multiplier when the
    ``transfers_multiplied`` setting is false).
    """
    result = Cost()
    if not isinstance(spec, dict):
        result.errors.append(error(prefix.rstrip("."), "invalid_item", "Élément invalide.", "Invalid item."))
        return result
    tier3_agression = int(_s(settings, "agression_tier3_cost", 4))
    owned = set(owner_powers) if owner_powers is not None else None
    kind = spec.get("kind") or "artefact"
    base = 0
    present_qualities: set[str] = set()
    present_powers: set[str] = set()

    qualities = spec.get("qualities") or {}
    if not isinstance(qualities, dict):
        result.errors.append(error(_p(prefix, "qualities"), "invalid_dict", "Objet attendu.", "Expected an object."))
        qualities = {}
    for key, value in qualities.items():
        path = _p(prefix, f"qualities.{key}")
        category = T.QUALITIES.get(key)
        if category is None:
            result.errors.append(
                error(path, "unknown_quality", "Qualité inconnue : {v}.", "Unknown quality: {v}.", v=key)
            )
            continue
        tiers = _tiers_of(category, value)
        if tiers is None:
            result.errors.append(error(path, "invalid_choice", "Rang invalide.", "Invalid tier."))
            continue
        if len(tiers) > 1:
            result.errors.append(error(path, "exclusive_tiers", "Un seul rang par qualité.", "One tier per quality."))
            continue
        for idx in tiers:
            amount = tier3_agression if (key == "agression" and idx == 2) else category.cost(idx)
            result.add(
                Msg(
                    f"{category.label.fr} : {category.tiers[idx][1].fr}",
                    f"{category.label.en}: {category.tiers[idx][1].en}",
                ),
                amount,
                path,
            )
            base += amount
            present_qualities.add(key)

    powers = spec.get("powers") or {}
    if not isinstance(powers, dict):
        result.errors.append(error(_p(prefix, "powers"), "invalid_dict", "Objet attendu.", "Expected an object."))
        powers = {}
    for key, value in powers.items():
        path = _p(prefix, f"powers.{key}")
        category = T.ITEM_POWERS.get(key)
        if category is None:
            result.errors.append(
                error(path, "unknown_power", "Pouvoir d'artefact inconnu : {v}.", "Unknown item power: {v}.", v=key)
            )
            continue
        tiers = _tiers_of(category, value)
        if tiers is None:
            result.errors.append(error(path, "invalid_choice", "Rang invalide.", "Invalid tier."))
            continue
        if category.exclusive and len(tiers) > 1:
            result.errors.append(
                error(
                    path,
                    "exclusive_tiers",
                    "Catégorie à astérisque : un seul pouvoir (L133).",
                    "Asterisk category: one power only (L133).",
                )
            )
            continue
        if tiers and owned is not None and category.requires:
            allowed = set(category.requires)
            if key == "sorts" and kind == "creature":
                allowed.add("conjuration")
            if not owned & allowed:
                names = " / ".join(T.POWERS[p].label.fr for p in sorted(allowed))
                names_en = " / ".join(T.POWERS[p].label.en for p in sorted(allowed))
                result.errors.append(
                    FieldError(
                        path,
                        "creator_power_required",
                        Msg(
                            f"{category.label.fr} : réservé aux détenteurs de {names} ({category.line}).",
                            f"{category.label.en}: reserved to holders of {names_en} ({category.line}).",
                        ),
                    )
                )
                continue
        for idx in tiers:
            amount = category.cost(idx)
            result.add(
                Msg(
                    f"{category.label.fr} : {category.tiers[idx][1].fr}",
                    f"{category.label.en}: {category.tiers[idx][1].en}",
                ),
                amount,
                path,
            )
            base += amount
            present_powers.add(key)
            present_powers.add(f"{key}.{category.tiers[idx][0]}")

    transfers_total = 0
    transfers = list(_list(spec.get("transfers")))
    for name in _list(spec.get("quality_transfers")):
        transfers.append({"kind": "quality", "target": name})
    for name in _list(spec.get("power_transfers")):
        transfers.append({"kind": "power", "target": name})
    for index, transfer in enumerate(transfers):
        path = _p(prefix, f"transfers.{index}")
        if not isinstance(transfer, dict):
            result.errors.append(error(path, "invalid_item", "Élément invalide.", "Invalid item."))
            continue
        tkind, target = transfer.get("kind"), transfer.get("target")
        target = target if isinstance(target, str) else None
        if tkind == "quality":
            if target not in present_qualities:
                result.errors.append(
                    error(
                        path + ".target",
                        "transfer_target_missing",
                        "La qualité transférée doit exister sur l'objet (L150).",
                        "The transferred quality must exist on the item (L150).",
                    )
                )
                continue
            result.add(
                Msg(f"Transfert de qualité ({target})", f"Quality transfer ({target})"), T.QUALITY_TRANSFER_COST, path
            )
            transfers_total += T.QUALITY_TRANSFER_COST
        elif tkind == "power":
            if target not in present_powers:
                result.errors.append(
                    error(
                        path + ".target",
                        "transfer_target_missing",
                        "Le pouvoir transféré doit exister sur l'objet (L150).",
                        "The transferred power must exist on the item (L150).",
                    )
                )
                continue
            result.add(
                Msg(f"Transfert de pouvoir ({target})", f"Power transfer ({target})"), T.POWER_TRANSFER_COST, path
            )
            transfers_total += T.POWER_TRANSFER_COST
        else:
            result.errors.append(
                error(path + ".kind", "invalid_choice", "Type de transfert invalide.", "Invalid transfer kind.")
            )

    multiplier = _multiplier(T.QUANTITY_MULTIPLIERS, spec.get("quantity"))
    if multiplier is None:
        result.errors.append(
            error(_p(prefix, "quantity"), "invalid_choice", "Multiplicateur invalide.", "Invalid multiplier.")
        )
        multiplier = 1
    if _s(settings, "transfers_multiplied", True):
        total = (base + transfers_total) * multiplier
    else:
        total = base * multiplier + transfers_total
    minimum = int(_s(settings, "artefact_minimum_cost", 0)) if apply_minimum else 0
    total = max(total, minimum)
    if multiplier != 1:
        result.lines.append(
            {
                "label": Msg(
                    f"Multiplicateur de quantité ×{multiplier}", f"Quantity multiplier ×{multiplier}"
                ).to_dict(),
                "amount": total - result.amount,
                "path": _p(prefix, "quantity"),
            }
        )
    result.amount = total
    return result


# --------------------------------------------------------------------------
# Shadows
# --------------------------------------------------------------------------
def _one(
    table: dict[str, tuple[int, Msg]], value: Any, path: str, what: Msg, result: Cost, required: bool
) -> tuple[str, int] | None:
    if isinstance(value, list | tuple):
        values = [v for v in value if v]
        if len(values) > 1:
            result.errors.append(
                FieldError(
                    path,
                    "exclusive_tiers",
                    Msg(f"{what.fr} : un seul choix possible.", f"{what.en}: only one choice allowed."),
                )
            )
            return None
        value = values[0] if values else ""
    if not isinstance(value, str | None):
        result.errors.append(error(path, "invalid_choice", "Choix invalide.", "Invalid choice."))
        return None
    if value in (None, ""):
        if required:
            result.errors.append(
                FieldError(
                    path, "required", Msg(f"{what.fr} : choix obligatoire.", f"{what.en}: a choice is required.")
                )
            )
        return None
    if value not in table:
        result.errors.append(error(path, "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=value))
        return None
    return value, table[value][0]


def shadow_components(spec: dict[str, Any], result: Cost, prefix: str = "") -> dict[str, int]:
    """Tier costs of a shadow's type, barrier and control (0 when absent)."""
    out = {"type": 0, "barrier": 0, "control": 0}
    stype = spec.get("type")
    if spec.get("broken_pattern") and stype not in (None, "") and not isinstance(stype, list | tuple):
        stype = "primal"  # L277: a Broken Pattern makes it a Primal Plane
    picked = _one(
        T.SHADOW_TYPES,
        stype if stype is not None else "",
        _p(prefix, "type"),
        Msg("Type d'Ombre", "Shadow type"),
        result,
        required=True,
    )
    if picked:
        out["type"] = picked[1]
    picked = _one(
        T.SHADOW_BARRIERS,
        spec.get("barrier", ""),
        _p(prefix, "barrier"),
        Msg("Barrière", "Barrier"),
        result,
        required=False,
    )
    if picked:
        out["barrier"] = picked[1]
    picked = _one(
        T.SHADOW_CONTROLS,
        spec.get("control", ""),
        _p(prefix, "control"),
        Msg("Contrôle", "Control"),
        result,
        required=False,
    )
    if picked:
        out["control"] = picked[1]
    return out


def shadow_cost(spec: dict[str, Any], prefix: str = "", require_descriptions: bool = False) -> Cost:
    """Cost of a personal shadow (L169–L234): type + barrier + control.

    ``spec``: ``{"type": "personnelle"|"royaume"|"primal", "barrier": ""|...,
    "control": ""|..., "broken_pattern": bool, "shared": bool,
    "pays_odd_point": bool}``. A list for type/barrier/control with more than
    one value is refused (exclusive). ``share`` is what this owner pays when
    shared (L234: "la moitié du coût"; odd point by ``pays_odd_point``).
    ``require_descriptions`` enforces L173 ("il est absolument requis de
    détailler les descriptions de chaque aspect").
    """
    result = Cost()
    if not isinstance(spec, dict):
        result.errors.append(error(prefix.rstrip("."), "invalid_item", "Élément invalide.", "Invalid item."))
        return result
    parts = shadow_components(spec, result, prefix)
    labels = {"type": Msg("Type", "Type"), "barrier": Msg("Barrière", "Barrier"), "control": Msg("Contrôle", "Control")}
    for key, amount in parts.items():
        if amount:
            result.add(labels[key], amount, _p(prefix, key))
    if require_descriptions:
        for key, desc in (
            ("type", "type_description"),
            ("barrier", "barrier_description"),
            ("control", "control_description"),
        ):
            if spec.get(key) and not str(spec.get(desc) or "").strip():
                result.errors.append(
                    error(
                        _p(prefix, desc),
                        "description_required",
                        "Décrivez cet aspect de l'Ombre (L173).",
                        "Describe this aspect of the shadow (L173).",
                    )
                )
    if spec.get("blocked_forces"):
        bad = [f for f in _list(spec["blocked_forces"]) if not isinstance(f, str) or f not in T.BLOCKABLE_FORCES]
        if bad:
            result.errors.append(
                error(
                    _p(prefix, "blocked_forces"),
                    "invalid_choice",
                    "Force inconnue : {v}.",
                    "Unknown force: {v}.",
                    v=", ".join(map(str, bad)),
                )
            )
    if spec.get("shared"):
        result.share = split_share(result.amount, bool(spec.get("pays_odd_point")))
    return result


def split_share(amount: int, pays_odd_point: bool) -> int:
    """Half of a shared cost (L234, L323); the designated owner pays the odd point."""
    half, odd = divmod(amount, 2)
    return half + (odd if pays_odd_point else 0)


# --------------------------------------------------------------------------
# Constructs
# --------------------------------------------------------------------------
def construct_cost(
    spec: dict[str, Any],
    owner_powers: Iterable[str] | None = None,
    settings: dict[str, Any] | None = None,
    prefix: str = "",
) -> Cost:
    """Cost of a construct (L236–L323).

    cost = origin-shadow base x shadow multiplier + sum(manifestation item cost
    x connection multiplier) + psyche (+ the construct's own qualities/powers,
    costed like an artefact, L294).
    """
    result = Cost()
    if not isinstance(spec, dict):
        result.errors.append(error(prefix.rstrip("."), "invalid_item", "Élément invalide.", "Invalid item."))
        return result
    owned = set(owner_powers) if owner_powers is not None else None
    base_power = spec.get("base_power") or "autre"
    if not isinstance(base_power, str) or base_power not in T.CONSTRUCT_BASES:
        result.errors.append(
            error(
                _p(prefix, "base_power"),
                "invalid_choice",
                "Choix invalide : {v}.",
                "Invalid choice: {v}.",
                v=base_power,
            )
        )
    else:
        needed = T.CONSTRUCT_BASES[base_power][0]
        if needed and owned is not None and spec.get("self_made", True) and needed not in owned:
            result.errors.append(
                FieldError(
                    _p(prefix, "base_power"),
                    "creator_power_required",
                    Msg(
                        f"Le créateur doit posséder {T.POWERS[needed].label.fr} (L241).",
                        f"The creator must hold {T.POWERS[needed].label.en} (L241).",
                    ),
                )
            )

    shadows = _list(spec.get("origin_shadows"))
    if not shadows:
        result.errors.append(
            error(
                _p(prefix, "origin_shadows"), "required", "Au moins une Ombre d'origine.", "At least one origin shadow."
            )
        )
    components: list[dict[str, int]] = []
    for index, shadow in enumerate(shadows):
        sub = Cost()
        if not isinstance(shadow, dict):
            result.errors.append(
                error(_p(prefix, f"origin_shadows.{index}"), "invalid_item", "Élément invalide.", "Invalid item.")
            )
            continue
        components.append(shadow_components(shadow, sub, _p(prefix, f"origin_shadows.{index}.")))
        result.errors.extend(sub.errors)
    base = 0
    if components:
        totals = [sum(c.values()) for c in components]
        union = sum(max(c[k] for c in components) for k in ("type", "barrier", "control"))
        reading = _s(settings, "construct_base_reading", "union")
        if reading == "most_expensive":
            base = max(totals)
        elif reading == "literal":
            top = max(totals)
            tied = [c for c, t in zip(components, totals, strict=True) if t == top]
            base = sum(max(c[k] for c in tied) for k in ("type", "barrier", "control")) if len(tied) > 1 else top
        else:
            base = union
    multiplier = _multiplier(T.CONSTRUCT_SHADOW_MULTIPLIERS, spec.get("shadow_quantity"))
    if multiplier is None:
        result.errors.append(
            error(_p(prefix, "shadow_quantity"), "invalid_choice", "Multiplicateur invalide.", "Invalid multiplier.")
        )
        multiplier = 1
    result.add(
        Msg(f"Ombre d'origine ({base} × {multiplier})", f"Origin shadow ({base} × {multiplier})"),
        base * multiplier,
        _p(prefix, "origin_shadows"),
    )

    for index, manifestation in enumerate(_list(spec.get("manifestations"))):
        path = _p(prefix, f"manifestations.{index}.")
        item = artefact_cost(manifestation, owned, settings, prefix=path, apply_minimum=False)
        result.errors.extend(item.errors)
        connection = _multiplier(
            T.CONNECTION_MULTIPLIERS,
            manifestation.get("connection") if isinstance(manifestation, dict) else None,
            default="intrinseque",
        )
        if connection is None:
            result.errors.append(
                error(path + "connection", "invalid_choice", "Connexion invalide.", "Invalid connection.")
            )
            connection = 1
        result.add(
            Msg(f"Manifestation ({item.amount} × {connection})", f"Manifestation ({item.amount} × {connection})"),
            item.amount * connection,
            path.rstrip("."),
        )

    own = {k: spec.get(k) for k in ("qualities", "powers", "transfers") if spec.get(k)}
    if own:
        item = artefact_cost(
            {**own, "kind": "artefact", "quantity": "unique"}, owned, settings, prefix=prefix, apply_minimum=False
        )
        result.errors.extend(item.errors)
        if item.amount:
            result.add(
                Msg("Qualités et pouvoirs du Construct (L294)", "Construct's own qualities and powers (L294)"),
                item.amount,
                _p(prefix, "qualities"),
            )

    psyche = spec.get("psyche") or "aucune"
    if not isinstance(psyche, str) or psyche not in T.CONSTRUCT_PSYCHE:
        result.errors.append(
            error(_p(prefix, "psyche"), "invalid_choice", "Choix invalide : {v}.", "Invalid choice: {v}.", v=psyche)
        )
    else:
        amount = T.CONSTRUCT_PSYCHE[psyche][0]
        if amount is None:
            amount = spec.get("psyche_cost")
            if not isinstance(amount, int) or isinstance(amount, bool):
                amount = _s(settings, "construct_power_psyche_cost", None)
            if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                result.errors.append(
                    error(
                        _p(prefix, "psyche_cost"),
                        "gm_value_required",
                        "Le coût d'une psyché basée sur le pouvoir est fixé par le MJ (L317).",
                        "The cost of a power-based psyche is set by the GM (L317).",
                    )
                )
                amount = 0
        if amount:
            result.add(T.CONSTRUCT_PSYCHE[psyche][1], amount, _p(prefix, "psyche"))
    if spec.get("shared"):
        result.share = split_share(result.amount, bool(spec.get("pays_odd_point")))
    return result


# --------------------------------------------------------------------------
# Allies
# --------------------------------------------------------------------------
def ally_cost(spec: dict[str, Any] | str, prefix: str = "") -> Cost:
    """Cost of an ally or friend (L329–L340): 1, 1, 2, 3, 4 or 6 points."""
    result = Cost()
    kind = spec if isinstance(spec, str) else (spec or {}).get("type") if isinstance(spec, dict) else None
    if kind is None or kind == "":
        return result  # not chosen yet: the schema's "required" error says so
    if not isinstance(kind, str) or kind not in T.ALLIES:
        result.errors.append(
            error(
                _p(prefix, "type"), "invalid_choice", "Type d'allié invalide : {v}.", "Invalid ally type: {v}.", v=kind
            )
        )
        return result
    amount, label = T.ALLIES[kind]
    result.add(label, amount, _p(prefix, "type"))
    return result


# --------------------------------------------------------------------------
# Invented powers (optional module, L458–L671)
# --------------------------------------------------------------------------
def invented_power_cost(spec: dict[str, Any], settings: dict[str, Any] | None = None, prefix: str = "") -> Cost:
    """Cost of a GM-invented power: (domain + power-vs-power) x multipliers.

    ``spec``: ``{"domain": "infini", "versus": {"marelle": "faible", ...},
    "multipliers": {"communication": "objectif", ...}, "gm_cost": int?}``.
    Every one of the five existing powers must be rated (L506). Multipliers
    combine by the ``invented_multiplier_rule`` setting (L561 is silent).
    """
    result = Cost()
    domain = spec.get("domain")
    if not isinstance(domain, str) or domain not in T.INVENTED_DOMAINS:
        result.errors.append(error(_p(prefix, "domain"), "invalid_choice", "Domaine invalide.", "Invalid domain."))
    else:
        result.add(Msg(f"Domaine : {domain}", f"Domain: {domain}"), T.INVENTED_DOMAINS[domain], _p(prefix, "domain"))
    versus = as_dict(spec.get("versus"))
    chosen = as_dict(spec.get("multipliers"))
    for index, opponent in enumerate(T.INVENTED_OPPONENTS):
        strength = versus.get(opponent)
        path = _p(prefix, f"versus.{opponent}")
        if not isinstance(strength, str) or strength not in T.INVENTED_STRENGTHS:
            result.errors.append(
                error(
                    path,
                    "required",
                    "Évaluez le pouvoir contre chacun des cinq (L506).",
                    "Rate the power against each of the five (L506).",
                )
            )
            continue
        result.add(
            Msg(f"Contre {opponent} : {strength}", f"Versus {opponent}: {strength}"),
            T.INVENTED_STRENGTHS[strength][index],
            path,
        )
    factors: list[int] = []
    for category, options in T.INVENTED_MULTIPLIERS.items():
        value = chosen.get(category, "") or ""
        value = value if isinstance(value, str) else "?"
        if value not in options:
            result.errors.append(
                error(_p(prefix, f"multipliers.{category}"), "invalid_choice", "Choix invalide.", "Invalid choice.")
            )
            continue
        if value:
            factors.append(options[value])
    rule = _s(settings, "invented_multiplier_rule", "product")
    if not factors:
        factor = 1
    elif rule == "sum":
        factor = sum(factors)
    elif rule == "max":
        factor = max(factors)
    else:
        factor = 1
        for f in factors:
            factor *= f
    base = result.amount
    result.amount = base * factor
    result.lines.append(
        {
            "label": Msg(f"Multiplicateur ×{factor}", f"Multiplier ×{factor}").to_dict(),
            "amount": result.amount - base,
            "path": _p(prefix, "multipliers"),
        }
    )
    gm_cost = spec.get("gm_cost")
    if isinstance(gm_cost, int) and not isinstance(gm_cost, bool) and gm_cost >= 0:
        result.lines.append(
            {
                "label": Msg("Coût fixé par le MJ", "Cost set by the GM").to_dict(),
                "amount": gm_cost - result.amount,
                "path": _p(prefix, "gm_cost"),
            }
        )
        result.amount = gm_cost
    return result
