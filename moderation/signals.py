"""Table bans are enforced where memberships, invitations and join requests
are created (whatever service creates them): a banned user cannot come back."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models.signals import pre_save
from django.utils.translation import gettext as _

from campaigns.models import Invitation, JoinRequest, Membership
from moderation.models import TableBan


def refuse_banned(sender: Any, instance: Any, **kwargs: Any) -> None:
    """``pre_save`` of Membership, Invitation and JoinRequest: refuse a new row for a banned user."""
    if not instance._state.adding:
        return
    if TableBan.objects.filter(campaign_id=instance.campaign_id, user_id=instance.user_id).exists():
        raise ValidationError({"__all__": [_("This person is banned from this campaign.")]}, code="banned")


def connect() -> None:
    for model in (Membership, Invitation, JoinRequest):
        pre_save.connect(refuse_banned, sender=model, dispatch_uid=f"moderation-ban-{model.__name__}")
