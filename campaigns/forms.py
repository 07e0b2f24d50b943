"""Forms of the campaigns pages. They parse input; services validate the rest."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

import rules
from campaigns.models import Board, Post, Role
from rules.base import Field, field_refs, get_path, reference_text, set_path


def _lang() -> str:
    return get_language() or "fr"


def field_name(path: str, prefix: str = "") -> str:
    return prefix + path.replace(".", "__")


class OptionalJSONField(forms.JSONField):
    """A JSON text area that shows nothing (not ``null``) when empty."""

    def prepare_value(self, value: Any) -> Any:
        if value is None or value == "null":
            return ""
        return super().prepare_value(value)


def build_rules_field(spec: Field, initial: Any = None) -> forms.Field:
    """A Django form field from a ``rules.base.Field`` declaration (generic forms)."""
    lang = _lang()
    label = spec.label.get(lang)
    help_text = spec.help.get(lang) if spec.help else ""
    if spec.kind in ("list", "dict"):
        # The data-shape notation ("{key: [{name, kind}]}") is for developers (#23).
        help_text = re.sub(r"\s*\{[^{}]*(\{[^{}]*\}[^{}]*)*\}\.?", "", help_text).strip(" —-:")
        help_text = help_text[:1].upper() + help_text[1:]
    value = spec.default if initial is None else initial
    common: dict[str, Any] = {"label": label, "help_text": help_text, "initial": value}
    if spec.kind == "int":
        return forms.IntegerField(required=spec.required, min_value=spec.minimum, max_value=spec.maximum, **common)
    if spec.kind == "bool":
        return forms.BooleanField(required=False, **common)
    if spec.kind == "choice":
        choices = [(v, m.get(lang)) for v, m in spec.choices]
        if not spec.required:
            choices = [("", "—"), *choices]
        return forms.ChoiceField(required=spec.required, choices=choices, **common)
    if spec.multiple:
        common["initial"] = [str(v) for v in value] if isinstance(value, list) else []
        return forms.MultipleChoiceField(
            required=spec.required,
            choices=[(str(v), m.get(lang)) for v, m in spec.choices],
            widget=forms.CheckboxSelectMultiple,
            **common,
        )
    if spec.kind in ("str", "text"):
        widget = forms.Textarea(attrs={"rows": 3}) if spec.kind == "text" else None
        return forms.CharField(required=spec.required, max_length=spec.max_length, widget=widget, strip=True, **common)
    return OptionalJSONField(required=False, widget=forms.Textarea(attrs={"rows": 3}), **common)


def structured_lists(specs: tuple[Field, ...]) -> tuple[Field, ...]:
    """Settings that are lists of records (catalogues, bestiary) or keyed maps (archetype modules, power
    tables): edited with their own structured editor, never as JSON."""
    return tuple(f for f in specs if (f.kind == "list" and f.item_fields) or f.keyed)


def add_rules_fields(form: forms.Form, specs: tuple[Field, ...], values: dict[str, Any], prefix: str) -> None:
    for spec in specs:
        form.fields[field_name(spec.path, prefix)] = build_rules_field(spec, get_path(values, spec.path))


def collect_rules_values(cleaned: dict[str, Any], specs: tuple[Field, ...], prefix: str) -> dict[str, Any]:
    """Nested dict from cleaned data; empty optional values are left out (system defaults apply)."""
    data: dict[str, Any] = {}
    for spec in specs:
        value = cleaned.get(field_name(spec.path, prefix))
        if value is None or (value == "" and spec.kind in ("choice", "int")):
            continue
        if value == "" and not spec.required and spec.kind in ("str", "text") and spec.default is None:
            continue
        set_path(data, spec.path, value)
    return data


def apply_errors(form: forms.Form, exc: ValidationError, labels: dict[str, str] | None = None) -> None:
    """Put a service's ``ValidationError`` on the form's fields (unknown keys: non-field).

    ``labels`` names the non-field keys by prefix (a setting edited on its own page): its label goes
    before the message, so the GM knows which list to open."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc.messages)
        return
    for key, errors in exc.message_dict.items():
        target = key if key in form.fields else None
        label = next((v for k, v in (labels or {}).items() if key == k or key.startswith(k + "__")), "")
        for message in errors:
            if target is None and label:
                message = _("%(list)s: %(message)s") % {"list": label, "message": message}
            form.add_error(target, message)


def attach_rules_refs(form: forms.Form, specs: tuple[Field, ...], prefix: str) -> None:
    """The GM's rules reference ("Texte source, ligne 406") on the fields
    built from ``specs``: call it only for a GM or co-GM (players never see
    seed line references). ``partials/rules_ref.html`` shows it."""
    lang = _lang()
    for spec in specs:
        field = form.fields.get(field_name(spec.path, prefix))
        text = reference_text(field_refs(spec))
        if field is not None and text is not None:
            field.rules_ref = text.get(lang)  # type: ignore[attr-defined]


class CampaignForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=120)
    pitch = forms.CharField(label=_("Pitch"), required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 4}))
    system = forms.ChoiceField(label=_("Rule system"), choices=())
    language = forms.ChoiceField(label=_("Language of the table"), choices=settings.LANGUAGES, initial="fr")
    is_public = forms.BooleanField(
        label=_("Public (anyone can read the campaign and its ordinary posts)"), required=False, initial=True
    )
    recruiting = forms.BooleanField(label=_("Recruiting (listed in the directory)"), required=False)

    def __init__(self, *args: Any, campaign: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = rules.system_choices(_lang())
        self.campaign = campaign
        if campaign is not None:
            # The system is fixed once characters exist: shown, not editable.
            del self.fields["system"]
            add_rules_fields(self, self._plain_specs(), campaign.system_settings, "system__")
            attach_rules_refs(self, self._plain_specs(), "system__")  # the settings page is the GMs'

    def _plain_specs(self) -> tuple[Field, ...]:
        specs = self.campaign.rule_system.campaign_settings_fields()
        lists = {f.path for f in structured_lists(specs)}
        return tuple(f for f in specs if f.path not in lists)

    def structured_lists(self) -> list[dict[str, Any]]:
        """The settings edited on their own page, with their current size."""
        if self.campaign is None:
            return []
        values = self.campaign.system_settings or {}
        lang = _lang()
        return [
            {"path": f.path, "label": f.label.get(lang), "count": len(values.get(f.path) or [])}
            for f in structured_lists(self.campaign.rule_system.campaign_settings_fields())
        ]

    def list_labels(self) -> dict[str, str]:
        """The error key prefix of each setting edited on its own page, with its label."""
        if self.campaign is None:
            return {}
        lang = _lang()
        return {
            field_name(f.path, "system__"): f.label.get(lang)
            for f in structured_lists(self.campaign.rule_system.campaign_settings_fields())
        }

    def system_values(self) -> dict[str, Any] | None:
        """The plain options posted, over the lists kept from the stored settings."""
        if self.campaign is None:
            return None
        stored = self.campaign.system_settings or {}
        kept = {
            f.path: stored[f.path]
            for f in structured_lists(self.campaign.rule_system.campaign_settings_fields())
            if f.path in stored
        }
        return {**kept, **collect_rules_values(self.cleaned_data, self._plain_specs(), "system__")}

    def basic_fields(self) -> list[Any]:
        return [
            self[name]
            for name in ("title", "pitch", "system", "language", "is_public", "recruiting")
            if name in self.fields
        ]

    def system_fields(self) -> list[Any]:
        return [self[name] for name in self.fields if name.startswith("system__")]


class DirectoryForm(forms.Form):
    system = forms.ChoiceField(label=_("Rule system"), required=False, choices=())
    language = forms.ChoiceField(label=_("Language"), required=False, choices=())
    recruiting = forms.BooleanField(label=_("Recruiting only"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = [("", _("All systems")), *rules.system_choices(_lang())]
        self.fields["language"].choices = [("", _("All languages")), *settings.LANGUAGES]


class BoardForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    kind = forms.ChoiceField(label=_("Kind"), choices=Board.Kind.choices, initial=Board.Kind.OTHER)


class RenameForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)


class InviteForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[(Role.PLAYER, _("player")), (Role.SPECTATOR, _("spectator")), (Role.COGM, _("co-GM"))],
        initial=Role.PLAYER,
    )


class JoinRequestForm(forms.Form):
    message = forms.CharField(
        label=_("Message to the GM"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )


class SessionForm(forms.Form):
    title = forms.CharField(label=_("Title of the session"), required=False, max_length=120)


class SearchForm(forms.Form):
    q = forms.CharField(label=_("Search the posts"), max_length=200, required=False)


class PostForm(forms.Form):
    """A post: text, voice (character), audience, rolls."""

    body = forms.CharField(
        label=_("Your post (Markdown)"),
        widget=forms.Textarea(attrs={"rows": 6}),
        strip=False,
        required=False,
    )
    character = forms.ChoiceField(label=_("Speaking as"), required=False, choices=())
    visibility = forms.ChoiceField(label=_("Who can read it"), choices=Post.Visibility.choices, initial="public")
    recipients = forms.MultipleChoiceField(
        label=_("Whisper to"), required=False, choices=(), widget=forms.CheckboxSelectMultiple
    )
    rolls = forms.CharField(
        label=_("Dice"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": _("2d6+3 Sword\n1d20")}),
        help_text=_("One roll per line: a dice expression, then an optional label."),
    )
    secret = forms.BooleanField(label=_("Secret rolls (you and the GMs only)"), required=False)
    sheet_character = forms.ChoiceField(label=_("Roll for character"), required=False, choices=())
    sheet_test = forms.ChoiceField(label=_("What to roll"), required=False, choices=())
    test_kind = forms.ChoiceField(label=_("Test typed in full (GM)"), required=False, choices=())
    test_character = forms.ChoiceField(label=_("Test for character"), required=False, choices=())
    test_label = forms.CharField(label=_("Label of the test"), required=False, max_length=200)
    reply_to = forms.IntegerField(required=False, widget=forms.HiddenInput)
    #: Filled by static/js/rolls.js with crypto.getRandomValues: the player's share of the dice.
    client_nonce = forms.CharField(
        required=False, max_length=128, widget=forms.HiddenInput(attrs={"data-roll-nonce": ""})
    )
    turn_for = forms.MultipleChoiceField(
        label=_("Tell them it is their turn"), required=False, choices=(), widget=forms.CheckboxSelectMultiple
    )

    def __init__(
        self,
        *args: Any,
        campaign: Any,
        characters: list[Any],
        members: list[tuple[int, str]],
        is_gm: bool,
        test_kind: str = "",
        sheet_characters: list[Any] = (),  # type: ignore[assignment]
        sheet_options: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.is_gm = is_gm
        self._init_sheet_test(list(sheet_characters), sheet_options)
        character_choices = [("", _("Out of character (yourself)")), *((str(c.pk), c.name) for c in characters)]
        self.fields["character"].choices = character_choices
        self.fields["test_character"].choices = [("", "—"), *((str(c.pk), c.name) for c in characters)]
        self.fields["recipients"].choices = [(str(pk), name) for pk, name in members]
        self.fields["turn_for"].choices = [(str(pk), name) for pk, name in members]
        if not is_gm:
            del self.fields["turn_for"]
        system = campaign.rule_system
        kinds = system.test_kinds() if is_gm else {}
        self.test_specs: tuple[Field, ...] = ()
        if kinds:
            labels = system.test_kind_labels()
            named = ((k, labels[k].get(_lang()) if k in labels else k.replace("_", " ")) for k in kinds)
            self.fields["test_kind"].choices = [("", _("No test")), *named]
            kind = test_kind or (self.data.get(self.add_prefix("test_kind")) if self.is_bound else "") or ""
            if kind in kinds:
                # No JSON text area in the form: list and object inputs are left to the API.
                self.test_specs = tuple(f for f in kinds[kind] if f.kind not in ("list", "dict"))
                add_rules_fields(self, self.test_specs, {}, "test__")
                attach_rules_refs(self, self.test_specs, "test__")  # tests typed in full are the GMs'
        else:
            for name in ("test_kind", "test_character"):
                del self.fields[name]
            if "sheet_character" not in self.fields:
                del self.fields["test_label"]

    #: Fields outside the "Dice and tests" section.
    MAIN_FIELDS = ("body", "character", "visibility", "recipients", "reply_to", "turn_for")

    def dice_has_errors(self) -> bool:
        """An error inside the (folded) "Dice and tests" section: it must open."""
        return any(name not in self.MAIN_FIELDS and name != "__all__" for name in self.errors)

    def error_summary(self) -> list[dict[str, str]]:
        """Every error with the field it belongs to, for the summary at the top of the form."""
        out = []
        for name, errors in self.errors.items():
            field = self.fields.get(name)
            target = self[name].auto_id if field is not None else ""
            for e in errors:
                out.append({"label": str(field.label) if field is not None else "", "message": e, "id": target})
        return out

    def test_fields(self) -> list[Any]:
        return [self[name] for name in self.fields if name.startswith("test__")]

    # ---- the test built from the sheet ------------------------------------
    def _init_sheet_test(self, characters: list[Any], options: Any) -> None:
        """Character, then what to roll from its sheet, then the inputs the caller may declare.

        ``options(character)`` answers the character's sheet tests (``rules.base.SheetTest``);
        a player is offered only the player inputs (the GM-only ones are refused anyway).
        """
        self.sheet_characters = {str(c.pk): c for c in characters}
        self.sheet_options: dict[str, Any] = {}
        self.sheet_chosen: Any = None
        self.declared_specs: tuple[Field, ...] = ()
        self.sheet_test_groups: list[tuple[str, list[tuple[str, str]]]] = []
        if not characters or options is None:
            for name in ("sheet_character", "sheet_test"):
                del self.fields[name]
            return
        lang = _lang()
        self.fields["sheet_character"].choices = [("", "—"), *((pk, c.name) for pk, c in self.sheet_characters.items())]
        chosen = self._value("sheet_character")
        if chosen not in self.sheet_characters and len(self.sheet_characters) == 1 and not self.is_bound:
            chosen = next(iter(self.sheet_characters))
            self.initial["sheet_character"] = chosen
        if chosen not in self.sheet_characters:
            return
        tests = options(self.sheet_characters[chosen])
        self.sheet_options = {t.key: t for t in tests}
        groups: dict[str, list[tuple[str, str]]] = {}
        for t in tests:
            label = t.label.get(lang)
            if t.impossible is not None:
                label = f"{label} — {t.impossible.get(lang)}"
            groups.setdefault(t.group.get(lang), []).append((t.key, label))
        self.sheet_test_groups = list(groups.items())
        self.fields["sheet_test"].choices = [("", _("Nothing from the sheet")), *groups.items()]
        key = self._value("sheet_test")
        test = self.sheet_options.get(key or "")
        if test is None:
            return
        self.sheet_chosen = test
        # Every declared input is parsed (a player's GM-only one reaches the service, which refuses it with
        # its message); a player is shown only the player inputs.
        self.declared_specs = tuple(test.declared)
        for spec in self.declared_specs:
            field = build_rules_field(spec)
            field.required = False
            if spec.audience == "gm":
                field.label = _("%(label)s (GM)") % {"label": field.label}
            self.fields[field_name(spec.path, "declared__")] = field
        if self.is_gm:
            attach_rules_refs(self, self.declared_specs, "declared__")

    def _value(self, name: str) -> str:
        if self.is_bound:
            return str(self.data.get(self.add_prefix(name)) or "")
        return str(self.initial.get(name) or "")

    def declared_inputs(self) -> list[Any]:
        shown = {field_name(f.path, "declared__") for f in self.declared_specs if self.is_gm or f.audience != "gm"}
        return [self[name] for name in self.fields if name in shown]

    def sheet_reads(self) -> list[dict[str, Any]]:
        """The sheet values the chosen test reads (label, value, where), for display."""
        lang = _lang()
        if self.sheet_chosen is None:
            return []
        return [{"label": r.label.get(lang), "value": r.value, "path": r.path} for r in self.sheet_chosen.reads]

    def sheet_request(self) -> dict[str, Any] | None:
        """``{"sheet_test": {"test", "declared"}, "character_id"}`` for the chosen sheet test, if any."""
        if self.sheet_chosen is None or not hasattr(self, "cleaned_data"):
            return None
        declared = collect_rules_values(self.cleaned_data, self.declared_specs, "declared__")
        declared = {k: v for k, v in declared.items() if not (v is False and _default_false(self.declared_specs, k))}
        return {
            "sheet_test": {"test": self.sheet_chosen.key, "declared": declared},
            "character_id": int(self.cleaned_data["sheet_character"]),
        }

    def roll_requests(self) -> list[dict[str, Any]]:
        """Roll requests for :func:`campaigns.services.create_post`."""
        secret = bool(self.cleaned_data.get("secret"))
        requests: list[dict[str, Any]] = []
        for line in (self.cleaned_data.get("rolls") or "").splitlines():
            line = line.strip()
            if not line:
                continue
            expression, _sep, label = line.partition(" ")
            requests.append({"expression": expression, "label": label.strip(), "secret": secret})
        sheet = self.sheet_request()
        if sheet is not None:
            sheet["secret"] = secret
            sheet["label"] = self.cleaned_data.get("test_label") or ""
            requests.append(sheet)
        kind = self.cleaned_data.get("test_kind")
        if kind:
            test = collect_rules_values(self.cleaned_data, self.test_specs, "test__")
            test["kind"] = kind
            request: dict[str, Any] = {
                "system_test": test,
                "secret": secret,
                "label": self.cleaned_data.get("test_label") or "",
            }
            if self.cleaned_data.get("test_character"):
                request["character_id"] = int(self.cleaned_data["test_character"])
            requests.append(request)
        return requests


def _default_false(specs: tuple[Field, ...], path: str) -> bool:
    """An unticked box whose default is "no" declares nothing (so a player's form never sends a GM value)."""
    return any(f.path == path and f.kind == "bool" and not f.default for f in specs)


class ThreadForm(forms.Form):
    title = forms.CharField(label=_("Title of the thread"), max_length=160)
    sticky = forms.BooleanField(label=_("Sticky"), required=False)
    locked = forms.BooleanField(label=_("Locked"), required=False)


class EditPostForm(forms.Form):
    body = forms.CharField(label=_("Your post (Markdown)"), widget=forms.Textarea(attrs={"rows": 8}), strip=False)
