"""The result vocabulary shared by every system, and tests built from the sheet.

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from rules.base.fields import Field
from rules.base.messages import JSON, FieldError, Msg

# --------------------------------------------------------------------------
# Results: one vocabulary across systems
# --------------------------------------------------------------------------
#: The outcome level every :class:`Resolution` and :class:`CombatResult` carries, seen from the side
#: that acts (side ``a``, the actor): a closed set, the same in every system. ``"tie"``: neither side
#: prevails; ``"none"``: the notion does not apply (a spell builder, a heal, a GM adjustment).
#: A level is consistent with ``success``: ``True`` → a success level, ``False`` → a failure level,
#: ``None`` → ``"tie"`` or ``"none"``. Each system maps its seed's words in ``rules/README.md``.
LEVELS: tuple[str, ...] = ("critical_success", "success", "failure", "critical_failure", "tie", "none")
SUCCESS_LEVELS = frozenset({"critical_success", "success"})
FAILURE_LEVELS = frozenset({"failure", "critical_failure"})

#: How bad the harm a combat step inflicted is (:attr:`CombatResult.severity`), on one scale for every
#: system; the seed's own word stays in ``outcome``. ``"none"``: no harm.
SEVERITIES: tuple[str, ...] = ("none", "light", "serious", "grave", "mortal")

#: The key naming a combat declaration's type in every system: ``action_fields()`` declares it.
ACTION_KEY = "action"


def level_of(success: bool | None, critical: bool = False) -> str:
    """The :data:`LEVELS` word of a plain result: ``None`` → ``"none"``."""
    if success is None:
        return "none"
    if success:
        return "critical_success" if critical else "success"
    return "critical_failure" if critical else "failure"


def with_action_key(declaration: Any, legacy: str) -> Any:
    """``declaration`` with its type under :data:`ACTION_KEY`.

    A declaration stored before the key was shared names its type ``legacy``
    (Ambre's ``mode``, Clefs' and SMS's ``kind``): it is renamed, order kept,
    so declarations already in a database still resolve. Anything else is
    returned as it is (a non-dict is refused by the validation that follows)."""
    if isinstance(declaration, dict) and legacy in declaration and ACTION_KEY not in declaration:
        return {ACTION_KEY if k == legacy else k: v for k, v in declaration.items()}
    return declaration


@dataclass(slots=True)
class Resolution:
    """The result of one test or roll: everything needed to audit it.

    ``kind`` names the test (e.g. ``"skill_test"``); ``inputs`` are the
    validated request; ``draws`` the raw dice in draw order (empty for a
    diceless comparison); ``outcome`` the computed values, in the seed's
    words; ``success`` is ``None`` when the notion does not apply; ``tags``
    are facts other apps read (e.g. ``"natural_1"`` for Altaride's
    experience). ``level`` (one of :data:`LEVELS`) and ``margin`` (signed:
    by how much side ``a`` beat the threshold or the other side, negative
    when it fell short; ``None`` when the system has no such number) are the
    same words in every system.
    """

    system: str
    kind: str
    inputs: dict[str, Any]
    draws: list[int]
    outcome: dict[str, Any]
    summary: Msg
    success: bool | None = None
    tags: list[str] = field(default_factory=list)
    level: str = "none"
    margin: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["summary"] = self.summary.to_dict()
        return data


@dataclass
class Budget:
    """A creation budget: what is spent, what remains, what is invalid."""

    currency: str  # "karma", "xp", "points"...
    total: int
    spent: int
    lines: list[dict[str, Any]] = field(default_factory=list)  # {"label": Msg dict, "amount": int, "path": str}
    errors: list[FieldError] = field(default_factory=list)
    pools: dict[str, dict[str, int]] = field(default_factory=dict)  # sub-budgets: {"talents": {"total":..,"spent":..}}

    @property
    def remaining(self) -> int:
        return self.total - self.spent

    @property
    def valid(self) -> bool:
        return not self.errors

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "total": self.total,
            "spent": self.spent,
            "remaining": self.remaining,
            "lines": self.lines,
            "errors": [e.to_dict(lang) for e in self.errors],
            "pools": self.pools,
            "valid": self.valid,
        }


@dataclass
class Combatant:
    """A participant as the rules see it (built by the combat app)."""

    id: str
    name: str
    side: str
    sheet: dict[str, Any]
    state: dict[str, Any]
    is_npc: bool = False


@dataclass(slots=True)
class StateChange:
    participant_id: str
    path: str
    before: JSON
    after: JSON

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class CombatResult:
    """One resolved combat step (an exchange, an attack...).

    ``state_changes`` say which participant state paths change; the combat
    app applies them in the same transaction that appends the log entry.
    ``secret`` holds details only GMs may see (e.g. NPC values). ``level``
    and ``margin`` are the actor's, as on :class:`Resolution`; ``severity``
    (one of :data:`SEVERITIES`) is how bad the harm the step inflicted is.
    """

    system: str
    kind: str
    inputs: dict[str, Any]
    draws: list[int]
    outcome: dict[str, Any]
    summary: Msg
    state_changes: list[StateChange] = field(default_factory=list)
    secret: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    level: str = "none"
    margin: int | None = None
    severity: str = "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "kind": self.kind,
            "inputs": self.inputs,
            "draws": self.draws,
            "outcome": self.outcome,
            "summary": self.summary.to_dict(),
            "state_changes": [c.to_dict() for c in self.state_changes],
            "secret": self.secret,
            "tags": self.tags,
            "level": self.level,
            "margin": self.margin,
            "severity": self.severity,
        }


#: What :meth:`RuleSystem.combat_condition` answers.
COMBAT_CONDITIONS = ("active", "unconscious", "dead")


def acts_sentence(actor: str, target: str | None = None) -> Msg:
    """A neutral public sentence: "X agit contre Y." / "X acts against Y."."""
    if target:
        return Msg(f"{actor} agit contre {target}.", f"{actor} acts against {target}.")
    return Msg(f"{actor} agit.", f"{actor} acts.")


def fallen_sentence(name: str, condition: str) -> Msg | None:
    """The public sentence for a participant a step put out of the fight (or ``None``)."""
    if condition == "dead":
        return Msg(f"{name} meurt.", f"{name} dies.")
    if condition == "unconscious":
        return Msg(f"{name} perd connaissance.", f"{name} falls unconscious.")
    return None


def join_sentences(*parts: Msg | None) -> Msg:
    """Sentences one after the other (``None`` parts are left out)."""
    kept = [p for p in parts if p is not None and (p.fr or p.en)]
    return Msg(" ".join(p.fr for p in kept), " ".join(p.en for p in kept))


def sentence(fr: str, en: str) -> Msg:
    """A sentence with its final full stop (added when missing)."""
    return Msg(fr if fr.endswith((".", "!", "?")) else fr + ".", en if en.endswith((".", "!", "?")) else en + ".")


@dataclass
class LedgerDraft:
    """A ledger entry the rules propose; the app stores it append-only.

    ``currency`` is ``"xp"`` or ``"karma"``; ``kind`` one of
    ``creation_budget, rank_refund, auction_bid, purchase, gm_award,
    gm_penalty, system_award, correction``.
    """

    currency: str
    amount: int
    kind: str
    note: Msg
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "amount": self.amount,
            "kind": self.kind,
            "note": self.note.to_dict(),
            "data": self.data,
        }


@dataclass
class PurchaseResult:
    """What a purchase (experience or karma spending) does to a sheet."""

    sheet: dict[str, Any]
    entries: list[LedgerDraft]
    errors: list[FieldError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class ProgressionResult:
    """The outcome of applying a closed session to one character."""

    balances: dict[str, int]  # {"xp": .., "karma": ..}
    sheet: dict[str, Any]
    flags: list[dict[str, Any]] = field(default_factory=list)  # e.g. {"code": "mortal_wound_negative_karma", ...}
    notes: list[Msg] = field(default_factory=list)


# --------------------------------------------------------------------------
# Tests built from the sheet
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class SheetRead:
    """One value a test reads from the character: where it comes from, its label, its value.

    ``path`` is a stored sheet path (``"skills.3.level"``) or, for a value the
    rules derive, ``"derived.<key>"``. Stored with the roll, so the roll keeps
    showing what it read after the sheet changes.
    """

    path: str
    label: Msg
    value: JSON

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "label": self.label.to_dict(), "value": self.value}


@dataclass(frozen=True)
class SheetTest:
    """One test a character can make, as :meth:`RuleSystem.sheet_tests` lists it.

    ``key`` is stable for a given sheet (a choice in a form or an API call);
    ``label`` and ``group`` are in the system's words; ``kind`` is the
    :meth:`RuleSystem.test_kinds` request it builds; ``reads`` are the sheet
    values it will use; ``declared`` are the inputs a caller may add (each with
    its :data:`Audience`: a player may set only ``"player"`` ones);
    ``impossible`` says why the test cannot be made now (e.g. not enough
    Occult Endurance), ``None`` when it can.
    """

    key: str
    label: Msg
    group: Msg
    kind: str
    reads: tuple[SheetRead, ...] = ()
    declared: tuple[Field, ...] = ()
    impossible: Msg | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label.to_dict(),
            "group": self.group.to_dict(),
            "kind": self.kind,
            "reads": [r.to_dict() for r in self.reads],
            "declared": [f.to_dict() for f in self.declared],
            "impossible": self.impossible.to_dict() if self.impossible else None,
        }


@dataclass
class BuiltTest:
    """A validated resolution request built from a sheet, with what it read."""

    key: str
    label: Msg
    request: dict[str, Any]
    reads: list[SheetRead]
    declared: dict[str, Any] = field(default_factory=dict)
    #: The inputs the test declares (what a GM may still add after the roll: the ``"gm"`` ones).
    declarable: tuple[Field, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label.to_dict(),
            "request": self.request,
            "reads": [r.to_dict() for r in self.reads],
            "declared": self.declared,
        }


def pick_fields(fields: Iterable[Field], *paths: str) -> tuple[Field, ...]:
    """The declared fields of ``paths`` (in that order) from a test kind's fields."""
    by_path = {f.path: f for f in fields}
    return tuple(by_path[p] for p in paths if p in by_path)
