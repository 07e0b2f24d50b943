from __future__ import annotations

from django import forms

from accounts.models import Profile


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["display_name", "language", "bio"]
        widgets = {"bio": forms.Textarea(attrs={"rows": 4})}
