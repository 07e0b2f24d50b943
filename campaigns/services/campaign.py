"""Creating a campaign and changing its settings."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, override

import rules
from campaigns import access, dice
from campaigns.models import (
    Board,
    Campaign,
    Membership,
    Role,
)
from campaigns.services.common import _lang, _require_gm
from rules.base import is_digits, validate_fields

#: Boards every new campaign starts with (name msgid, kind).
DEFAULT_BOARDS: tuple[tuple[str, str], ...] = (
    (gettext_noop("In character"), Board.Kind.IN_CHARACTER),
    (gettext_noop("Out of character"), Board.Kind.OUT_OF_CHARACTER),
    (gettext_noop("Rules and organisation"), Board.Kind.META),
)


#: First URL segments under /campaigns/ that are not campaigns.
RESERVED_SLUGS = frozenset({"new", "notifications", "invitations", "threads", "posts", "sessions"})


def _unique_slug(title: str) -> str:
    base = slugify(title)[:120] or "table"
    if is_digits(base) or base in RESERVED_SLUGS:
        base = f"table-{base}"
    slug = base
    while Campaign.objects.filter(slug=slug).exists():
        slug = f"{base}-{secrets.token_hex(3)}"
    return slug


def _clean_campaign_fields(
    *, title: str, pitch: str, is_public: bool, recruiting: bool, language: str
) -> dict[str, Any]:
    errors: dict[str, list[str]] = {}
    title = (title or "").strip()
    if not title:
        errors["title"] = [_("Give the campaign a title.")]
    elif len(title) > 120:
        errors["title"] = [_("At most 120 characters.")]
    if len(pitch or "") > 5000:
        errors["pitch"] = [_("At most 5000 characters.")]
    if language not in dict(settings.LANGUAGES):
        errors["language"] = [_("Unknown language.")]
    if errors:
        raise ValidationError(errors)
    return {
        "title": title,
        "pitch": (pitch or "").strip(),
        "is_public": bool(is_public),
        "recruiting": bool(recruiting),
        "language": language,
    }


def validate_system_settings(system_slug: str, values: dict[str, Any]) -> dict[str, Any]:
    """Check campaign options against the system's declarations (field errors keyed ``system__<path>``)."""
    system = rules.get_system(system_slug)
    fields = system.campaign_settings_fields()
    errors = validate_fields(values, fields)
    if not errors:
        errors = system.validate_settings(system.settings(values))
    if errors:
        out: dict[str, list[str]] = {}
        for e in errors:
            out.setdefault(f"system__{e.path}".replace(".", "__"), []).append(e.message.get(_lang()))
        raise ValidationError(out)
    known = {f.path.split(".")[0] for f in fields}
    return {key: value for key, value in values.items() if key in known}


def create_campaign(
    user: Any,
    *,
    title: str,
    pitch: str = "",
    system: str,
    is_public: bool = True,
    recruiting: bool = False,
    language: str = "fr",
    system_settings: dict[str, Any] | None = None,
) -> Campaign:
    """A member creates a campaign; they become its GM; default boards are created."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied(_("Log in to create a campaign."))
    data = _clean_campaign_fields(
        title=title, pitch=pitch, is_public=is_public, recruiting=recruiting, language=language
    )
    if system not in rules.SYSTEM_MODULES:
        raise ValidationError({"system": [_("Choose a rule system from the list.")]})
    # Starter content (a catalogue from what the text gives) the GM then edits.
    starter = rules.get_system(system).starter_settings()
    options = validate_system_settings(system, {**starter, **(system_settings or {})})
    with transaction.atomic():
        campaign = Campaign.objects.create(
            slug=_unique_slug(data["title"]),
            system=system,
            system_settings=options,
            created_by=user,
            invite_token=secrets.token_urlsafe(24),
            **data,
        )
        Membership.objects.create(campaign=campaign, user=user, role=Role.GM)
        dice.current_seed(campaign)  # the first dice commitment is public before any roll
        with override(campaign.language):  # board names in the table's language
            for position, (name, kind) in enumerate(DEFAULT_BOARDS):
                Board.objects.create(campaign=campaign, name=_(name), kind=kind, position=position)
    return campaign


def update_campaign(
    user: Any,
    campaign: Campaign,
    *,
    title: str,
    pitch: str = "",
    is_public: bool = True,
    recruiting: bool = False,
    language: str = "fr",
    system_settings: dict[str, Any] | None = None,
) -> Campaign:
    """The GM or a co-GM changes the campaign's settings (the system is fixed).

    The public listing (title, pitch, public, recruiting, language) is the
    GM's alone (DESIGN.md: "public campaign listing — can change: GM"); a
    co-GM may change the system options and must leave the listing as it is.
    """
    _require_gm(user, campaign)
    data = _clean_campaign_fields(
        title=title, pitch=pitch, is_public=is_public, recruiting=recruiting, language=language
    )
    if access.role_of(user, campaign) != Role.GM and any(getattr(campaign, k) != v for k, v in data.items()):
        raise PermissionDenied(_("Only the GM changes the public listing (title, pitch, visibility, recruiting)."))
    options = validate_system_settings(campaign.system, system_settings or {}) if system_settings is not None else None
    with transaction.atomic():
        for key, value in data.items():
            setattr(campaign, key, value)
        fields = list(data)
        if options is not None:
            campaign.system_settings = options
            fields.append("system_settings")
        campaign.save(update_fields=fields)
    return campaign
