"""The accounts app's part of "my data": the account, its profile and its e-mail addresses."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress

from config.exporters import iso, rows


def export_user_data(user: Any) -> dict[str, Any]:
    profile = getattr(user, "profile", None)
    return {
        "account": {
            "username": user.get_username(),
            "email": user.email,
            "date_joined": iso(user.date_joined),
            "last_login": iso(user.last_login),
            "display_name": getattr(profile, "display_name", ""),
            "language": getattr(profile, "language", ""),
            "bio": getattr(profile, "bio", ""),
        },
        "emails": rows(EmailAddress.objects.filter(user=user), "email", "verified", "primary"),
    }
