"""Experience: prices, per-session limits, session awards (spec §5).

Purchase contract (:func:`purchase`)
------------------------------------
``request = {"kind": <purchase kind>, ...kind fields...,
"already_bought": [ledger ``data`` dicts of the purchases already approved for
this character in the *current session* (and, if the campaign tracks in-game
days, the current day)], "gm_confirmed": bool}``.

Every ledger draft returned by a purchase carries ``data = {"purchase": kind,
"key": ..., "from": ..., "to": ...}``; the app passes these dicts back in
``already_bought`` for later purchases of the same session. Limits (L59, L79,
L115, L161, L219, L220): +1 per talent, per skill, per Endurance pool, and
one magic level per character (all schools and elements together, A31) per
session and per day. A new session starts with an empty list, which is how
the limit resets across a session boundary. ``balances["xp"]`` must cover the
cost (the balance never goes negative through a purchase).

Session awards (:func:`suggest_session_awards`)
-----------------------------------------------
``facts = {"resolutions": [Resolution/CombatResult dicts of the character's
rolls in the session; an item may carry "role": "defender" when the character
was the defender of an opposed roll], "present": bool, "gm_award": int,
"gm_award_override": bool, "consistency_award": int,
"scruples_changed_in_scenario": bool, "scenario_ended": bool,
"scenario_award": int}``. GM award in [15, 50] (L213) unless overridden;
+1 XP per natural 1 (L101, L213) counted from the stored rolls; the Scruples
consistency part is forfeited when Scruples moved during the scenario (L128).
Only player characters earn experience (A35).
"""

from __future__ import annotations

import copy
from typing import Any

from rules.altaride import tables as T
from rules.altaride.derive import domain
from rules.altaride.schema import catalogue, parse_formula, skill_formula, skill_name
from rules.base import (
    Field,
    FieldError,
    LedgerDraft,
    Msg,
    ProgressionResult,
    PurchaseResult,
    RulesError,
    as_dict,
    as_int,
    error,
    validate_fields,
)

_COMMON = (
    Field(
        "already_bought",
        "list",
        Msg("Achats déjà faits cette séance", "Purchases already made this session"),
        default=[],
        max_items=500,
    ),
    Field("gm_confirmed", "bool", Msg("Confirmé par le MJ", "Confirmed by the GM"), default=False),
)


#: The GM's inputs on the session award screen, read by ``suggest_session_awards``
#: (L101, L128, L213): award 15–50 per session, override, Scruples consistency, scenario end.
SESSION_FACT_FIELDS: tuple[Field, ...] = (
    Field(
        "gm_award",
        "int",
        Msg("Expérience de fin de séance (15 à 50)", "End-of-session experience (15 to 50)"),
        default=15,
        minimum=0,
        maximum=1000,
    ),
    Field("gm_award_override", "bool", Msg("Hors barème (MJ)", "Outside the range (GM)"), default=False),
    Field(
        "consistency_award",
        "int",
        Msg("Cohérence des Scrupules", "Scruples consistency"),
        default=0,
        minimum=0,
        maximum=1000,
    ),
    Field(
        "scruples_changed_in_scenario",
        "bool",
        Msg("Scrupules modifiés pendant le scénario", "Scruples changed during the scenario"),
        default=False,
    ),
    Field("scenario_ended", "bool", Msg("Fin de scénario", "End of scenario"), default=False),
    Field(
        "scenario_award",
        "int",
        Msg("Expérience de fin de scénario", "End-of-scenario experience"),
        default=0,
        minimum=0,
        maximum=1000,
    ),
)


