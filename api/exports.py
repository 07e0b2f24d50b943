"""The API app's part of "my data": the member's tokens (name and prefix, never the secret)."""

from __future__ import annotations

from typing import Any

from api.models import ApiToken
from config.exporters import rows


def export_user_data(user: Any) -> dict[str, Any]:
    return {"api_tokens": rows(ApiToken.objects.filter(user=user), "name", "prefix", "created", "revoked_at")}
