"""Writes on accounts (one function per user-visible write)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts.models import Profile


@transaction.atomic
def update_profile(user: Any, *, display_name: str, language: str, bio: str = "") -> Profile:
    profile = Profile.objects.select_for_update().get(user=user)
    profile.display_name = display_name.strip()
    profile.language = language
    profile.bio = bio
    profile.save(update_fields=["display_name", "language", "bio"])
    return profile
