"""The common interface every rule system implements.

``rules`` is a pure Python domain package: no Django, no database, no I/O.
Other apps call it with plain JSON-like data (dicts, lists, str, int, bool)
and store what it returns. Everything returned here is JSON-serialisable via
``to_dict()`` so the web apps can put it in a ``JSONField`` unchanged.

Conventions
-----------
* A *sheet* is the stored part of a character: a dict whose shape is declared
  by :meth:`RuleSystem.sheet_fields` (the Foundry "defineSchema" idea). Derived
  values are never stored: :meth:`RuleSystem.derive` recomputes them.
* Every user-facing message is a :class:`Msg` holding French and English, so
  the web layer chooses the language (French is the default).
* Randomness is always injected (:class:`RandomSource`). Every draw is
  recorded in the order it was made, so a result can be recomputed from its
  inputs and raw draws (:class:`ScriptedRandom` replays them).
* *settings* are the campaign's options for this system (a dict validated
  by :meth:`RuleSystem.validate_settings`); ``None`` means defaults.
* Results (:class:`Resolution`, :class:`CombatResult`) share their envelope
  (``kind``, ``inputs``, ``draws``, ``outcome``, ``summary``, ``success``,
  ``tags``) and one vocabulary: ``level`` (:data:`LEVELS`), ``margin``
  (signed) and, for combat, ``severity`` (:data:`SEVERITIES`); a combat
  declaration names its type :data:`ACTION_KEY` (``"action"``). The keys
  inside ``outcome`` stay each system's words in its seed's terms.
  ``rules/README.md`` maps each system's seed words onto the shared ones
  (with seed lines) and tells how to add a system; the contract every system
  honours is ``rules/tests/test_contract.py``.
"""

from __future__ import annotations

from rules.base.bestiary import BestiaryEntry, bestiary_entries, bestiary_setting
from rules.base.clean import (
    as_dict,
    as_int,
    as_list,
    clean,
    default_from_fields,
    fields_checker,
    fields_reader,
    get_path,
    is_digits,
    is_int,
    set_path,
    to_int,
    validate_fields,
)
from rules.base.fields import (
    Audience,
    DerivedSpec,
    Field,
    FieldKind,
    SheetContext,
    SheetLayout,
    Step,
    field_refs,
    gm_only_paths,
    reference_text,
)
from rules.base.messages import (
    JSON,
    FieldError,
    Lang,
    LazyMsg,
    Msg,
    RulesError,
    error,
    line_refs,
    strip_line_refs,
)
from rules.base.randomness import (
    RandomSource,
    RecordingRandom,
    ScriptedRandom,
    SecureRandom,
    SeededRandom,
)
from rules.base.results import (
    ACTION_KEY,
    COMBAT_CONDITIONS,
    FAILURE_LEVELS,
    LEVELS,
    SEVERITIES,
    SUCCESS_LEVELS,
    Budget,
    BuiltTest,
    Combatant,
    CombatResult,
    LedgerDraft,
    ProgressionResult,
    PurchaseResult,
    Resolution,
    SheetRead,
    SheetTest,
    StateChange,
    acts_sentence,
    fallen_sentence,
    join_sentences,
    level_of,
    pick_fields,
    sentence,
    with_action_key,
)
from rules.base.system import (
    RuleSystem,
)

__all__ = [
    "ACTION_KEY",
    "COMBAT_CONDITIONS",
    "FAILURE_LEVELS",
    "JSON",
    "LEVELS",
    "SEVERITIES",
    "SUCCESS_LEVELS",
    "Audience",
    "BestiaryEntry",
    "Budget",
    "BuiltTest",
    "CombatResult",
    "Combatant",
    "DerivedSpec",
    "Field",
    "FieldError",
    "FieldKind",
    "Lang",
    "LazyMsg",
    "LedgerDraft",
    "Msg",
    "ProgressionResult",
    "PurchaseResult",
    "RandomSource",
    "RecordingRandom",
    "Resolution",
    "RuleSystem",
    "RulesError",
    "ScriptedRandom",
    "SecureRandom",
    "SeededRandom",
    "SheetContext",
    "SheetLayout",
    "SheetRead",
    "SheetTest",
    "StateChange",
    "Step",
    "acts_sentence",
    "as_dict",
    "as_int",
    "as_list",
    "bestiary_entries",
    "bestiary_setting",
    "clean",
    "default_from_fields",
    "error",
    "fallen_sentence",
    "field_refs",
    "fields_checker",
    "fields_reader",
    "get_path",
    "gm_only_paths",
    "is_digits",
    "is_int",
    "join_sentences",
    "level_of",
    "line_refs",
    "pick_fields",
    "reference_text",
    "sentence",
    "set_path",
    "strip_line_refs",
    "to_int",
    "validate_fields",
    "with_action_key",
]
