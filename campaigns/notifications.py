"""Notifications: the header's unread count (annotated on the member each request loads)."""

from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from campaigns.models import Notification


def unread_count() -> Coalesce:
    """The unread notifications of the member of the outer query (``OuterRef("pk")``): annotated by
    :func:`config.auth.load_user` as ``tablee_unread`` (registered in ``CampaignsConfig.ready()``)."""
    unread = (
        Notification.objects.filter(user_id=OuterRef("pk"), read_at__isnull=True)
        .order_by()
        .values("user_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    return Coalesce(Subquery(unread, output_field=IntegerField()), Value(0))
