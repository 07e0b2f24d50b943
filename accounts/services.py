"""Writes on accounts (one function per user-visible write)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import Profile


@transaction.atomic
def update_profile(user: Any, *, display_name: str, language: str, bio: str = "") -> Profile:
    profile = Profile.objects.select_for_update().get(user=user)
    profile.display_name = display_name.strip()
    profile.language = language
    profile.bio = bio
    profile.save(update_fields=["display_name", "language", "bio"])
    return profile


@transaction.atomic
def set_language(user: Any, language: str) -> Profile:
    """Remember the interface language chosen from the menu (langue de l'interface)."""
    if language not in dict(settings.LANGUAGES):
        raise ValidationError({"language": _("Unknown language.")})
    profile = Profile.objects.select_for_update().get(user=user)
    if profile.language != language:
        profile.language = language
        profile.save(update_fields=["language"])
    return profile
