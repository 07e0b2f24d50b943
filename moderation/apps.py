from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from moderation import signals

        signals.connect()

        from config.exporters import register_exporter
        from moderation.exports import export_user_data

        register_exporter("moderation", export_user_data, order=40)

        from config.auth import register_user_annotation
        from moderation.models import is_suspended

        register_user_annotation("tablee_suspended", is_suspended)
