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
