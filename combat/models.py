"""Encounters, rounds and the append-only combat log (*rencontre*, *tour*, *journal de combat*).

An :class:`Encounter` runs inside a thread of a campaign. Its
:class:`Participant` rows hold each combatant's live state (``state``, the
system's :meth:`rules.base.RuleSystem.combat_state`). Each :class:`Round`
collects one :class:`Declaration` per participant, then the GM resolves them
in initiative order; every step appends a :class:`LogEntry` (never edited,
never deleted: an undo is a new, correcting entry) in the same transaction
that applies the state changes. All rule arithmetic lives in :mod:`rules`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from config.history import AppendOnlyModel


class Encounter(models.Model):
    """A fight (*rencontre*, *combat*) inside a thread."""

    class Status(models.TextChoices):
        PREPARING = "preparing", _("preparing")
        ACTIVE = "active", _("in progress")
        ENDED = "ended", _("ended")

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="encounters")
    thread = models.ForeignKey("campaigns.Thread", on_delete=models.CASCADE, related_name="encounters")
    title = models.CharField(_("title"), max_length=120)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PREPARING)
    round_number = models.PositiveIntegerField(default=0)
    #: Last log sequence number; bumped under the row lock (``select_for_update``).
    last_sequence = models.PositiveIntegerField(default=0)
    gm_notes = models.TextField(_("GM notes"), blank=True, max_length=10000)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("encounter")
        verbose_name_plural = _("encounters")

    def __str__(self) -> str:
        return self.title

    @property
    def channel(self) -> str:
        return f"encounter:{self.pk}"

    def current_round(self) -> Round | None:
        if not self.round_number:
            return None
        return self.rounds.filter(number=self.round_number).first()


class Participant(models.Model):
    """A combatant: a character of the campaign or a quick NPC (*PNJ*).

    ``sheet`` holds a quick NPC's stats (GM-only); a character participant
    reads its character's sheet. ``controller`` declares its actions (``None``:
    the GMs). ``stats_visible`` shows an NPC's state and step details to the
    players (off by default: NPC stats are GM-only).
    """

    class Side(models.TextChoices):
        ALLIES = "allies", _("allies")
        OPPONENTS = "opponents", _("opponents")
        NEUTRAL = "neutral", _("neutral")

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="participants")
    character = models.ForeignKey(
        "characters.Character", on_delete=models.SET_NULL, null=True, blank=True, related_name="combat_participations"
    )
    name = models.CharField(_("name"), max_length=100)
    is_npc = models.BooleanField(_("NPC"), default=False)
    side = models.CharField(_("side"), max_length=12, choices=Side.choices, default=Side.ALLIES)
    controller = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    sheet = models.JSONField(default=dict, blank=True)
    state = models.JSONField(default=dict, blank=True)
    stats_visible = models.BooleanField(_("stats visible to players"), default=True)
    gm_notes = models.TextField(_("GM notes"), blank=True, max_length=5000)
    position = models.PositiveIntegerField(default=0)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["encounter", "position", "id"]
        verbose_name = _("participant")
        verbose_name_plural = _("participants")

    def __str__(self) -> str:
        return self.name

    def current_sheet(self) -> dict[str, Any]:
        if self.character_id is not None and not self.sheet:
            return self.character.current_sheet()
        return self.sheet


class Round(models.Model):
    """One round (*tour*, *assaut*): declarations, initiative, resolution steps."""

    class Phase(models.TextChoices):
        DECLARATION = "declaration", _("declarations")
        RESOLUTION = "resolution", _("resolution")
        ENDED = "ended", _("ended")

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    phase = models.CharField(max_length=12, choices=Phase.choices, default=Phase.DECLARATION)
    #: The rules' initiative entries, in order (``[{"id": ..., "score": ..., ...}]``).
    initiative = models.JSONField(default=list, blank=True)
    #: Index in ``initiative`` of the next entry to resolve.
    step_index = models.PositiveIntegerField(default=0)
    started = models.DateTimeField(auto_now_add=True)
    ended = models.DateTimeField(null=True, blank=True)
    summary_post_id = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["encounter", "number"]
        constraints = [models.UniqueConstraint(fields=["encounter", "number"], name="round_unique_number")]

    def __str__(self) -> str:
        return f"{self.encounter} R{self.number}"

    @property
    def revealed(self) -> bool:
        return self.phase != self.Phase.DECLARATION


class Declaration(models.Model):
    """A participant's declared action for a round (*déclaration*).

    Hidden from the other players until the GM reveals the round's
    declarations (the resolution phase starts).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RESOLVED = "resolved", _("resolved")
        SKIPPED = "skipped", _("skipped")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="declarations")
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="declarations")
    target = models.ForeignKey(Participant, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    data = models.JSONField(default=dict, blank=True)
    declared_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    #: The target's own choices (a parry or a dodge, a reaction: ``RuleSystem.defence_fields``), asked of
    #: its controller when the declarations are revealed; merged over ``data`` at resolution.
    defence = models.JSONField(default=dict, blank=True)
    #: ``""`` (nothing to ask), ``"pending"``, ``"answered"`` (by the defender) or ``"gm"`` (decided by a GM).
    defence_status = models.CharField(max_length=10, blank=True, default="")
    defence_asked = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["round", "id"]
        constraints = [models.UniqueConstraint(fields=["round", "participant"], name="declaration_unique")]

    def __str__(self) -> str:
        return f"{self.round} {self.participant}"


class LogEntry(AppendOnlyModel):
    """One line of the combat log (*journal*): append-only.

    ``sequence`` is unique per encounter and assigned under the encounter's
    row lock. ``public`` is what every viewer may see; ``detail`` holds the
    full record (inputs, draws, outcome, state changes, GM-only values) for
    the GMs. ``gm_only`` hides the whole entry from players. A correction
    (undo) is a new entry pointing at the one it corrects (``corrects``).
    """

    edit_refused = "A combat log entry is never rewritten."
    delete_refused = "A combat log entry is never deleted."

    class Kind(models.TextChoices):
        CREATED = "created", _("encounter opened")
        PARTICIPANT = "participant", _("participant added")
        STARTED = "started", _("encounter started")
        ROUND_STARTED = "round_started", _("round started")
        DECLARED = "declared", _("action declared")
        INITIATIVE = "initiative", _("initiative")
        STEP = "step", _("step resolved")
        SKIP = "skip", _("step skipped")
        ADJUST = "adjust", _("value adjusted")
        SIDE = "side", _("side changed")
        REMOVED = "removed", _("participant removed")
        CARRIED = "carried", _("results carried to the sheet")
        UNDO = "undo", _("step undone")
        ROUND_ENDED = "round_ended", _("round ended")
        ENDED = "ended", _("encounter ended")

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="log")
    sequence = models.PositiveIntegerField()
    round_number = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    participant = models.ForeignKey(Participant, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    public = models.JSONField(default=dict, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    gm_only = models.BooleanField(default=False)
    corrects = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="corrections")
    #: The chained roll of this entry's draws (initiative, a step), if any dice were drawn.
    roll = models.ForeignKey("campaigns.Roll", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["encounter", "sequence"]
        constraints = [models.UniqueConstraint(fields=["encounter", "sequence"], name="combatlog_unique_sequence")]
        verbose_name = _("combat log entry")
        verbose_name_plural = _("combat log entries")

    def __str__(self) -> str:
        return f"{self.encounter} #{self.sequence} {self.kind}"
