"""Forms of the combat app. The declaration form is built from the rule
system's ``action_fields()``: nothing here knows a particular system."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django import forms
from django.utils.formats import number_format
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from campaigns.forms import attach_rules_refs
from campaigns.models import Thread
from characters.models import Character
from combat.models import Encounter, Participant
from rules.base import ACTION_KEY, Field, is_digits, set_path

NULL_BOOL_CHOICES = (("", "—"), ("true", _("Yes")), ("false", _("No")))


class EncounterForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=120)


def _lang() -> str:
    return (get_language() or "fr")[:2]


def form_field(f: Field) -> forms.Field | None:
    """A Django form field for one declaration field (``None``: not in the form)."""
    lang = _lang()
    common: dict[str, Any] = {"label": f.label.get(lang), "help_text": f.help.get(lang) if f.help else ""}
    if f.kind == "int":
        return forms.IntegerField(
            required=f.required, min_value=f.minimum, max_value=f.maximum, initial=f.default, **common
        )
    if f.kind == "str":
        return forms.CharField(required=f.required, max_length=f.max_length, initial=f.default or "", **common)
    if f.kind == "text":
        return forms.CharField(
            required=f.required,
            max_length=f.max_length,
            initial=f.default or "",
            widget=forms.Textarea(attrs={"rows": 2}),
            **common,
        )
    if f.kind == "bool":
        if f.default is None:
            return forms.TypedChoiceField(
                required=False,
                choices=NULL_BOOL_CHOICES,
                coerce=lambda v: {"true": True, "false": False}.get(v),
                empty_value=None,
                **common,
            )
        return forms.BooleanField(required=False, initial=bool(f.default), **common)
    if f.kind == "choice":
        choices = [(key, label.get(lang)) for key, label in f.choices]
        if not f.required and f.default is None and "" not in {k for k, _ in choices}:
            choices = [("", "—"), *choices]
        return forms.ChoiceField(required=f.required, choices=choices, initial=f.default, **common)
    return None  # lists and dicts are not entered in this form


class DeclarationForm(forms.Form):
    """A participant's declared action (target + the system's fields)."""

    target = forms.ModelChoiceField(
        queryset=Participant.objects.none(), required=False, label=_("Target"), empty_label=_("No target")
    )

    def __init__(
        self,
        *args: Any,
        encounter: Encounter,
        action_fields: tuple[Field, ...],
        gm: bool = True,
        with_target: bool = True,
        options: dict[str, tuple[tuple[str, Any], ...]] | None = None,
        **kwargs: Any,
    ) -> None:
        prefix = kwargs.pop("prefix", None)
        super().__init__(*args, prefix=prefix, **kwargs)
        if with_target:
            self.fields["target"].queryset = encounter.participants.filter(active=True)
        else:
            del self.fields["target"]  # a defence answers a declared action: its target is set
        self.action_paths: list[str] = []
        #: Choice fields whose blank option means "not set" (not one of the system's choices).
        self.blank_is_unset: set[str] = set()
        options = options or {}
        #: Labels of GM-only inputs a non-GM sent anyway (refused).
        self.gm_inputs_sent: list[str] = []
        for f in action_fields:
            field = form_field(f)
            if field is None:
                continue
            name = f.path.replace(".", "__")
            if f.path in options and (f.kind == "int" if gm else f.kind in ("str", "int")):
                # The sheet's choices (its skills, weapons): a player picks one of them. The GM picks an
                # item of a sheet list by name too (its index means nothing to a person); other inputs stay free.
                choices = [("", "—"), *((value, label.get(_lang())) for value, label in options[f.path])]
                field = forms.TypedChoiceField(
                    label=field.label,
                    help_text=field.help_text,
                    required=f.required,
                    choices=choices,
                    coerce=int if f.kind == "int" else str,
                    empty_value=None if f.kind == "int" else "",
                )
            if f.audience == "gm" and not gm:
                # Not offered to a player (not even hidden); a value sent anyway is refused (clean) and
                # what the GM set stays as it is (the service keeps it).
                key = self.add_prefix(name)
                if self.is_bound and self.data.get(key) not in (None, ""):
                    self.gm_inputs_sent.append(str(field.label))
                continue
            if f.when:  # shown for the actions that read it (static/js/tablee.js; every input without JS)
                field.when = " ".join(f.when)  # type: ignore[attr-defined]
            if f.path == ACTION_KEY:
                field.widget.attrs["data-when-key"] = ""
            self.fields[name] = field
            self.action_paths.append(f.path)
            if f.kind in ("choice", "str", "text") and "" not in {key for key, _label in f.choices}:
                if not f.required and (f.default in (None, "") or f.kind == "choice"):
                    self.blank_is_unset.add(f.path)  # a choice left blank keeps the system's default
        if gm:
            attach_rules_refs(self, action_fields, "")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        message = _("Only the GM can set this value.")
        for label in self.gm_inputs_sent:
            self.add_error(None, f"{label} : {message}" if _lang() == "fr" else f"{label}: {message}")
        return data

    def add_error(self, field: str | None, error: Any) -> None:
        """Errors on an input not shown to this user are shown above the form, with its label."""
        if field and field in self.fields and self.fields[field].widget.is_hidden:
            label = self.fields[field].label
            messages = error.messages if isinstance(error, forms.ValidationError) else [str(error)]
            for message in messages:
                super().add_error(None, f"{label} : {message}" if _lang() == "fr" else f"{label}: {message}")
            return
        super().add_error(field, error)

    def declaration(self) -> dict[str, Any]:
        """The declared values; a dotted path is nested (``spell.nature`` → ``{"spell": {"nature": ...}}``)."""
        data: dict[str, Any] = {}
        for path in self.action_paths:
            value = self.cleaned_data.get(path.replace(".", "__"))
            if value is None or (value == "" and path in self.blank_is_unset):
                continue
            set_path(data, path, value)
        return data


def quick_npc_name(path: str) -> str:
    """The form input of a quick NPC value (``npc.<path>`` in a service error)."""
    return "npc__" + path.replace(".", "__")


class ParticipantForm(forms.Form):
    """Add a character of the campaign, or quick NPCs: from a bestiary entry, an NPC
    of the campaign, or the stat line the rule system declares (``quick_npc_fields``)."""

    character = forms.ModelChoiceField(
        queryset=Character.objects.none(), required=False, label=_("Character of the campaign"), empty_label="—"
    )
    name = forms.CharField(label=_("Quick NPC name"), max_length=90, required=False)
    entry = forms.ChoiceField(label=_("Bestiary entry"), required=False, choices=())
    template = forms.ModelChoiceField(
        queryset=Character.objects.none(), required=False, label=_("Copy an NPC of the campaign"), empty_label="—"
    )
    count = forms.IntegerField(label=_("Copies"), min_value=1, max_value=20, initial=1)
    side = forms.ChoiceField(
        label=_("Side"),
        choices=[("", _("Default: player characters with the players, NPCs facing them")), *Participant.Side.choices],
        required=False,
    )
    stats_visible = forms.BooleanField(label=_("Players see this NPC's state"), required=False)

    def __init__(self, *args: Any, encounter: Encounter, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        characters = Character.objects.filter(campaign=encounter.campaign).exclude(
            status__in=[Character.Status.RETIRED, Character.Status.DEAD]
        )
        self.fields["character"].queryset = characters
        self.fields["template"].queryset = characters.filter(is_npc=True)
        system = encounter.campaign.rule_system
        settings = system.settings(encounter.campaign.system_settings)
        lang = _lang()
        entries = system.bestiary(settings)
        if entries:
            self.fields["entry"].choices = [("", "—"), *((e.key, e.label.get(lang)) for e in entries)]
        else:
            del self.fields["entry"]
        #: The stat line: every input optional; left empty, the entry's value or the rules' default.
        self.npc_paths: list[str] = []
        for spec in system.quick_npc_fields(settings):
            # The sheet's help (creation rules) does not apply to an NPC's stat line.
            field = form_field(replace(spec, required=False, default=None, help=None))
            if field is None:
                continue
            if spec.kind == "int" and spec.default is not None:
                field.widget.attrs["placeholder"] = number_format(spec.default)
            self.fields[quick_npc_name(spec.path)] = field
            self.npc_paths.append(spec.path)

    def has_bestiary(self) -> bool:
        return "entry" in self.fields

    def head_fields(self) -> list[Any]:
        return [self[n] for n in ("character", "name", "entry", "template") if n in self.fields]

    def stat_fields(self) -> list[Any]:
        return [self[quick_npc_name(p)] for p in self.npc_paths]

    def tail_fields(self) -> list[Any]:
        return [self[n] for n in ("count", "side", "stats_visible")]

    def npc_values(self) -> dict[str, Any]:
        """The stat line typed by the GM, by path (empty inputs left out)."""
        values: dict[str, Any] = {}
        for path in self.npc_paths:
            value = self.cleaned_data.get(quick_npc_name(path))
            if value is None or value == "":
                continue
            values[path] = value
        return values

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not any(data.get(key) for key in ("character", "name", "template", "entry")):
            raise forms.ValidationError(_("Choose a character, or name a quick NPC."))
        return data

    def add_service_errors(self, exc: Any) -> None:
        """A service's errors on their inputs (``npc.<path>``: the stat line's input)."""
        for key, msgs in exc.message_dict.items():
            name = quick_npc_name(key[4:]) if key.startswith("npc.") else key
            target = name if name in self.fields else None
            for msg in msgs:
                self.add_error(target, msg)


class AdjustForm(forms.Form):
    """The GM sets one state value, with a reason."""

    target = forms.CharField(label=_("Value"), max_length=200)
    value = forms.CharField(label=_("New value"), max_length=200)
    reason = forms.CharField(label=_("Reason"), max_length=300)

    def clean_target(self) -> tuple[int, str]:
        raw = self.cleaned_data["target"]
        pid, _sep, path = raw.partition("|")
        if not is_digits(pid) or not path:
            raise forms.ValidationError(_("Choose a value to adjust."))
        return int(pid), path


class StepForm(forms.Form):
    step = forms.IntegerField(required=False, min_value=0)
    reason = forms.CharField(required=False, max_length=300)


def thread_for(thread_id: int) -> Thread | None:
    return Thread.objects.select_related("campaign").filter(pk=thread_id).first()
