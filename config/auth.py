"""Authentication backends that load the member with what every page asks of them.

Each request of a logged-in member used to cost five queries before the view
ran: the user, the profile (language), the active suspension, two permission
queries (is the reader a moderator?) and the unread-notification count of the
header. :func:`load_user` fetches all of it in one query (``select_related``
plus ``EXISTS``/``COUNT`` subqueries); :func:`campaigns.access.is_moderator`,
the suspension middleware and the header badge read the annotations when they
are there and fall back to their own query otherwise.

The stock backends stay listed after these in ``AUTHENTICATION_BACKENDS`` so
sessions opened before an upgrade keep working.
"""

from __future__ import annotations

from typing import Any

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth import backends, get_user_model
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

MODERATE = {"codename": "moderate", "content_type__app_label": "campaigns"}


def load_user(user_id: Any) -> Any:
    from django.contrib.auth.models import Group, Permission

    from campaigns.models import Notification
    from moderation.models import Suspension

    User = get_user_model()
    now = timezone.now()
    permission = Permission.objects.filter(**MODERATE).values("pk")
    suspended = Suspension.objects.filter(user_id=OuterRef("pk"), lifted_at__isnull=True).filter(
        Q(until__isnull=True) | Q(until__gt=now)
    )
    direct = User.user_permissions.through.objects.filter(user_id=OuterRef("pk"), permission_id__in=permission)
    by_group = Group.permissions.through.objects.filter(
        group_id__in=User.groups.through.objects.filter(user_id=OuterRef(OuterRef("pk"))).values("group_id"),
        permission_id__in=permission,
    )
    unread = (
        Notification.objects.filter(user_id=OuterRef("pk"), read_at__isnull=True)
        .order_by()
        .values("user_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        User._default_manager.select_related("profile")
        .annotate(
            tablee_suspended=Exists(suspended),
            tablee_moderate_perm=Exists(direct) | Exists(by_group),
            tablee_unread=Coalesce(Subquery(unread, output_field=IntegerField()), Value(0)),
        )
        .filter(pk=user_id)
        .first()
    )


class _LoadsUser:
    def get_user(self, user_id: Any) -> Any:
        user = load_user(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None  # type: ignore[attr-defined]


class ModelBackend(_LoadsUser, backends.ModelBackend):
    """Django's backend, loading the member in one query."""


class AuthenticationBackend(_LoadsUser, AllauthBackend):
    """allauth's backend (login by username or e-mail), loading the member in one query."""
