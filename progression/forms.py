"""Forms built from the rules' field declarations (purchases)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from config import jsonlimits
from progression.services import GM_PURCHASE_FIELDS
from rules.base import Field, Msg, set_path

#: Filled by the server, never typed by the player.
SERVER_FIELDS = {"already_bought"}
#: The GM's own say in a purchase (Altaride "Confirmé par le MJ", "Dérogation spéciale (MJ)"):
#: shown to GMs only; the service drops them from a player's request.
GM_FIELDS = GM_PURCHASE_FIELDS
#: Kinds entered in one input.
SCALAR_KINDS = ("int", "str", "text", "bool", "choice")
#: Rows offered for a list inside a described item, and the row size above which one row is offered.
LIST_ROWS = 3
ROW_INPUTS = 6


def form_field(f: Field, lang: str) -> forms.Field:
    label = f.label.get(lang)
    help_text = f.help.get(lang) if f.help else ""
    common: dict[str, Any] = {"label": label, "help_text": help_text, "required": f.required}
    if f.kind == "int":
        return forms.IntegerField(min_value=f.minimum, max_value=f.maximum, initial=f.default, **common)
    if f.kind == "bool":
        common["required"] = False
        return forms.BooleanField(initial=bool(f.default), **common)
    if f.kind == "choice":
        choices = [(value, text.get(lang)) for value, text in f.choices]
        if not f.required and f.default is None and "" not in {v for v, _ in choices}:
            choices = [("", "—"), *choices]  # may be left unset
        return forms.ChoiceField(choices=choices, initial=f.default, **common)
    if f.kind in ("list", "dict"):
        return JSONField(
            initial=json.dumps(f.default if f.default is not None else ({} if f.kind == "dict" else [])),
            expect=f.kind,
            **common,
        )
    widget = forms.Textarea(attrs={"rows": 3}) if f.kind == "text" else None
    return forms.CharField(max_length=f.max_length, initial=f.default or "", widget=widget, **common)


class JSONField(forms.CharField):
    def __init__(self, *, expect: str, **kwargs: Any) -> None:
        self.expect = expect
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Any:
        value = super().to_python(value)
        if value in ("", None):
            return {} if self.expect == "dict" else []
        try:
            data = jsonlimits.loads(value)
        except ValueError as exc:
            raise forms.ValidationError(_("Enter valid JSON.")) from exc
        if not isinstance(data, dict if self.expect == "dict" else list):
            raise forms.ValidationError(_("Enter an object.") if self.expect == "dict" else _("Enter a list."))
        return data


def _item_name(item: Any, index: int) -> str:
    if isinstance(item, dict):
        for key in ("name", "title", "key"):
            if isinstance(item.get(key), str) and item[key]:
                return item[key]
    return str(index + 1)


class PurchaseForm(forms.Form):
    """One purchase kind's fields; ``request()`` returns the nested request dict."""

    def __init__(
        self,
        kind: str,
        fields: tuple[Field, ...],
        *args: Any,
        gm: bool = False,
        sheet: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.kind = kind
        hidden = SERVER_FIELDS if gm else SERVER_FIELDS | GM_FIELDS
        lang = get_language() or "fr"
        #: Rows of a list inside a described item (an artefact's transfers): path -> (row count, item fields).
        self.item_lists: dict[str, tuple[int, tuple[Field, ...]]] = {}
        self.rule_fields = []
        for f in fields:
            if f.path in hidden:
                continue
            if f.kind == "dict" and f.item_fields:
                # The thing bought described with its own labelled inputs (as on the sheet), never JSON.
                self.rule_fields += self._item_inputs(f, lang)
            else:
                self.rule_fields.append(f)
        for f in self.rule_fields:
            if f.path in self.fields:
                continue
            self.fields[f.path] = form_field(f, lang)
            if f.item_of:  # the thing bought by its name ("Vision nocturne"), never its index
                items = (sheet or {}).get(f.item_of) or []
                choices = [(i, _item_name(item, i)) for i, item in enumerate(items)]
                self.fields[f.path] = forms.TypedChoiceField(
                    label=f.label.get(lang),
                    choices=[("", "—"), *choices],
                    coerce=int,
                    required=f.required,
                    help_text=f.help.get(lang) if f.help else "",
                )

    def _item_inputs(self, item: Field, lang: str) -> list[Field]:
        """The inputs of a described item: its own fields, and a few rows of each list it holds
        (one row when a row has many inputs); a row left blank is not sent."""
        out: list[Field] = []
        for sub in item.item_fields:
            path = f"{item.path}.{sub.path}"
            if sub.kind in SCALAR_KINDS:
                # A purchase names the thing bought (#23): the form asks for its name.
                out.append(replace(sub, path=path, required=sub.required or sub.path == "name"))
            elif sub.kind == "list" and sub.item_fields:
                rows = 1 if len(sub.item_fields) > ROW_INPUTS else min(sub.max_items or LIST_ROWS, LIST_ROWS)
                self.item_lists[path] = (rows, sub.item_fields)
                for i in range(rows):
                    for cell in sub.item_fields:
                        if cell.kind not in SCALAR_KINDS:
                            continue
                        label = Msg(
                            f"{sub.label.fr} {i + 1} — {cell.label.fr}", f"{sub.label.en} {i + 1} — {cell.label.en}"
                        )
                        out.append(
                            replace(cell, path=f"{path}.{i}.{cell.path}", label=label, required=False, default=None)
                        )
        return out

    def request(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        rows: dict[str, dict[int, dict[str, Any]]] = {}
        for f in self.rule_fields:
            value = self.cleaned_data.get(f.path)
            row_of = next((p for p in self.item_lists if f.path.startswith(p + ".")), None)
            if row_of is not None:
                index, _, cell = f.path[len(row_of) + 1 :].partition(".")
                if value not in (None, "", False):
                    set_path(rows.setdefault(row_of, {}).setdefault(int(index), {}), cell, value)
                continue
            if (value is None or (value == "" and f.kind == "choice")) and not f.required:
                continue
            set_path(data, f.path, value)
        for path in self.item_lists:
            set_path(data, path, [row for _, row in sorted(rows.get(path, {}).items())])
        return data

    def add_rule_errors(self, errors: dict[str, list[str]]) -> None:
        for path, messages in errors.items():
            target = path if path in self.fields else None
            for message in messages:
                self.add_error(target, message)


class DecisionForm(forms.Form):
    comment = forms.CharField(label=_("Comment"), max_length=500, required=False)
