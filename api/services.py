"""Writes of the API app: personal tokens (one function per user-visible write)."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from api.models import KEY_PREFIX, SHOWN_PREFIX_LENGTH, ApiToken, digest_key
from rules.base import is_digits

#: A member may hold this many active tokens at once.
MAX_ACTIVE_TOKENS = 20
#: ``last_used_at`` is written at most this often per token (no write per request).
TOUCH_INTERVAL = timedelta(minutes=1)


def create_token(actor: Any, *, name: str) -> tuple[ApiToken, str]:
    """Create a personal token for ``actor``; return it and its key (shown once)."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ValidationError(_("Give the token a name."), code="required")})
    if len(name) > 80:
        raise ValidationError({"name": ValidationError(_("At most 80 characters."), code="max_length")})
    with transaction.atomic():
        active = ApiToken.objects.select_for_update().filter(user=actor, revoked_at__isnull=True)
        if len(active) >= MAX_ACTIVE_TOKENS:
            raise ValidationError(
                {
                    "name": ValidationError(
                        _("You already have %(n)d active tokens: revoke one first.") % {"n": MAX_ACTIVE_TOKENS},
                        code="too_many_tokens",
                    )
                }
            )
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(user=actor, name=name, prefix=key[:SHOWN_PREFIX_LENGTH], digest=digest_key(key))
    return token, key


def revoke_token(actor: Any, token_id: int | str) -> ApiToken:
    """Revoke one of ``actor``'s tokens (404 for another member's token). Idempotent."""
    if not is_digits(str(token_id)):
        raise Http404
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id, user=actor).first()
        if token is None:
            raise Http404
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
    return token


def touch_token(token: ApiToken) -> None:
    """Record that the token was used (bookkeeping, at most once a minute)."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= TOUCH_INTERVAL:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
