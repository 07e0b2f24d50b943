"""Memberships: roles, handing over, leaving, removing a member."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import (
    Campaign,
    Membership,
    Role,
)
from campaigns.services.common import _require_gm, _require_main_gm


def set_member_role(user: Any, campaign: Campaign, member: Any, *, role: str) -> Membership:
    """The GM appoints co-GMs and changes players/spectators (not the GM role: see :func:`hand_over`)."""
    _require_main_gm(user, campaign)
    if role not in (Role.COGM, Role.PLAYER, Role.SPECTATOR):
        raise ValidationError({"role": [_("Choose co-GM, player or spectator.")]})
    membership = Membership.objects.filter(campaign=campaign, user=member).first()
    if membership is None:
        raise ValidationError({"user": [_("This person is not a member of the campaign.")]})
    if membership.role == Role.GM:
        raise ValidationError({"user": [_("Hand the campaign over instead.")]})
    with transaction.atomic():
        membership.role = role
        membership.save(update_fields=["role"])
    campaign.__dict__.pop("_role_cache", None)
    return membership


def hand_over(user: Any, campaign: Campaign, new_gm: Any) -> Campaign:
    """The GM hands the campaign over to another member, and becomes a co-GM."""
    _require_main_gm(user, campaign)
    target = Membership.objects.filter(campaign=campaign, user=new_gm).first()
    if target is None or new_gm.pk == user.pk:
        raise ValidationError({"user": [_("Choose another member of the campaign.")]})
    with transaction.atomic():
        Membership.objects.filter(campaign=campaign, user=user).update(role=Role.COGM)
        Membership.objects.filter(pk=target.pk).update(role=Role.GM)
    campaign.__dict__.pop("_role_cache", None)
    return campaign


def _add_member(campaign: Campaign, user: Any, role: str) -> Membership:
    membership, _created = Membership.objects.get_or_create(campaign=campaign, user=user, defaults={"role": role})
    campaign.__dict__.pop("_role_cache", None)
    return membership


def leave_campaign(user: Any, campaign: Campaign) -> None:
    """A member leaves (their posts stay). The GM must hand over first."""
    role = access.role_of(user, campaign)
    if role is None:
        raise Http404
    if role == Role.GM:
        raise ValidationError({"__all__": [_("Hand the campaign over before leaving it.")]})
    Membership.objects.filter(campaign=campaign, user=user).delete()
    campaign.__dict__.pop("_role_cache", None)


def remove_member(user: Any, campaign: Campaign, member: Any) -> None:
    """The GM (or a co-GM, for players and spectators) removes a member; their posts stay."""
    _require_gm(user, campaign)
    role = access.role_of(member, campaign)
    if role is None:
        raise ValidationError({"user": [_("This person is not a member of the campaign.")]})
    if role == Role.GM:
        raise PermissionDenied(_("The GM cannot be removed."))
    if role == Role.COGM and access.role_of(user, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))
    Membership.objects.filter(campaign=campaign, user=member).delete()
    campaign.__dict__.pop("_role_cache", None)
