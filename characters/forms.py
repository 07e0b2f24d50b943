"""Small Django forms of the characters app (the sheet itself is generic: see sheetform)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from characters.models import Character


class NewCharacterForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    is_npc = forms.BooleanField(label=_("Non-player character (NPC)"), required=False)
    public_description = forms.CharField(
        label=_("Public description"), required=False, max_length=10000, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args: Any, can_make_npc: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not can_make_npc:
            del self.fields["is_npc"]


class ProfileForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    public_description = forms.CharField(
        label=_("Public description"),
        required=False,
        max_length=10000,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Seen by every member of the campaign."),
    )
    private_background = forms.CharField(
        label=_("Private background"),
        required=False,
        max_length=20000,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_("Seen only by you and the GMs."),
    )
    version = forms.IntegerField(widget=forms.HiddenInput)


class PortraitForm(forms.Form):
    portrait = forms.FileField(
        label=_("Portrait"),
        widget=forms.ClearableFileInput(attrs={"accept": "image/*"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Formatted per request: at class level it would freeze in the language active at import.
        self.fields["portrait"].help_text = _(
            "JPEG, PNG, GIF or WebP, at most %(size)s KB; it is resized to 512 pixels."
        ) % {"size": settings.TABLEE_MAX_PORTRAIT_BYTES // 1024}


class CommentForm(forms.Form):
    body = forms.CharField(label=_("Comment"), max_length=5000, widget=forms.Textarea(attrs={"rows": 3}))


class ReviewForm(forms.Form):
    comment = forms.CharField(
        label=_("Comment for the player"), required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 3})
    )


class StatusForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Status"),
        choices=[
            (Character.Status.APPROVED, _("in play (approved)")),
            (Character.Status.RETIRED, _("retired")),
            (Character.Status.DEAD, _("dead")),
        ],
    )


class ImportForm(forms.Form):
    file = forms.FileField(label=_("Exported JSON file"), widget=forms.ClearableFileInput(attrs={"accept": ".json"}))


class CompareForm(forms.Form):
    a = forms.IntegerField(label=_("From version"), min_value=1)
    b = forms.IntegerField(label=_("To version"), min_value=1)
