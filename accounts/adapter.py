from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.http import HttpRequest
from django.utils import translation


class AccountAdapter(DefaultAccountAdapter):
    """Store the interface language chosen before sign-up on the profile."""

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        user = super().save_user(request, user, form, commit=commit)
        if commit:
            language = translation.get_language() or "fr"
            profile = user.profile
            profile.language = "en" if language.startswith("en") else "fr"
            profile.save(update_fields=["language"])
        return user
