"""What the app tells the rules about a closed session (*faits de séance*).

:meth:`rules.base.RuleSystem.suggest_session_awards` reads ``facts``. The
generic part comes from the database (``present``, ``session_id`` and the
character's real rolls of the session, ``resolutions``); the GM's inputs
each system reads are declared by the system itself (``session_fact_fields()``
in ``rules.altaride`` and ``rules.sms``) as :class:`rules.base.Field`, so the
award screen renders them generically.

* Clefs de l'Aube (L626–L642) and Ambre (L389): no inputs; the campaign
  presets (``px_per_session``, ``px_per_critical``, ``session_award``) apply,
  and the GM adds free awards on the screen.
"""

from __future__ import annotations

from typing import Any

from rules.base import Field, RuleSystem, validate_fields


def fact_fields(system: RuleSystem) -> tuple[Field, ...]:
    """The GM inputs of the award screen for this system (declared by the rules; none by default)."""
    return tuple(system.session_fact_fields())


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
