from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RhythmConfig(AppConfig):
    """The rhythm of slow play (*rythme de jeu*): turns, deadlines, absences, nudges, drafts."""

    name = "rhythm"
    verbose_name = _("rhythm of play")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from rhythm import signals  # noqa: F401
