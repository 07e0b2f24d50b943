"""Notifications (campaigns owns them): who is told, as each member wants it delivered.

Creating a notification is the campaigns app's (it owns :class:`~campaigns.models.Notification`),
so every app may tell a member something with :func:`notify`, whatever its layer. How each
member wants each kind delivered (in the site, by e-mail at once, in the digest, off) is a
policy registered by a higher app (``rhythm``, which keeps the members' choices and sends the
e-mails) with :func:`register_delivery_policy` in its ``AppConfig.ready()``; without one,
everything is delivered in the site.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse

from campaigns.models import Campaign, Membership, Notification, Role
from live.events import publish

#: The deliveries a policy answers (``rhythm.models.Delivery`` names them for members).
APP, EMAIL, DIGEST, OFF = "app", "email", "digest", "off"


class DeliveryPolicy(Protocol):
    """How members want their notifications delivered."""

    def delivery(self, user_id: int, kind: str) -> str | None:
        """The member's choice for this kind (``APP``, ``EMAIL``, ``DIGEST``, ``OFF``), or ``None``."""

    def send_email(self, notification_id: int) -> None:
        """Send one notification by e-mail now (called after the commit)."""

    def digest_user_ids(self) -> Iterable[int]:
        """Members who send at least one kind to the e-mail digest."""

    def digest_kinds(self, user_id: int) -> Any:
        """The kinds this member sends to the digest (an iterable or a ``values("kind")`` queryset)."""


class InSite:
    """Without a registered policy: every notification in the site, none by e-mail."""

    def delivery(self, user_id: int, kind: str) -> str | None:
        return None

    def send_email(self, notification_id: int) -> None:
        return None

    def digest_user_ids(self) -> Iterable[int]:
        return ()

    def digest_kinds(self, user_id: int) -> Any:
        return ()


_policy: DeliveryPolicy = InSite()


def register_delivery_policy(policy: DeliveryPolicy) -> None:
    global _policy
    _policy = policy


def delivery_policy() -> DeliveryPolicy:
    return _policy


def notify(
    kind: str,
    user_ids: list[int] | set[int],
    campaign: Campaign,
    *,
    actor: Any = None,
    thread: Any = None,
    post: Any = None,
    text: str = "",
    url: str = "",
) -> list[Notification]:
    """Notify members of one step of the loop, as each chose for this kind (in-app, e-mail, digest, off).

    The actor is never told of their own action. Call it inside the writing
    transaction: the rows roll back with it, e-mails leave on commit.
    """
    policy = delivery_policy()
    created = []
    for pk in sorted(set(user_ids)):
        if actor is not None and pk == getattr(actor, "pk", None):
            continue
        delivery = policy.delivery(pk, kind)
        if delivery == OFF:
            continue
        item = Notification.objects.create(
            user_id=pk,
            kind=kind,
            campaign=campaign,
            actor=actor if getattr(actor, "pk", None) else None,
            thread=thread,
            post=post,
            text=(text or "")[:300],
            url=url[:300],
            # In the site; the e-mail digest also carries it when the member
            # turned the digest on (or chose "digest" for this kind).
        )
        created.append(item)
        publish(f"user:{pk}", "notification", {"kind": kind}, users=[pk], gms=False)
        if delivery == EMAIL:
            transaction.on_commit(lambda item_id=item.pk: policy.send_email(item_id))
    return created


def gm_ids(campaign: Campaign) -> list[int]:
    return list(
        Membership.objects.filter(campaign=campaign, role__in=[Role.GM, Role.COGM]).values_list("user_id", flat=True)
    )


def member_ids(campaign: Campaign, *, players_only: bool = False) -> list[int]:
    roles = [Role.PLAYER] if players_only else [Role.GM, Role.COGM, Role.PLAYER, Role.SPECTATOR]
    return list(Membership.objects.filter(campaign=campaign, role__in=roles).values_list("user_id", flat=True))


def session_changed(actor: Any, session: Any, *, opened: bool) -> None:
    """A play session opened or closed: every member is told (the actor excepted)."""
    campaign = session.campaign
    notify(
        Notification.Kind.SESSION_OPENED if opened else Notification.Kind.SESSION_CLOSED,
        member_ids(campaign),
        campaign,
        actor=actor,
        text=session.title or campaign.title,
        url=reverse("campaigns:sessions", args=[campaign.slug]),
    )


def unread_count(now: Any = None) -> Coalesce:
    """The unread notifications of the member of the outer query (``OuterRef("pk")``): annotated by
    :func:`config.auth.load_user` as ``tablee_unread`` (registered in ``CampaignsConfig.ready()``;
    the time of the request, ``now``, does not count here)."""
    unread = (
        Notification.objects.filter(user_id=OuterRef("pk"), read_at__isnull=True)
        .order_by()
        .values("user_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    return Coalesce(Subquery(unread, output_field=IntegerField()), Value(0))
