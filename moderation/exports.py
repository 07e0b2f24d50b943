"""The moderation app's part of "my data": the reports the member filed and their suspensions."""

from __future__ import annotations

from typing import Any

from config.exporters import rows
from moderation.models import Report, Suspension


def export_user_data(user: Any) -> dict[str, Any]:
    return {
        "reports_filed": rows(
            Report.objects.filter(reporter=user), "kind", "target_label", "reason", "details", "status", "created"
        ),
        "suspensions": rows(Suspension.objects.filter(user=user), "until", "reason", "created", "lifted_at"),
    }
