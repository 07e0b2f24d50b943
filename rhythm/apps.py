from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RhythmConfig(AppConfig):
    """The rhythm of slow play (*rythme de jeu*): turns, deadlines, absences, nudges, drafts."""

    name = "rhythm"
    verbose_name = _("rhythm of play")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from campaigns import access
        from campaigns.notifications import register_delivery_policy
        from rhythm import signals  # noqa: F401
        from rhythm.services import DeliveryPreferences

        register_delivery_policy(DeliveryPreferences())  # each member's delivery of each kind

        if "rhythm" not in access.THREAD_RELATED:
            access.THREAD_RELATED.append("rhythm")  # the scene's rhythm comes with its thread