def purchase_fields() -> dict[str, tuple[Field, ...]]:
    talent_choices = tuple((t, T.TALENT_LABELS[t]) for t in T.TALENTS)
    return {
        "talent": (Field("talent", "choice", Msg("Talent", "Talent"), choices=talent_choices, required=True), *_COMMON),
        "skill": (
            Field("skill", "str", Msg("Compétence", "Skill"), required=True, max_length=60),
            Field(
                "formula",
                "str",
                Msg("Formule (si hors catalogue)", "Formula (if not in the catalogue)"),
                default="",
                max_length=40,
            ),
            *_COMMON,
        ),
        "endurance": (
            Field(
                "pool",
                "choice",
                Msg("Endurance", "Endurance"),
                required=True,
                choices=tuple((p, T.POOL_LABELS[p]) for p in T.POOLS),
            ),
            *_COMMON,
        ),
        "school": (
            Field("school", "choice", Msg("École", "School"), choices=tuple(T.SCHOOLS.items()), required=True),
            Field(
                "major_element",
                "choice",
                Msg("Élément majeur", "Major element"),
                default="",
                choices=(("", Msg("—", "—")), *T.ELEMENTS.items()),
            ),
            Field(
                "minor_element",
                "choice",
                Msg("Élément mineur", "Minor element"),
                default="",
                choices=(("", Msg("—", "—")), *T.ELEMENTS.items()),
            ),
            Field("guild", "str", Msg("Guilde", "Guild"), default="", max_length=100),
            Field("derogation", "bool", Msg("Dérogation spéciale (MJ)", "Special derogation (GM)"), default=False),
            *_COMMON,
        ),
        "magic_level": (
            Field("school", "choice", Msg("École", "School"), choices=tuple(T.SCHOOLS.items()), required=True),
            Field(
                "element",
                "choice",
                Msg("Élément (élémentalistes)", "Element (elementalists)"),
                default="",
                choices=(("", Msg("—", "—")), ("major", Msg("Majeur", "Major")), ("minor", Msg("Mineur", "Minor"))),
            ),
            *_COMMON,
        ),
        "capacity": (
            Field("name", "str", Msg("Capacité", "Capacity"), required=True, max_length=100),
            Field("level", "int", Msg("Niveau", "Level"), required=True, minimum=1),
            Field(
                "teacher", "bool", Msg("Professeur ou ouvrage disponible", "Teacher or book available"), default=False
            ),
            *_COMMON,
        ),
        "aptitude": (
            Field("aptitude", "str", Msg("Aptitude (catalogue)", "Aptitude (catalogue)"), required=True, max_length=60),
            *_COMMON,
        ),
        "guild_spell": (
            Field("name", "str", Msg("Sortilège", "Spell"), required=True, max_length=100),
            Field("level", "int", Msg("Niveau", "Level"), required=True, minimum=1),
            Field("guild", "str", Msg("Guilde", "Guild"), default="", max_length=100),
            *_COMMON,
        ),
    }


def _already(request: dict[str, Any], kind: str, key: str | None = None) -> bool:
    for item in request.get("already_bought") or []:
        if not isinstance(item, dict):
            continue
        raw = item.get("data")
        data = raw if isinstance(raw, dict) else item
        if data.get("purchase") == kind and (key is None or data.get("key") == key):
            return True
    return False


def _limit_error(path: str, fr: str, en: str) -> FieldError:
    return error(path, "session_limit", fr + " (une fois par séance et par jour).", en + " (once per session and day).")


