"""Authentication backends that load the member with what every page asks of them.

Each request of a logged-in member used to cost five queries before the view
ran: the user, the profile (language), the active suspension, two permission
queries (is the reader a moderator?) and the unread-notification count of the
header. :func:`load_user` fetches all of it in one query (``select_related``
plus ``EXISTS``/``COUNT`` subqueries), built and compiled once per process
(:mod:`config.prepared`: only the member's id and the time change); :func:`campaigns.access.is_moderator`,
the suspension middleware and the header badge read the annotations when they
are there and fall back to their own query otherwise.

This infrastructure module names no app: the moderator flag comes from
Django's permission tables; the apps that own the other facts register them
with :func:`register_user_annotation` in their ``AppConfig.ready()``
(``campaigns``: ``tablee_unread``; ``moderation``: ``tablee_suspended``).
The backends keep their dotted paths (``config.auth.ModelBackend``...), which
open sessions store.

The stock backends stay listed after these in ``AUTHENTICATION_BACKENDS`` so
sessions opened before an upgrade keep working.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth import backends, get_user_model
from django.contrib.auth.models import Group, Permission
from django.db.models import Exists, OuterRef
from django.utils import timezone

from config.prepared import PreparedQuery

MODERATE = {"codename": "moderate", "content_type__app_label": "campaigns"}

#: Annotation name -> a function building its expression (over ``OuterRef("pk")``, the member)
#: from the time of the request (``now``: an expression reads the clock only through it).
_annotations: dict[str, Callable[[datetime.datetime], Any]] = {}


def register_user_annotation(name: str, expression: Callable[[datetime.datetime], Any]) -> None:
    """Annotate ``name`` on the member each request loads (one query for all of them).

    ``expression(now)`` must give a query of the same shape whatever ``now`` is (the query is
    compiled once per process, :mod:`config.prepared`)."""
    _annotations[name] = expression
    _LOAD.reset()  # a new shape: compile again


def moderate_perm(user_field: str = "pk") -> Any:
    """Whether the user ``user_field`` names (of the outer query) holds the moderation permission,
    directly or through a group (the flag :func:`campaigns.access.is_moderator` reads)."""
    User = get_user_model()
    permission = Permission.objects.filter(**MODERATE).values("pk")
    direct = User.user_permissions.through.objects.filter(user_id=OuterRef(user_field), permission_id__in=permission)
    by_group = Group.permissions.through.objects.filter(
        group_id__in=User.groups.through.objects.filter(user_id=OuterRef(OuterRef(user_field))).values("group_id"),
        permission_id__in=permission,
    )
    return Exists(direct) | Exists(by_group)


def _member_query(user_id: Any, now: datetime.datetime) -> Any:
    User = get_user_model()
    annotations = {name: build(now) for name, build in _annotations.items()}
    return (
        User._default_manager.select_related("profile")
        .annotate(tablee_moderate_perm=moderate_perm(), **annotations)
        .filter(pk=user_id)
    )


_PROBES = {
    "user_id": (710_000_001, 720_000_002),
    "now": (
        datetime.datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=datetime.UTC),
        datetime.datetime(2002, 3, 4, 5, 6, 7, 8, tzinfo=datetime.UTC),
    ),
}
_LOAD = PreparedQuery(_member_query, _PROBES)


def load_user(user_id: Any) -> Any:
    """The member with their profile and every registered annotation, in one query compiled once."""
    try:
        user_id = int(user_id)
    except (TypeError, ValueError):
        return None  # not an id (a tampered session): nobody
    return _LOAD.first(user_id=user_id, now=timezone.now())


class _LoadsUser:
    def get_user(self, user_id: Any) -> Any:
        user = load_user(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None  # type: ignore[attr-defined]


class ModelBackend(_LoadsUser, backends.ModelBackend):
    """Django's backend, loading the member in one query."""


class AuthenticationBackend(_LoadsUser, AllauthBackend):
    """allauth's backend (login by username or e-mail), loading the member in one query."""
