"""Who may see and change what in a campaign (see shared DESIGN.md).

Every view starts with one of these helpers. What a user may not see answers
404, never 403, so private campaigns do not leak their existence.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404

from campaigns.models import Campaign, Membership, Role

GM_ROLES = frozenset({Role.GM, Role.COGM})
MEMBER_ROLES = frozenset({Role.GM, Role.COGM, Role.PLAYER, Role.SPECTATOR})


def is_moderator(user: Any) -> bool:
    """Site staff: moderators and admins."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and (user.is_superuser or user.is_staff or user.has_perm("campaigns.moderate"))
    )


def role_of(user: Any, campaign: Campaign) -> str | None:
    """The user's role in the campaign, or ``None``. Cached on the campaign."""
    if user is None or not user.is_authenticated:
        return None
    cache: dict[int, str | None] = campaign.__dict__.setdefault("_role_cache", {})
    if user.pk not in cache:
        cache[user.pk] = Membership.objects.filter(campaign=campaign, user=user).values_list("role", flat=True).first()
    return cache[user.pk]


def is_gm(user: Any, campaign: Campaign) -> bool:
    """GM or co-GM of the campaign."""
    return role_of(user, campaign) in GM_ROLES


def is_member(user: Any, campaign: Campaign) -> bool:
    """Spectator and up."""
    return role_of(user, campaign) in MEMBER_ROLES


def can_view_campaign(user: Any, campaign: Campaign) -> bool:
    """Public campaigns are seen by everyone; private ones by members and moderators."""
    return campaign.is_public or is_member(user, campaign) or is_moderator(user)


def can_read_forum(user: Any, campaign: Campaign) -> bool:
    """Ordinary posts: campaign members; public campaigns: everyone."""
    return can_view_campaign(user, campaign)


def get_campaign_for_user(user: Any, campaign_id: int | str, *, write: bool = False) -> Campaign:
    """Return the campaign if the user may see it (``write``: change it), else 404.

    ``campaign_id`` may be the primary key or the slug.
    """
    lookup = {"pk": campaign_id} if str(campaign_id).isdigit() else {"slug": campaign_id}
    campaign = Campaign.objects.filter(**lookup).first()
    if campaign is None or not can_view_campaign(user, campaign):
        raise Http404
    if write and not is_gm(user, campaign):
        raise Http404
    return campaign
