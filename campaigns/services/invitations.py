"""Invitations, the invitation link and join requests."""

from __future__ import annotations

import secrets
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import (
    Campaign,
    Invitation,
    JoinRequest,
    Membership,
    Notification,
    Role,
)
from campaigns.services.common import User, _require_gm
from campaigns.services.members import _add_member
from campaigns.services.notifications import _notify


def invite_member(user: Any, campaign: Campaign, *, username: str, role: str = Role.PLAYER) -> Invitation:
    """The GM or a co-GM invites a member by username (they accept or decline)."""
    _require_gm(user, campaign)
    if role not in (Role.PLAYER, Role.SPECTATOR, Role.COGM):
        raise ValidationError({"role": [_("Choose player, spectator or co-GM.")]})
    if role == Role.COGM and access.role_of(user, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))
    invitee = User.objects.filter(username__iexact=(username or "").strip().lstrip("@"), is_active=True).first()
    if invitee is None:
        raise ValidationError({"username": [_("No member has this username.")]})
    if access.role_of(invitee, campaign) is not None:
        raise ValidationError({"username": [_("This person is already a member.")]})
    with transaction.atomic():
        invitation = Invitation.objects.filter(
            campaign=campaign, user=invitee, status=Invitation.Status.PENDING
        ).first()
        if invitation is None:
            invitation = Invitation.objects.create(campaign=campaign, user=invitee, role=role, invited_by=user)
            _notify(invitee, Notification.Kind.INVITATION, campaign, actor=user, text=campaign.title)
    return invitation


def answer_invitation(user: Any, invitation: Invitation, *, accept: bool) -> Membership | None:
    """The invitee accepts or declines."""
    if invitation.user_id != getattr(user, "pk", None) or invitation.status != Invitation.Status.PENDING:
        raise Http404
    with transaction.atomic():
        invitation.status = Invitation.Status.ACCEPTED if accept else Invitation.Status.DECLINED
        invitation.save(update_fields=["status"])
        if not accept:
            return None
        return _add_member(invitation.campaign, user, invitation.role)


def cancel_invitation(user: Any, invitation: Invitation) -> None:
    _require_gm(user, invitation.campaign)
    Invitation.objects.filter(pk=invitation.pk, status=Invitation.Status.PENDING).update(
        status=Invitation.Status.CANCELLED
    )


def reset_invite_link(user: Any, campaign: Campaign) -> str:
    """A new invitation link (the old one stops working)."""
    _require_gm(user, campaign)
    campaign.invite_token = secrets.token_urlsafe(24)
    campaign.save(update_fields=["invite_token"])
    return campaign.invite_token


def join_by_link(user: Any, campaign: Campaign, token: str) -> Membership:
    """Join as a player with the campaign's invitation link."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied
    if not campaign.invite_token or not secrets.compare_digest(campaign.invite_token.encode(), (token or "").encode()):
        raise Http404
    with transaction.atomic():
        return _add_member(campaign, user, Role.PLAYER)


def request_to_join(user: Any, campaign: Campaign, *, message: str = "") -> JoinRequest:
    """A member asks to join a public recruiting campaign."""
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if user is None or not user.is_authenticated:
        raise PermissionDenied
    if access.role_of(user, campaign) is not None:
        raise ValidationError({"message": [_("You are already a member.")]})
    if not campaign.recruiting:
        raise ValidationError({"message": [_("This campaign is not recruiting.")]})
    if len(message or "") > 2000:
        raise ValidationError({"message": [_("At most 2000 characters.")]})
    with transaction.atomic():
        existing = JoinRequest.objects.filter(campaign=campaign, user=user, status=JoinRequest.Status.PENDING).first()
        if existing:
            return existing
        join = JoinRequest.objects.create(campaign=campaign, user=user, message=(message or "").strip())
        for gm_id in Membership.objects.filter(campaign=campaign, role__in=access.GM_ROLES).values_list(
            "user_id", flat=True
        ):
            _notify(User(pk=gm_id), Notification.Kind.JOIN_REQUEST, campaign, actor=user, text=campaign.title)
    return join


def decide_join_request(user: Any, join: JoinRequest, *, accept: bool, role: str = Role.PLAYER) -> Membership | None:
    """The GM or a co-GM accepts (as player or spectator) or refuses a join request."""
    _require_gm(user, join.campaign)
    if join.status != JoinRequest.Status.PENDING:
        raise ValidationError({"status": [_("This request has already been answered.")]})
    if role not in (Role.PLAYER, Role.SPECTATOR):
        raise ValidationError({"role": [_("Choose player or spectator.")]})
    with transaction.atomic():
        join.status = JoinRequest.Status.ACCEPTED if accept else JoinRequest.Status.REFUSED
        join.decided_by = user
        join.decided_at = timezone.now()
        join.save(update_fields=["status", "decided_by", "decided_at"])
        return _add_member(join.campaign, join.user, role) if accept else None
