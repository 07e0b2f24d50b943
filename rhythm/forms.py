from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.templatetags.campaigns_tags import member_name
from rhythm import kinds
from rhythm.models import DeadlineAction, Delivery, SceneMode


class SceneForm(forms.Form):
    mode = forms.ChoiceField(label=_("Posting order"), choices=SceneMode.choices)
    order = forms.CharField(
        label=_("Order of the players"),
        required=False,
        widget=forms.HiddenInput,
    )
    use_initiative = forms.BooleanField(label=_("Follow the initiative of the scene's encounter"), required=False)
    deadline_hours = forms.IntegerField(
        label=_("Posting deadline (hours)"),
        required=False,
        min_value=1,
        max_value=24 * 60,
        help_text=_("Leave empty for no deadline."),
    )
    on_deadline = forms.ChoiceField(label=_("When the deadline passes"), choices=DeadlineAction.choices)

    def __init__(self, *args: Any, players: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = players
        for player in players:
            self.fields[f"pos_{player.pk}"] = forms.IntegerField(
                label=member_name(player), required=False, min_value=1, max_value=99
            )

    def ordered_ids(self) -> list[int]:
        """Players with a position, sorted by it (empty: everyone, in joining order)."""
        placed = [
            (self.cleaned_data.get(f"pos_{p.pk}"), p.pk) for p in self.players if self.cleaned_data.get(f"pos_{p.pk}")
        ]
        return [pk for _pos, pk in sorted(placed)]


class AbsenceForm(forms.Form):
    starts = forms.DateField(label=_("From"), widget=forms.DateInput(attrs={"type": "date"}))
    ends = forms.DateField(label=_("To"), widget=forms.DateInput(attrs={"type": "date"}))
    campaign = forms.ChoiceField(label=_("For"), required=False)
    message = forms.CharField(label=_("Message (optional)"), required=False, max_length=300)

    def __init__(self, *args: Any, campaigns: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaigns = {str(c.pk): c for c in campaigns}
        self.fields["campaign"].choices = [("", _("all my tables"))] + [(str(c.pk), c.title) for c in campaigns]

    def clean_campaign(self) -> Any:
        value = self.cleaned_data.get("campaign") or ""
        if value and value not in self.campaigns:
            raise forms.ValidationError(_("Choose one of your tables."))
        return self.campaigns.get(value)


class PreferencesForm(forms.Form):
    timezone = forms.CharField(
        label=_("Time zone"),
        required=False,
        max_length=64,
        help_text=_("For example Europe/Paris. Detected by your browser on your first visit."),
    )
    quiet_start = forms.IntegerField(label=_("Quiet hours from"), required=False, min_value=0, max_value=23)
    quiet_end = forms.IntegerField(label=_("Quiet hours until"), required=False, min_value=0, max_value=23)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind, label in kinds.LABELS.items():
            self.fields[f"kind_{kind}"] = forms.ChoiceField(label=label, choices=Delivery.choices)

    def kind_fields(self) -> list[Any]:
        return [self[f"kind_{kind}"] for kind in kinds.LABELS]

    def choices(self) -> dict[str, str]:
        return {kind: self.cleaned_data[f"kind_{kind}"] for kind in kinds.LABELS}