def purchase(
    sheet: dict[str, Any], request: dict[str, Any], balances: dict[str, int], settings: dict[str, Any]
) -> PurchaseResult:
    kinds = purchase_fields()
    kind = str((request or {}).get("kind", ""))
    if kind not in kinds:
        return PurchaseResult(
            sheet, [], [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")]
        )
    errors = validate_fields(request, kinds[kind])
    if errors:
        return PurchaseResult(sheet, [], errors)
    new = copy.deepcopy(sheet)
    try:
        cost, data, note = _HANDLERS[kind](new, request, settings)
    except RulesError as exc:
        return PurchaseResult(sheet, [], exc.errors)
    balance = int((balances or {}).get("xp", 0))
    if cost > balance:
        return PurchaseResult(
            sheet,
            [],
            [
                error(
                    "kind",
                    "insufficient_xp",
                    "Expérience insuffisante : {c} XP nécessaires, {b} disponibles.",
                    "Not enough experience: {c} XP needed, {b} available.",
                    c=cost,
                    b=balance,
                )
            ],
        )
    entries = [LedgerDraft("xp", -cost, "purchase", note, {"purchase": kind, "cost": cost, **data})]
    return PurchaseResult(new, entries, [])


def _fail(path: str, code: str, fr: str, en: str, **fmt: Any) -> RulesError:
    return RulesError([error(path, code, fr, en, **fmt)])


def _buy_talent(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    code = req["talent"]
    if _already(req, "talent", code):
        raise RulesError([_limit_error("talent", "Ce Talent a déjà augmenté d'un point", "This talent already rose")])
    talents = sheet.setdefault("talents", {})
    current = as_int(talents.get(code), T.TALENT_BASE)
    new = current + 1
    if sheet.get("is_anthropoid", True) and new > T.TALENT_ANTHROPOID_MAX:
        raise _fail(
            "talent",
            "talent_anthropoid_max",
            "Un antropoïde ne dépasse pas 20 sans magie (L55).",
            "An anthropoid cannot exceed 20 without magic (L55).",
        )
    domain_name = T.TALENT_DOMAIN[code]
    domain_before = domain(sheet, domain_name)
    talents[code] = new
    raised = domain(sheet, domain_name) - domain_before
    if raised > 0:  # the Endurance max follows its Domain (L113, L115); the current value rises with it (A42)
        cur = sheet.setdefault("endurance_current", {})
        for pool, pool_domain in T.POOL_DOMAIN.items():
            if pool_domain == domain_name and isinstance(cur.get(pool), int) and not isinstance(cur.get(pool), bool):
                cur[pool] = cur[pool] + raised
    label = T.TALENT_LABELS[code]
    return (
        T.talent_step_cost(new),
        {"key": code, "from": current, "to": new},
        Msg(f"{label.fr} {current} → {new}", f"{label.en} {current} → {new}"),
    )


def _buy_skill(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    key = req["skill"]
    if _already(req, "skill", key):
        raise RulesError(
            [_limit_error("skill", "Cette Compétence a déjà augmenté d'un point", "This skill already rose")]
        )
    skills = sheet.setdefault("skills", [])
    item = next((s for s in skills if isinstance(s, dict) and s.get("key") == key), None)
    if item is None:
        item = {"key": key, "level": 0, "formula": req.get("formula") or ""}
        if skill_formula(item, settings) is None:
            raise _fail(
                "skill",
                "unknown_skill",
                "Compétence absente du catalogue et sans Formule valide (L89).",
                "Skill not in the catalogue and without a valid formula (L89).",
            )
        skills.append(item)
    codes = skill_formula(item, settings)
    if codes is None:
        codes = parse_formula(req.get("formula") or "")
    if codes is None:
        raise _fail("skill", "unknown_skill", "Formule inconnue.", "Unknown formula.")
    current = as_int(item.get("level"), 0)
    new = current + 1
    # A pending formula ([]) names no Talent: no L61 cap (schema docstring).
    cap = min((as_int((sheet.get("talents") or {}).get(c), T.TALENT_BASE) for c in codes), default=None)
    if settings.get("skill_level_capped_by_talents", True) and cap is not None and new > cap:
        raise _fail(
            "skill",
            "skill_above_talent",
            "Le Niveau ne peut excéder le Talent de la Formule ({n}) (L61).",
            "The level cannot exceed the formula's talent ({n}) (L61).",
            n=cap,
        )
    item["level"] = new
    name = skill_name(key, settings)  # the catalogue's name, never the bare key (#23)
    return (
        T.skill_step_cost(new),
        {"key": key, "from": current, "to": new},
        Msg(f"Compétence {name} {current} → {new}", f"Skill {name} {current} → {new}"),
    )


def _buy_endurance(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    pool = req["pool"]
    if _already(req, "endurance", pool):
        raise RulesError(
            [_limit_error("pool", "Cette Endurance a déjà augmenté d'un point", "This Endurance already rose")]
        )
    bought = sheet.setdefault("endurance_bought", {})
    current = as_int(bought.get(pool), 0)
    bought[pool] = current + 1
    cur = sheet.setdefault("endurance_current", {})
    if isinstance(cur.get(pool), int):  # the current value rises with the max (A42)
        cur[pool] = cur[pool] + 1
    return (
        T.ENDURANCE_POINT_COST,
        {"key": pool, "from": current, "to": current + 1},
        Msg(f"{T.POOL_LABELS[pool].fr} +1", f"{T.POOL_LABELS[pool].en} +1"),
    )


def _buy_school(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    school = req["school"]
    schools = sheet.setdefault("schools", [])
    if any(isinstance(s, dict) and s.get("school") == school for s in schools):
        raise _fail("school", "already_member", "Déjà membre de cette École.", "Already a member of this school.")
    if schools and not req.get("derogation"):
        raise _fail(
            "derogation",
            "derogation_required",
            "Une autre École exige une dérogation spéciale (L140).",
            "Another school requires a special derogation (L140).",
        )
    item: dict[str, Any] = {
        "school": school,
        "magic_level": 1,
        "major_element": "",
        "minor_element": "",
        "major_level": 1,
        "minor_level": 1,
        "guild": req.get("guild") or "",
        "max_accessible_level": T.DEFAULT_GRIMOIRE_LEVEL,
        "honorary": False,
        "derogation": bool(req.get("derogation")),
    }
    if school == T.ELEMENTALISTS:
        major, minor = req.get("major_element") or "", req.get("minor_element") or ""
        if not major or not minor or major == minor:
            raise _fail(
                "major_element",
                "elements_required",
                "Choisissez deux éléments différents, majeur et mineur (L148).",
                "Choose two different elements, major and minor (L148).",
            )
        item.update(major_element=major, minor_element=minor)
    if school == T.SORCIERS and not str(req.get("guild") or "").strip():
        raise _fail("guild", "guild_required", "Indiquez la guilde (L142).", "Name the guild (L142).")
    schools.append(item)
    label = T.SCHOOLS[school]
    return (
        T.school_access_cost(school),
        {"key": school},
        Msg(f"Entrée dans l'École : {label.fr}", f"Joined the school: {label.en}"),
    )


def _buy_magic_level(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    school = req["school"]
    if _already(req, "magic_level"):
        raise RulesError([_limit_error("school", "Un seul niveau de magie", "Only one magic level")])
    item = next((s for s in sheet.get("schools") or [] if isinstance(s, dict) and s.get("school") == school), None)
    if item is None:
        raise _fail("school", "not_a_member", "Pas membre de cette École.", "Not a member of this school.")
    if school == T.SORCIERS:
        raise _fail(
            "school",
            "no_levels",
            "Les Sorciers n'ont pas de niveaux de magie (L157).",
            "Sorcerers have no magic levels (L157).",
        )
    elemental = school == T.ELEMENTALISTS
    if elemental:
        which = req.get("element") or ""
        if which not in ("major", "minor"):
            raise _fail(
                "element",
                "element_required",
                "Choisissez l'élément majeur ou mineur.",
                "Choose the major or minor element.",
            )
        field = f"{which}_level"
    else:
        field = "magic_level"
    current = as_int(item.get(field), 1)
    new = current + 1
    if new > T.MAGIC_LEVEL_MAX:
        raise _fail(
            "school", "magic_level_max", "10 niveaux de magie au plus (L157).", "At most 10 magic levels (L157)."
        )
    if elemental and field == "minor_level" and new > as_int(item.get("major_level"), 1):
        raise _fail(
            "element",
            "minor_above_major",
            "Le niveau majeur doit rester ≥ au mineur (L159).",
            "The major level must stay ≥ the minor level (L159).",
        )
    if new > as_int(item.get("max_accessible_level"), T.DEFAULT_GRIMOIRE_LEVEL) and not req.get("gm_confirmed"):
        raise _fail(
            "gm_confirmed",
            "teacher_required",
            "Un professeur ou un grimoire de niveau {n} est nécessaire (L161).",
            "A teacher or a grimoire of level {n} is needed (L161).",
            n=new,
        )
    item[field] = new
    return (
        T.magic_level_step_cost(new, elemental),
        {"key": f"{school}.{field}", "from": current, "to": new},
        Msg(f"{T.SCHOOLS[school].fr} niveau {new}", f"{T.SCHOOLS[school].en} level {new}"),
    )


def _buy_capacity(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    """Capacity of level N: 5 x N (L221), debited when learned (A34); a teacher or book is mandatory."""
    if not req.get("teacher"):
        raise _fail(
            "teacher",
            "teacher_required",
            "Un professeur ou un ouvrage est obligatoire (L221).",
            "A teacher or a book is mandatory (L221).",
        )
    name = str(req["name"]).strip()
    caps = sheet.setdefault("capacities", [])
    if any(isinstance(c, dict) and c.get("name") == name for c in caps):
        raise _fail("name", "already_known", "Capacité déjà acquise.", "Capacity already known.")
    level = int(req["level"])
    caps.append({"name": name, "level": level})
    return (
        T.capacity_cost(level),
        {"key": name, "to": level},
        Msg(f"Capacité {name} (niveau {level})", f"Capacity {name} (level {level})"),
    )


def _buy_aptitude(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    key = req["aptitude"]
    row = catalogue(settings, "aptitude_catalogue").get(key)
    if row is None:
        raise _fail(
            "aptitude",
            "unknown_aptitude",
            "Aptitude absente du catalogue de la campagne.",
            "Aptitude not in the campaign catalogue.",
        )
    apts = sheet.setdefault("aptitudes", [])
    item = next((a for a in apts if isinstance(a, dict) and a.get("key") == key), None)
    if item is None:
        item = {"key": key, "level": 0}
        apts.append(item)
    current = as_int(item.get("level"), 0)
    new = current + 1
    item["level"] = new
    return (
        T.aptitude_step_cost(new, as_int(row.get("level1_cost"), 0)),
        {"key": key, "from": current, "to": new},
        Msg(f"Aptitude {row.get('name') or key} niveau {new}", f"Aptitude {row.get('name') or key} level {new}"),
    )


def _buy_guild_spell(sheet: dict[str, Any], req: dict[str, Any], settings: dict[str, Any]) -> tuple[int, dict, Msg]:
    """Guild spells cost money, no XP (L167; A32). Requires the Sorciers school (L165)."""
    if not any(isinstance(s, dict) and s.get("school") == T.SORCIERS for s in sheet.get("schools") or []):
        raise _fail(
            "name",
            "sorciers_required",
            "Il faut appartenir à l'école des Sorciers (L165).",
            "Membership of the Sorcerers' school is required (L165).",
        )
    name = str(req["name"]).strip()
    sheet.setdefault("guild_spells", []).append(
        {"name": name, "level": int(req["level"]), "guild": req.get("guild") or ""}
    )
    return 0, {"key": name, "to": int(req["level"])}, Msg(f"Sort de guilde {name}", f"Guild spell {name}")


_HANDLERS = {
    "talent": _buy_talent,
    "skill": _buy_skill,
    "endurance": _buy_endurance,
    "school": _buy_school,
    "magic_level": _buy_magic_level,
    "capacity": _buy_capacity,
    "aptitude": _buy_aptitude,
    "guild_spell": _buy_guild_spell,
}


# ---------------------------------------------------------------------------
# Session awards and progression
# ---------------------------------------------------------------------------
def count_natural_ones(resolutions: list[dict[str, Any]]) -> int:
    """Natural 1s of the character among stored rolls (L213): ``outcome.natural_ones`` or the tag."""
    total = 0
    for res in resolutions or []:
        if not isinstance(res, dict):
            continue
        if res.get("system") not in (None, "altaride"):
            continue
        defender = res.get("role") == "defender"
        outcome = as_dict(res.get("outcome"))
        field = "defender_natural_ones" if defender else "natural_ones"
        tag = "defender_natural_1" if defender else "natural_1"
        value = outcome.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            total += value
        elif tag in (res.get("tags") or []):
            total += 1
    return total


def suggest_session_awards(sheet: dict[str, Any], facts: dict[str, Any], settings: dict[str, Any]) -> list[LedgerDraft]:
    if sheet.get("is_player_character", True) is False:
        return []
    facts = facts or {}
    drafts: list[LedgerDraft] = []
    award = facts.get("gm_award")
    present = facts.get("present", True)
    if award is not None and present:
        if isinstance(award, bool) or not isinstance(award, int):
            raise RulesError([error("gm_award", "invalid_int", "Entrez un nombre entier.", "Enter a whole number.")])
        if not T.SESSION_AWARD_MIN <= award <= T.SESSION_AWARD_MAX and not facts.get("gm_award_override"):
            raise RulesError(
                [
                    error(
                        "gm_award",
                        "award_out_of_range",
                        "Entre 15 et 50 points d'Expérience par séance (L213).",
                        "Between 15 and 50 experience points per session (L213).",
                    )
                ]
            )
        drafts.append(
            LedgerDraft(
                "xp",
                award,
                "gm_award",
                Msg("Expérience de fin de séance", "End-of-session XP"),
                {"award": "session", "override": bool(facts.get("gm_award_override"))},
            )
        )
    consistency = facts.get("consistency_award")
    if isinstance(consistency, int) and consistency > 0 and present:
        if facts.get("scruples_changed_in_scenario"):
            pass  # forfeited (L128)
        else:
            drafts.append(
                LedgerDraft(
                    "xp",
                    consistency,
                    "gm_award",
                    Msg("Cohérence des Scrupules", "Scruples consistency"),
                    {"award": "scruples_consistency"},
                )
            )
    if facts.get("scenario_ended") and isinstance(facts.get("scenario_award"), int) and facts["scenario_award"] > 0:
        drafts.append(
            LedgerDraft(
                "xp",
                facts["scenario_award"],
                "gm_award",
                Msg("Expérience de fin de scénario", "End-of-scenario XP"),
                {"award": "scenario"},
            )
        )
    ones = count_natural_ones(facts.get("resolutions") or [])
    if ones:
        drafts.append(
            LedgerDraft(
                "xp",
                ones * T.NATURAL_ONE_XP,
                "system_award",
                Msg(f"{ones} × 1 naturel sur 1D20", f"{ones} × natural 1 on 1D20"),
                {"award": "natural_ones", "count": ones},
            )
        )
    return drafts


def apply_progression(
    sheet: dict[str, Any], entries: list[dict[str, Any]], settings: dict[str, Any]
) -> ProgressionResult:
    """XP balance = Σ entries (idempotent); a negative balance is flagged for the GM (spec §5.4)."""
    xp = 0
    spent = 0
    for entry in entries:
        if entry.get("currency", "xp") != "xp":
            continue
        amount = int(entry["amount"])
        xp += amount
        if amount < 0:
            spent -= amount
    flags = []
    if xp < 0:
        flags.append({"code": "negative_xp_balance", "balance": xp})
    return ProgressionResult(
        balances={"xp": xp}, sheet=sheet, flags=flags, notes=[Msg(f"{spent} XP dépensés", f"{spent} XP spent")]
    )


#: Names of the purchase kinds (*types d'achat*, the ``purchase_fields()`` keys).
PURCHASE_KIND_LABELS: dict[str, Msg] = {
    "talent": Msg("Talent", "Talent"),
    "skill": Msg("Compétence", "Skill"),
    "endurance": Msg("Endurance", "Endurance"),
    "school": Msg("École de magie", "Magic school"),
    "magic_level": Msg("Niveau de magie", "Magic level"),
    "capacity": Msg("Capacité", "Capacity"),
    "aptitude": Msg("Aptitude", "Aptitude"),
    "guild_spell": Msg("Sortilège de guilde", "Guild spell"),
}
