"""The interface every rule system implements (:class:`RuleSystem`).

Part of :mod:`rules.base` (see its docstring); import the names from there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, final

from rules.base.bestiary import BestiaryEntry
from rules.base.clean import _IMMUTABLE, _copy, default_from_fields, set_path, validate_fields
from rules.base.fields import DerivedSpec, Field, SheetContext, SheetLayout, Step, gm_only_paths
from rules.base.messages import FieldError, Msg, RulesError, error
from rules.base.randomness import RandomSource
from rules.base.results import (
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
    acts_sentence,
    with_action_key,
)


# --------------------------------------------------------------------------
# The system interface
# --------------------------------------------------------------------------
class RuleSystem(ABC):
    """One rule system. Subclasses are stateless singletons.

    Every method is pure: same inputs (and same random draws) give the same
    outputs.
    """

    slug: str
    name: Msg
    schema_version: int = 1
    diceless: bool = False
    currencies: tuple[str, ...] = ("xp",)
    #: The key a combat declaration's type had before every system shared :data:`ACTION_KEY`
    #: (declarations stored or sent with it are renamed by :meth:`migrate_declaration`).
    legacy_action_key: str | None = None

    # ---- schema -----------------------------------------------------------
    @abstractmethod
    def sheet_fields(self) -> tuple[Field, ...]:
        """Stored fields of a sheet, with types, ranges and defaults."""

    def default_sheet(self) -> dict[str, Any]:
        return default_from_fields(self.sheet_fields())

    def creation_steps(self) -> tuple[Step, ...]:
        """Creation wizard steps in order (default: one step per group)."""
        groups: dict[str, list[str]] = {}
        for f in self.sheet_fields():
            groups.setdefault(f.step or f.group or "sheet", []).append(f.path)
        return tuple(Step(key, Msg(key, key), tuple(paths)) for key, paths in groups.items())

    def derived_specs(self) -> tuple[DerivedSpec, ...]:
        """Labels of the derived values, for display."""
        return ()

    def sheet_layout(self) -> SheetLayout:
        """How the sheet page is read (default: fields in declaration order,
        no headline, nothing reserved to creation)."""
        return SheetLayout()

    def campaign_settings_fields(self) -> tuple[Field, ...]:
        """Options a GM may set for this system in a campaign."""
        return ()

    def default_campaign_settings(self) -> dict[str, Any]:
        return default_from_fields(self.campaign_settings_fields())

    def starter_settings(self) -> dict[str, Any]:
        """Starter content copied into a new campaign's settings, for the GM to
        edit (a catalogue built from what the text gives); default: none."""
        return {}

    def settings(self, settings: dict[str, Any] | None) -> dict[str, Any]:
        """Campaign settings merged over the defaults.

        The defaults are built from the field declarations once per system
        object (they are static) and copied for each call, so a caller may
        still change the merged dict, nested lists included."""
        cached = self.__dict__.get("_cached_default_settings")
        if cached is None:
            defaults = self.default_campaign_settings()
            mutable = tuple(k for k, v in defaults.items() if v.__class__ not in _IMMUTABLE)
            cached = self.__dict__["_cached_default_settings"] = (defaults, mutable)
        defaults, mutable = cached
        # Same keys, order and values as a fresh defaults dict updated with ``settings``; only the
        # nested defaults (lists, dicts) that ``settings`` does not replace are copied.
        merged = defaults.copy()
        for key in mutable:
            if not settings or key not in settings:
                value = defaults[key]
                merged[key] = _copy(value) if value else value.__class__()  # most are empty: [] or {}
        if settings:
            merged.update(settings)
        return merged

    def _merged(self, settings: dict[str, Any] | None) -> dict[str, Any]:
        """:meth:`settings` for a hook: with no campaign settings, one merged dict is built once and
        shared, so a call does not re-merge the same defaults. Hooks read their settings and never
        change them (``rules/tests/test_contract.py``); a nested default is shared only when empty
        (the rules read it as ``settings.get(key) or []``, which never hands the shared one out)."""
        if settings:
            return self.settings(settings)
        shared: dict[str, Any] | None = self.__dict__.get("_shared_default_settings")
        if shared is not None:
            return shared
        cache = self.__dict__
        if "_shared_default_settings" not in cache:
            merged = self.settings(None)
            shareable = all(v.__class__ in _IMMUTABLE or not v for v in merged.values())
            cache["_shared_default_settings"] = merged if shareable else None
            if shareable:
                return merged
        return self.settings(None)

    @final
    def validate_settings(self, settings: dict[str, Any] | None) -> list[FieldError]:
        """Field-level errors of a campaign's settings for this system.

        Called by the campaigns app before it saves the GM's options. Default:
        the types, ranges and choices of :meth:`campaign_settings_fields`. A
        system adds its own checks (Altaride: a skill formula is talent codes;
        Ambre: the shape of a power table) after these.
        """
        return self._validate_settings(self._merged(settings))

    def _validate_settings(self, settings: dict[str, Any]) -> list[FieldError]:
        """The system's part of :meth:`validate_settings`, with the merged ``settings``."""
        return validate_fields(settings, self.campaign_settings_fields())

    def migrate_sheet(self, sheet: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Bring a stored sheet from ``from_version`` to :attr:`schema_version`.

        Migrations are static and repeatable (Foundry's ``migrateData``):
        override and chain one step per version.
        """
        if from_version > self.schema_version:
            raise ValueError(f"sheet version {from_version} is newer than {self.schema_version}")
        return sheet

    def locked_paths(self, sheet: dict[str, Any], context: SheetContext) -> list[str]:
        """Schema paths (no list indexes) this writer may not set on this sheet.

        A write keeps the stored value at these paths whatever the client sent
        (edit, API, import). Default: nothing for a GM, the GM-only fields
        (:func:`gm_only_paths` of :meth:`sheet_fields`) for anyone else.
        Systems add dynamic locks (a choice made with a server roll, a value an
        auction decided) and paths only the server writes (locked for GMs too).
        """
        return [] if context.gm else gm_only_paths(self.sheet_fields())

    def verify_server_rolls(self, sheet: dict[str, Any], rolls: Mapping[str, Any]) -> list[FieldError]:
        """Errors if the sheet disagrees with the server's stored rolls (``rolls`` by kind).

        The app passes the records it stored in the dice chain (see
        :class:`SheetContext`); a sheet is checked against them, not against
        draws it carries itself. Default: no server roll, nothing to check.
        """
        return []

    @final
    def follow_edit(
        self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The sheet once an edit (``before`` → ``after``) is carried through by the rules.

        Called when a creation step is saved or previewed: a change may set
        values that depend on it (SMS: a new race brings its modules; Clefs: a
        new placement of the rolled aspects restarts the exchanges). Returns a
        new sheet, never mutates its inputs. Default: ``after`` unchanged.
        """
        return self._follow_edit(before, after, self._merged(settings))

    def _follow_edit(self, before: dict[str, Any], after: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """The system's part of :meth:`follow_edit`, with the merged ``settings``."""
        return after

    # ---- validation and derived values ------------------------------------
    @final
    def validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        """Field-level errors (types and ranges, then the system's rules)."""
        return self._validate_sheet(sheet, self._merged(settings))

    def _validate_sheet(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
        """The system's part of :meth:`validate_sheet`, with the merged ``settings``."""
        return validate_fields(sheet, self.sheet_fields())

    @final
    def validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[FieldError]:
        """Field-level errors of an NPC's sheet, by the system's NPC rules.

        An NPC is not built with a player character's creation rules (budget,
        creation rolls, skill packages): the GM sets its values. Default: the
        types and ranges of the stored fields only. A system with NPC rules
        (SMS: definition methods, L987–1035) adds its checks.
        """
        return self._validate_npc(sheet, self._merged(settings))

    def _validate_npc(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[FieldError]:
        """The system's part of :meth:`validate_npc`, with the merged ``settings``."""
        return validate_fields(sheet, self.sheet_fields())

    # ---- quick NPCs (the GM's stat line or bestiary entry) -------------------
    @final
    def quick_npc_fields(self, settings: dict[str, Any] | None = None) -> tuple[Field, ...]:
        """The few labelled inputs of a GM's quick NPC (its stat line).

        Paths are sheet paths (``"attributes.psy"``) or the system's own
        (``"skill.name"``); an input left empty keeps the bestiary entry's
        value, else the rules' default."""
        return self._quick_npc_fields(self.settings(settings))

    def _quick_npc_fields(self, settings: dict[str, Any]) -> tuple[Field, ...]:
        """The system's part of :meth:`quick_npc_fields`. Default: none (a quick NPC
        starts from :meth:`default_sheet`)."""
        return ()

    @final
    def bestiary(self, settings: dict[str, Any] | None = None) -> tuple[BestiaryEntry, ...]:
        """The campaign's bestiary entries a quick NPC can start from."""
        return self._bestiary(self.settings(settings))

    def _bestiary(self, settings: dict[str, Any]) -> tuple[BestiaryEntry, ...]:
        """The system's part of :meth:`bestiary`. Default: none."""
        return ()

    @final
    def quick_npc_sheet(
        self, values: Mapping[str, Any] | None, settings: dict[str, Any] | None = None, *, entry: str = ""
    ) -> tuple[dict[str, Any], list[FieldError]]:
        """The sheet of a quick NPC and the errors of its inputs.

        ``entry`` (a :meth:`bestiary` key) gives the starting values, ``values``
        (by :meth:`quick_npc_fields` path, empty ones ignored) are laid over
        them. The sheet is checked by the NPC rules (:meth:`validate_npc`),
        never by a player character's creation budget. Errors carry the
        input's path (``"entry"`` for an unknown entry); with errors the sheet
        is ``{}``."""
        merged = self.settings(settings)
        fields = self._quick_npc_fields(merged)
        chosen: dict[str, Any] = {}
        if entry:
            found = next((e for e in self._bestiary(merged) if e.key == entry), None)
            if found is None:
                return {}, [
                    error("entry", "unknown_entry", "Choisissez une entrée du bestiaire.", "Choose a bestiary entry.")
                ]
            chosen.update({k: v for k, v in found.values.items() if v is not None and v != ""})
        chosen.update({k: v for k, v in (values or {}).items() if v is not None and v != ""})
        known = {f.path for f in fields}
        errors = [
            error(path, "unknown_input", "Cette valeur n'existe pas ici.", "This value does not exist here.")
            for path in chosen
            if path not in known
        ]
        nested: dict[str, Any] = {}
        for path, value in chosen.items():
            if path in known:
                set_path(nested, path, value)
        errors += validate_fields(nested, [replace(f, required=False) if f.required else f for f in fields])
        if errors:
            return {}, errors
        try:
            sheet = self._quick_npc_sheet({k: v for k, v in chosen.items() if k in known}, merged)
        except RulesError as exc:
            return {}, exc.errors
        errors = self._validate_npc(sheet, merged)
        return ({}, errors) if errors else (sheet, [])

    def _quick_npc_sheet(self, values: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """The system's part of :meth:`quick_npc_sheet`: checked ``values`` (by path)
        onto the default sheet; raises :class:`RulesError` (input paths) for
        what only the values together can tell. Default: each value at its path."""
        sheet = self.default_sheet()
        for path, value in values.items():
            set_path(sheet, path, value)
        return sheet

    @final
    def derive(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any]:
        """Derived values, recomputed from the stored sheet."""
        return self._derive(sheet, self._merged(settings))

    @abstractmethod
    def _derive(self, sheet: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """The system's part of :meth:`derive`, with the merged ``settings``."""

    @final
    def creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> Budget:
        """What the sheet spends of its creation budget."""
        return self._creation_budget(sheet, self._merged(settings))

    @abstractmethod
    def _creation_budget(self, sheet: dict[str, Any], settings: dict[str, Any]) -> Budget:
        """The system's part of :meth:`creation_budget`, with the merged ``settings``."""

    @final
    def creation_ledger(self, sheet: dict[str, Any], settings: dict[str, Any] | None = None) -> list[LedgerDraft]:
        """Ledger entries written when the GM approves the sheet (e.g. a creation leftover kept as
        experience, karma spent at creation). Default: none."""
        return self._creation_ledger(sheet, self._merged(settings))

    def _creation_ledger(self, sheet: dict[str, Any], settings: dict[str, Any]) -> list[LedgerDraft]:
        """The system's part of :meth:`creation_ledger`, with the merged ``settings``."""
        return []

    # ---- resolution -------------------------------------------------------
    def test_kinds(self) -> dict[str, tuple[Field, ...]]:
        """Request kinds :meth:`resolve` accepts, with their fields."""
        return {}

    @final
    def resolve(
        self,
        request: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> Resolution:
        """Resolve a test request (``{"kind": ..., ...}``).

        Raises :class:`RulesError` with field errors for a bad request.
        """
        # The hot path reads the shared default settings itself (as :meth:`_merged`), one call less.
        shared = None if settings else self.__dict__.get("_shared_default_settings")
        return self._resolve(request, rng, shared if shared is not None else self._merged(settings))

    def _resolve(
        self,
        request: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any],
    ) -> Resolution:
        """The system's part of :meth:`resolve`, with the merged ``settings``."""
        raise RulesError([error("kind", "unsupported", "Test non pris en charge.", "Unsupported test.")])

    @final
    def odds(self, request: dict[str, Any], settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Exact odds of a test, if the system defines them."""
        return self._odds(request, self._merged(settings))

    def _odds(self, request: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any] | None:
        """The system's part of :meth:`odds`, with the merged ``settings``."""
        return None

    # ---- tests built from the sheet ----------------------------------------
    @final
    def sheet_tests(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
    ) -> list[SheetTest]:
        """The tests this character can make, in the system's words (default: none).

        ``state`` is the current situation the app knows beyond the sheet
        (e.g. a combat participant's gauges); ``None`` means the sheet alone.
        """
        return self._sheet_tests(sheet, self._merged(settings), state)

    def _sheet_tests(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any] | None = None,
    ) -> list[SheetTest]:
        """The system's part of :meth:`sheet_tests`, with the merged ``settings``."""
        return []

    def sheet_test_request(
        self,
        sheet: dict[str, Any],
        test: SheetTest,
        declared: dict[str, Any],
        settings: dict[str, Any],
        state: dict[str, Any],
    ) -> tuple[dict[str, Any], list[SheetRead]]:
        """The request of ``test`` (one of :meth:`sheet_tests`) and the values it read.

        ``declared`` is already checked (only ``test.declared`` paths, audience
        respected, types and ranges). Systems listing sheet tests override this.
        """
        raise RulesError([error("test", "unsupported", "Test non pris en charge.", "Unsupported test.")])

    def build_test(
        self,
        sheet: dict[str, Any],
        choice: str,
        declared: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
        *,
        gm: bool = False,
    ) -> BuiltTest:
        """The validated resolution request of the sheet test ``choice``.

        Every number comes from the sheet (and ``state``); ``declared`` may only
        hold the test's declared inputs, and a GM-only one (``audience="gm"``)
        only when ``gm`` is true. Raises :class:`RulesError` otherwise: an
        unknown test, an impossible one, an undeclared or GM-only input, a bad
        value. Not meant to be overridden (override :meth:`_sheet_tests` and
        :meth:`sheet_test_request`).
        """
        merged = self._merged(settings)
        options = {t.key: t for t in self._sheet_tests(sheet, merged, state)}
        test = options.get(str(choice or ""))
        if test is None:
            raise RulesError(
                [error("test", "unknown_test", "Ce test n'est pas sur la feuille.", "This test is not on the sheet.")]
            )
        if test.impossible is not None:
            raise RulesError([FieldError("test", "impossible", test.impossible)])
        values = {k: v for k, v in (declared or {}).items() if v is not None and v != ""}
        allowed = {f.path: f for f in test.declared}
        errors: list[FieldError] = []
        for key in values:
            spec = allowed.get(key)
            if spec is None:
                errors.append(
                    error(
                        key,
                        "not_declarable",
                        "Cette valeur vient de la feuille : elle ne se saisit pas.",
                        "This value comes from the sheet: it cannot be typed in.",
                    )
                )
            elif spec.audience == "gm" and not gm:
                errors.append(
                    FieldError(
                        key,
                        "gm_only",
                        Msg(f"Seul le MJ fixe « {spec.label.fr} ».", f"Only the GM sets “{spec.label.en}”."),
                    )
                )
        if errors:
            raise RulesError(errors)
        errors = validate_fields(values, [replace(f, required=False) for f in test.declared])
        if errors:
            raise RulesError(errors)
        request, reads = self.sheet_test_request(sheet, test, values, merged, dict(state or {}))
        request = {**request, "kind": test.kind}
        kinds = self.test_kinds()
        if test.kind in kinds:
            errors = validate_fields(request, kinds[test.kind])
            if errors:
                raise RulesError(errors)
        return BuiltTest(test.key, test.label, request, reads, values, test.declared)

    # ---- after the roll: a stored test re-read ------------------------------
    def can_lower_die(self, resolution: Mapping[str, Any]) -> bool:
        """Whether a stored test's die may be lowered by spending experience
        (Altaride's *baisser le dé*). Default: never."""
        return False

    @final
    def lower_die(
        self,
        stored: Resolution | dict[str, Any],
        points: int,
        xp_balance: int,
        side: str = "active",
        settings: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], LedgerDraft]:
        """Spend ``points`` of experience to lower a stored test's die: ``(re-judged resolution, ledger draft)``.

        The resolution is a new dict: the stored one with its ``outcome``, ``success``, ``level`` and
        ``margin`` judged again on the lowered die (the draws never change). Refused with
        :class:`RulesError` where :meth:`can_lower_die` is false (the default)."""
        return self._lower_die(stored, points, xp_balance, side, self._merged(settings))

    def _lower_die(
        self,
        stored: Resolution | dict[str, Any],
        points: int,
        xp_balance: int,
        side: str,
        settings: dict[str, Any],
    ) -> tuple[dict[str, Any], LedgerDraft]:
        """The system's part of :meth:`lower_die`, with the merged ``settings``."""
        raise RulesError([error("lower_die", "unsupported", "Non prévu par ce système.", "Not in this system.")])

    def can_reevaluate(self, resolution: Mapping[str, Any]) -> bool:
        """Whether the GM may set a difficulty after the roll and have the stored draws
        re-judged (Clefs de l'Aube's *ND fixé après le jet*). Default: never."""
        return False

    def reevaluate(
        self,
        resolution: dict[str, Any],
        difficulty: int | None,
        negative_nd: bool | None = None,
        nd_hidden: bool | None = None,
    ) -> dict[str, Any]:
        """The stored test judged again against ``difficulty``, without re-rolling: a new
        resolution dict. Refused with :class:`RulesError` where :meth:`can_reevaluate` is false."""
        raise RulesError([error("difficulty", "unsupported", "Non prévu par ce système.", "Not in this system.")])

    def gm_aids(self) -> dict[str, Any] | None:
        """GM-only help tables (JSON values, texts as ``Msg`` dicts); ``None``: the system has none."""
        return None

    # ---- combat -----------------------------------------------------------
    @final
    def combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any] | None = None,
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        """Initial combat state of a participant (gauges, pools, wounds).

        ``balances`` are the character's ledger balances (``{"karma": 3}``) when it has a
        ledger (``None`` for a quick NPC): a system whose combat reads one (Ambre's karma
        decides what a mortal wound means) takes it from there."""
        return self._combat_state(sheet, self._merged(settings), balances)

    def _combat_state(
        self,
        sheet: dict[str, Any],
        settings: dict[str, Any],
        balances: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        """The system's part of :meth:`combat_state`, with the merged ``settings``."""
        return {}

    def private_state_keys(self) -> frozenset[str]:
        """Top-level combat state keys only the participant's controller and the GMs may see.

        Default: the balances (:attr:`currencies`, e.g. karma, which are the
        owner's and the GMs' business). A system adds the values from which
        another player could work out secret sheet values (Ambre: gauges that
        are sums of attribute points). ``"initiative"`` in the set means an
        initiative score is itself a secret sheet value: only the order is shown.
        """
        return frozenset(self.currencies)

    def migrate_declaration(self, declaration: dict[str, Any]) -> dict[str, Any]:
        """A declaration as :meth:`action_fields` names it today: a type sent or stored under the
        system's key from before the shared :data:`ACTION_KEY` (:attr:`legacy_action_key`) is renamed."""
        key = self.legacy_action_key
        return with_action_key(declaration, key) if key else declaration

    def action_fields(self) -> tuple[Field, ...]:
        """Fields of a combat declaration for this system."""
        return ()

    @final
    def validate_action(
        self,
        actor_sheet: dict[str, Any],
        declaration: dict[str, Any],
        target_sheet: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> list[FieldError]:
        """Errors of a declaration (already checked against :meth:`action_fields`) against the sheets
        involved: e.g. a skill the character does not have. Default: none."""
        return self._validate_action(actor_sheet, declaration, target_sheet, self._merged(settings))

    def _validate_action(
        self,
        actor_sheet: dict[str, Any],
        declaration: dict[str, Any],
        target_sheet: dict[str, Any] | None,
        settings: dict[str, Any],
    ) -> list[FieldError]:
        """The system's part of :meth:`validate_action`, with the merged ``settings``."""
        return []

    @final
    def initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Initiative order: ``[{"id": ..., "score": ..., "draws": [...]}, ...]``."""
        return self._initiative(combatants, declarations, rng, self._merged(settings))

    def _initiative(
        self,
        combatants: Sequence[Combatant],
        declarations: dict[str, dict[str, Any]],
        rng: RandomSource,
        settings: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """The system's part of :meth:`initiative`, with the merged ``settings``."""
        return [{"id": c.id, "score": 0, "draws": []} for c in combatants]

    @final
    def resolve_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        declaration: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any] | None = None,
    ) -> CombatResult:
        """Resolve one declared action into a result and state changes."""
        shared = None if settings else self.__dict__.get("_shared_default_settings")  # as in :meth:`resolve`
        return self._resolve_action(
            actor, target, declaration, rng, shared if shared is not None else self._merged(settings)
        )

    def _resolve_action(
        self,
        actor: Combatant,
        target: Combatant | None,
        declaration: dict[str, Any],
        rng: RandomSource,
        settings: dict[str, Any],
    ) -> CombatResult:
        """The system's part of :meth:`resolve_action`, with the merged ``settings``."""
        raise RulesError([error("kind", "unsupported", "Action non prise en charge.", "Unsupported action.")])

    @final
    def action_options(
        self,
        sheet: dict[str, Any],
        state: dict[str, Any],
        settings: dict[str, Any] | None = None,
        *,
        defending: bool = False,
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        """The choices a combatant's sheet gives for declaration inputs: ``{path: ((value, label), ...)}``
        (its skills, weapons, spells). ``defending``: the inputs of :meth:`defence_fields`, from the
        defender's sheet. A player's value outside these choices is refused; the GMs may enter any.
        Default: none (free inputs)."""
        return self._action_options(sheet, state, self._merged(settings), defending=defending)

    def _action_options(
        self,
        sheet: dict[str, Any],
        state: dict[str, Any],
        settings: dict[str, Any],
        *,
        defending: bool = False,
    ) -> dict[str, tuple[tuple[str, Msg], ...]]:
        """The system's part of :meth:`action_options`, with the merged ``settings``."""
        return {}

    def defence_fields(self, declaration: dict[str, Any], actor: Combatant, target: Combatant) -> tuple[Field, ...]:
        """Inputs of ``actor``'s declared action that belong to its TARGET (a parry or a dodge, a
        reaction's score): the combat app asks them of the target's controller, and the values
        chosen replace the attacker's at resolution. Default: none."""
        return ()

    def public_outcome(self, result: CombatResult, actor: Combatant, target: Combatant | None) -> Msg:
        """The sentence every viewer of the fight may read about a resolved step.

        It names what happened in the game's words ("Brand touche le garde :
        blessure grave") and never quotes a hidden value: no NPC
        characteristic, no GM input, no threshold or margin. The combat app
        appends :func:`fallen_sentence` for whoever the step put out of the
        fight. Default: a neutral "X acts (against Y)".
        """
        return acts_sentence(actor.name, target.name if target else None)

    def combat_condition(self, state: dict[str, Any]) -> str:
        """``"dead"``, ``"unconscious"`` or ``"active"``: what the combat app reads to skip a
        participant and to mark a character dead. Default: the ``dead``, ``unconscious`` and
        ``coma`` flags of the combat state."""
        if state.get("dead"):
            return "dead"
        if state.get("unconscious") or state.get("coma"):
            return "unconscious"
        return "active"

    @final
    def carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The sheet with a participant's combat state carried into it (wounds, pools,
        fatigue, handicaps, conditions), as the system keeps them between fights.
        Returns a new dict; the default carries nothing (returns the sheet unchanged)."""
        return self._carry_combat_state(sheet, state, self._merged(settings))

    def _carry_combat_state(
        self, sheet: dict[str, Any], state: dict[str, Any], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """The system's part of :meth:`carry_combat_state`, with the merged ``settings``."""
        return sheet

    def combat_state_for_others(self, state: dict[str, Any]) -> dict[str, Any]:
        """What a viewer other than the combatant's controller and the GMs may see of its
        combat state. Default: everything but :meth:`private_state_keys` (the balances, and
        the values that give secret sheet values away)."""
        private = self.private_state_keys()
        return {k: v for k, v in state.items() if k not in private}

    def combat_value_labels(self) -> dict[str, Msg]:
        """Names of the combat state's values (dotted paths or keys) in the system's words,
        for the GM's "adjust a value" menu and the log. Default: none."""
        return {}

    # ---- progression ------------------------------------------------------
    def purchase_fields(self) -> dict[str, tuple[Field, ...]]:
        """Purchase kinds a player may request, with their fields."""
        return {}

    @final
    def purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
    ) -> PurchaseResult:
        """Cost and effect of spending experience/karma on the sheet."""
        return self._purchase(sheet, request, balances, self._merged(settings))

    def _purchase(
        self,
        sheet: dict[str, Any],
        request: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any],
    ) -> PurchaseResult:
        """The system's part of :meth:`purchase`, with the merged ``settings``."""
        return PurchaseResult(
            sheet,
            [],
            [error("kind", "unsupported", "Achat non pris en charge.", "Unsupported purchase.")],
        )

    @final
    def purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any] | None = None,
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The simple purchases the character can pay now, each priced by :meth:`purchase`.

        Returns ``[{"kind": str, "request": {path: value}, "label": Msg, "cost": int}]``; ``facts``
        are inputs the app knows (e.g. ``already_bought``), passed to the kinds that declare them.
        Default: every purchase kind whose only required input is a choice, one offer per choice.
        """
        return self._purchase_offers(sheet, balances, self._merged(settings), facts)

    def _purchase_offers(
        self,
        sheet: dict[str, Any],
        balances: dict[str, int],
        settings: dict[str, Any],
        facts: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The system's part of :meth:`purchase_offers`, with the merged ``settings``."""
        facts = facts or {}
        out: list[dict[str, Any]] = []
        for kind, fields in self.purchase_fields().items():
            required = [f for f in fields if f.required]
            if len(required) != 1 or required[0].kind != "choice":
                continue
            paths = {f.path for f in fields}
            known = {k: v for k, v in facts.items() if k in paths}
            for value, label in required[0].choices:
                if not value:
                    continue
                offer = {required[0].path: value}
                result = self._purchase(sheet, {"kind": kind, **offer, **known}, balances, settings)
                if result.errors or not result.entries:
                    continue
                cost = -sum(d.amount for d in result.entries)
                out.append({"kind": kind, "request": offer, "label": label, "cost": cost})
        return out

    def session_fact_fields(self) -> tuple[Field, ...]:
        """The GM's inputs on the session award screen that :meth:`suggest_session_awards` reads."""
        return ()

    @final
    def suggest_session_awards(
        self,
        sheet: dict[str, Any],
        facts: dict[str, Any],
        settings: dict[str, Any] | None = None,
    ) -> list[LedgerDraft]:
        """Awards the system suggests for a closed session.

        ``facts`` come from the app: ``{"resolutions": [Resolution dicts of
        the character's rolls in the session], "present": bool, ...}``.
        """
        return self._suggest_session_awards(sheet, facts, self._merged(settings))

    def _suggest_session_awards(
        self,
        sheet: dict[str, Any],
        facts: dict[str, Any],
        settings: dict[str, Any],
    ) -> list[LedgerDraft]:
        """The system's part of :meth:`suggest_session_awards`, with the merged ``settings``."""
        return []

    @final
    def apply_progression(
        self,
        sheet: dict[str, Any],
        entries: Sequence[dict[str, Any]],
        settings: dict[str, Any] | None = None,
    ) -> ProgressionResult:
        """Recompute balances and progression effects from ledger entries.

        ``entries`` are all approved ledger entries of the character (dicts
        with ``currency``, ``amount``, ``kind``, ``data``), in order. Must be
        idempotent: same entries, same result.
        """
        return self._apply_progression(sheet, entries, self._merged(settings))

    def _apply_progression(
        self,
        sheet: dict[str, Any],
        entries: Sequence[dict[str, Any]],
        settings: dict[str, Any],
    ) -> ProgressionResult:
        """The system's part of :meth:`apply_progression`, with the merged ``settings``."""
        balances: dict[str, int] = {c: 0 for c in self.currencies}
        for entry in entries:
            balances[entry["currency"]] = balances.get(entry["currency"], 0) + int(entry["amount"])
        return ProgressionResult(balances=balances, sheet=sheet)

    #: The keys of a ledger entry :meth:`apply_progression` reads (among ``id``, ``currency``,
    #: ``amount``, ``kind``, ``data``, ``session_id``): the session job reads and hands out only
    #: these. Default: all of them.
    progression_entry_keys: frozenset[str] = frozenset({"id", "currency", "amount", "kind", "data", "session_id"})

    #: Whether :meth:`apply_progression` reads of the ledger only, per currency, the sum of its
    #: gains and the sum of its spendings (amounts added up, whatever their order or number; the
    #: entries hold ``currency`` and ``amount`` only). Then the session job hands it one entry per
    #: currency, sign and session instead of every line: the database adds them up (#21). The
    #: contract tests check the claim on random ledgers. Default: no, every entry is read.
    progression_reads_totals: bool = False

    @final
    def apply_progression_many(
        self,
        items: Sequence[tuple[dict[str, Any], Sequence[dict[str, Any]]]],
        settings: dict[str, Any] | None = None,
    ) -> list[ProgressionResult]:
        """:meth:`apply_progression` for many ``(sheet, entries)`` pairs of one campaign (the
        session job's batch): the settings are merged once. Same results, in the same order."""
        return self._apply_progression_many(items, self._merged(settings))

    def _apply_progression_many(
        self,
        items: Sequence[tuple[dict[str, Any], Sequence[dict[str, Any]]]],
        settings: dict[str, Any],
    ) -> list[ProgressionResult]:
        """The system's part of :meth:`apply_progression_many`. Default: one
        :meth:`_apply_progression` per pair."""
        apply = self._apply_progression
        return [apply(sheet, entries, settings) for sheet, entries in items]

    @final
    def campaign_progression(
        self, sheets: Mapping[int, dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> dict[int, dict[str, Any]] | None:
        """A campaign-wide step after every character's :meth:`apply_progression`, for effects
        that compare characters (Ambre's ladders after buy-ups).

        ``sheets`` maps a character id to its current sheet. Returns ``{id: {"sheet": new sheet,
        "state": {...}}}`` for the characters it changes, or ``None`` (the default) when the
        system has no such step."""
        return self._campaign_progression(sheets, self._merged(settings))

    def _campaign_progression(
        self, sheets: Mapping[int, dict[str, Any]], settings: dict[str, Any]
    ) -> dict[int, dict[str, Any]] | None:
        """The system's part of :meth:`campaign_progression`, with the merged ``settings``."""
        return None

    def balance_state(self, balances: Mapping[str, int]) -> dict[str, Any]:
        """What the balances mean in the game (Ambre's good or bad karma, a loan), as JSON values
        with texts as ``Msg`` dicts; default: nothing beyond the numbers."""
        return {}

    # ---- words ------------------------------------------------------------
    def group_labels(self) -> dict[str, Msg]:
        """Names of the sheet's group keys and budget pools (``Field.group``, ``Budget.pools``),
        in the system's words. Default: none (the caller humanizes the key)."""
        return {}

    def column_labels(self) -> dict[str, Msg]:
        """Names of the keys of the records in derived tables (a list of dicts returned by
        :meth:`derive`, such as Clefs' skills with their BC and default CA). Default: none (the caller
        humanizes the key)."""
        return {}

    def test_kind_labels(self) -> dict[str, Msg]:
        """Names of the :meth:`test_kinds` keys. Default: none."""
        return {}

    def purchase_kind_labels(self) -> dict[str, Msg]:
        """Names of the :meth:`purchase_fields` kinds (*types d'achat*). Default: none."""
        return {}

    def currency_labels(self) -> dict[str, Msg]:
        """Names of :attr:`currencies` (experience, karma). Default: the common two."""
        names = {"xp": Msg("expérience", "experience"), "karma": Msg("karma", "karma")}
        return {c: names.get(c, Msg(c, c)) for c in self.currencies}

    # ---- description ------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """A JSON description of the system (for the API and the wizard)."""
        return {
            "slug": self.slug,
            "name": self.name.to_dict(),
            "schema_version": self.schema_version,
            "diceless": self.diceless,
            "currencies": list(self.currencies),
            "sheet_fields": [f.to_dict() for f in self.sheet_fields()],
            "creation_steps": [s.to_dict() for s in self.creation_steps()],
            "derived": [d.to_dict() for d in self.derived_specs()],
            "campaign_settings": [f.to_dict() for f in self.campaign_settings_fields()],
            "quick_npc_fields": [f.to_dict() for f in self.quick_npc_fields()],
            "test_kinds": {k: [f.to_dict() for f in v] for k, v in self.test_kinds().items()},
            "action_fields": [f.to_dict() for f in self.action_fields()],
            "purchase_kinds": {k: [f.to_dict() for f in v] for k, v in self.purchase_fields().items()},
        }
