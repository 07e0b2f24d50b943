"""User profiles: display name and interface language."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """What a member shows of themselves and how the site speaks to them.

    *Profil* in the interface. Created with the user (see ``signals``).
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(_("display name"), max_length=60, blank=True)
    language = models.CharField(
        _("interface language"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    bio = models.TextField(_("about me"), blank=True, max_length=2000)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return self.display_name or self.user.get_username()


def display_name(user: object) -> str:
    """The name to show for a user (``"utilisateur supprimé"`` if none)."""
    if user is None:
        return str(_("deleted user"))
    profile = getattr(user, "profile", None)
    if profile is not None and profile.display_name:
        return profile.display_name
    return user.get_username()  # type: ignore[attr-defined]


class IdempotentWrite(models.Model):
    """The answer to one write, kept so a replay gets it again instead of writing twice.

    A member's one-time form token or API ``Idempotency-Key``, scoped to the
    route it was sent to (see ``config.idempotency``, which it is registered with). Kept in the database,
    so it works without Redis and across web processes; forgotten after
    ``TABLEE_IDEMPOTENCY_SECONDS``. Here because it belongs to the member
    (deleted with the account).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100)
    route = models.CharField(max_length=300)
    #: Hash of the request body: the API refuses a key reused for another request.
    fingerprint = models.CharField(max_length=64, blank=True)
    status = models.PositiveSmallIntegerField(default=0)
    headers = models.JSONField(default=dict, blank=True)
    body = models.BinaryField(blank=True, default=b"")
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key", "route"], name="accounts_idempotent_write_unique")
        ]
        verbose_name = _("idempotent write")
        verbose_name_plural = _("idempotent writes")

    def __str__(self) -> str:
        return f"{self.user_id} {self.route} {self.key}"
