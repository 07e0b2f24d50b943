"""Absences a member declares (the turn passes them by)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import Campaign, Membership
from live.events import publish
from rhythm.models import (
    Absence,
)


def declare_absence(
    user: Any, *, starts: dt.date, ends: dt.date, campaign: Campaign | None = None, message: str = ""
) -> Absence:
    """A member says they are away, for one campaign or for the whole site."""
    if not user.is_authenticated:
        raise PermissionDenied
    if campaign is not None and not access.is_member(user, campaign):
        raise Http404
    errors: dict[str, list[str]] = {}
    if ends < starts:
        errors["ends"] = [_("The absence ends before it starts.")]
    elif (ends - starts).days > 366:
        errors["ends"] = [_("An absence lasts at most a year.")]
    if ends < timezone.localdate():
        errors.setdefault("ends", []).append(_("This absence is already over."))
    message = (message or "").strip()
    if len(message) > 300:
        errors["message"] = [_("At most 300 characters.")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        absence = Absence.objects.create(user=user, campaign=campaign, starts=starts, ends=ends, message=message)
        targets = (
            [campaign.pk]
            if campaign
            else list(Membership.objects.filter(user=user).values_list("campaign_id", flat=True))
        )
        transaction.on_commit(
            lambda: [publish(f"campaign:{pk}", "absence", {"user": user.pk}) for pk in targets]  # type: ignore[func-returns-value]
        )
    return absence


def cancel_absence(user: Any, absence: Absence) -> None:
    if absence.user_id != user.pk:
        raise Http404
    absence.delete()


def current_absences(user: Any) -> list[Absence]:
    return list(
        Absence.objects.filter(user=user, ends__gte=timezone.localdate()).select_related("campaign").order_by("starts")
    )
