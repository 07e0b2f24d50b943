"""What the app tells the rules about a closed session (*faits de séance*).

:meth:`rules.base.RuleSystem.suggest_session_awards` reads ``facts``. The
generic part comes from the database (``present``, ``session_id`` and the
character's real rolls of the session, ``resolutions``); the GM's inputs
each system reads are declared here as :class:`rules.base.Field` so the award
screen renders them generically. A system may declare its own with a
``session_fact_fields()`` method, which wins over this table.

Readings (the keys are the systems' documented fact names):

* Altaride (rules/altaride/progression.py docstring, L101, L128, L213): GM
  award 15–50 per session, override, Scruples consistency award, scenario end.
* SMS (L75): scenario completed, GM bonus, scenario name.
* Clefs de l'Aube (L626–L642) and Ambre (L389): no inputs; the campaign
  presets (``px_per_session``, ``px_per_critical``, ``session_award``) apply,
  and the GM adds free awards on the screen.
"""

from __future__ import annotations

from typing import Any

from rules.base import Field, Msg, RuleSystem, validate_fields

ALTARIDE_FACTS: tuple[Field, ...] = (
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

SMS_FACTS: tuple[Field, ...] = (
    Field("scenario_completed", "bool", Msg("Scénario terminé", "Scenario completed"), default=False),
    Field("gm_bonus", "bool", Msg("Bonus du MJ", "GM bonus"), default=False),
    Field("scenario", "str", Msg("Scénario", "Scenario"), default="", max_length=100),
)

FACT_FIELDS: dict[str, tuple[Field, ...]] = {
    "altaride": ALTARIDE_FACTS,
    "sms": SMS_FACTS,
    "clefs-de-l-aube": (),
    "ambre": (),
}


def fact_fields(system: RuleSystem) -> tuple[Field, ...]:
    """The GM inputs of the award screen for this system."""
    declared = getattr(system, "session_fact_fields", None)
    if callable(declared):
        return tuple(declared())
    return FACT_FIELDS.get(system.slug, ())


def default_facts(system: RuleSystem) -> dict[str, Any]:
    return {f.path: f.default for f in fact_fields(system)}


def parse_facts(system: RuleSystem, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Coerce posted strings to the declared types; returns (facts, errors by path)."""
    facts: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in fact_fields(system):
        value = raw.get(f.path)
        if f.kind == "bool":
            facts[f.path] = value in (True, "on", "true", "1", 1)
        elif f.kind == "int":
            if value in (None, ""):
                facts[f.path] = f.default if f.default is not None else 0
                continue
            try:
                facts[f.path] = int(str(value).strip())
            except (TypeError, ValueError):
                errors[f.path] = "invalid_int"
        else:
            facts[f.path] = "" if value is None else str(value)
    for err in validate_fields(facts, fact_fields(system)):
        errors.setdefault(err.path, err.code)
    return facts, errors


def session_facts(
    *, session_id: int, present: bool, resolutions: list[dict[str, Any]], gm_facts: dict[str, Any]
) -> dict[str, Any]:
    """The ``facts`` dict handed to ``suggest_session_awards``."""
    facts: dict[str, Any] = dict(gm_facts)
    facts.update(
        {
            "session_id": session_id,
            "session": session_id,
            "present": present,
            "played_in_scenario": present,
            "resolutions": resolutions,
        }
    )
    return facts
