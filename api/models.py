"""Personal API tokens (*jetons d'API*).

A member creates tokens from their profile (``/api/tokens/``) and uses them as
``Authorization: Token <key>`` (or ``Bearer <key>``). Only a SHA-256 digest of
the key is stored: the key itself is shown once, at creation.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

#: Every key starts with this, so leaked keys are easy to recognise (secret scanners).
KEY_PREFIX = "tbl_"
#: How many leading characters of a key are kept in clear to tell tokens apart.
SHOWN_PREFIX_LENGTH = 12


def digest_key(key: str) -> str:
    """SHA-256 hex digest of a key (keys are long random strings: no salt needed)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A personal API token of one member; revoked tokens are kept for the record."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=80)
    prefix = models.CharField(max_length=SHOWN_PREFIX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
