"""The GM's form to open the attribute auction."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.models import Character


class AuctionOpenForm(forms.Form):
    characters = forms.ModelMultipleChoiceField(
        label=_("Starting characters"), queryset=Character.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    mode = forms.ChoiceField(
        label=_("Mode"),
        choices=[("open", _("open (everyone sees the high bid)")), ("blind", _("blind (sealed bids)"))],
        initial="open",
    )
    timeout_seconds = forms.IntegerField(
        label=_("Timeout per attribute (seconds)"),
        required=False,
        min_value=0,
        max_value=7 * 24 * 3600,
        help_text=_("When no bid comes in this time, the attribute closes. Empty: no timeout."),
    )

    def __init__(self, *args: Any, campaign: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        qs = Character.objects.filter(campaign=campaign, is_npc=False).exclude(
            status__in=[Character.Status.RETIRED, Character.Status.DEAD]
        )
        self.fields["characters"].queryset = qs
        self.fields["characters"].initial = list(qs)
