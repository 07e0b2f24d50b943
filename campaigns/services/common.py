"""Helpers shared by the campaigns services: permission checks, languages, rules errors."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import (
    Campaign,
    Role,
)
from rules.base import RulesError

User = get_user_model()


def _lang() -> str:
    return get_language() or "fr"


def _rules_errors(exc: RulesError, prefix: str = "") -> list[str]:
    lang = _lang()
    return [(f"{prefix}{e.path}: " if e.path and prefix else "") + e.message.get(lang) for e in exc.errors]


def _require_member_writer(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if not access.can_post(user, campaign):
        raise PermissionDenied(_("You cannot write in this campaign."))


def _require_gm(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if not access.is_gm(user, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))


def _require_main_gm(user: Any, campaign: Campaign) -> None:
    if not access.can_view_campaign(user, campaign):
        raise Http404
    if access.role_of(user, campaign) != Role.GM:
        raise PermissionDenied(_("Only the GM can do this."))


def _clean_name(name: str, field: str = "name", max_length: int = 80) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({field: [_("This field is required.")]})
    if len(name) > max_length:
        raise ValidationError({field: [_("At most %(n)d characters.") % {"n": max_length}]})
    return name
