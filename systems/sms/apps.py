from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SmsConfig(AppConfig):
    """Storytelling Modulary System: race and archetype templates."""

    name = "systems.sms"
    label = "sms"
    verbose_name = _("SMS: templates")

    def ready(self) -> None:
        from systems.sms import plugin

        plugin.register()
