from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AmbreConfig(AppConfig):
    """Ambre (Système V2.1): the attribute auction, its public ladders and the sheet's ranks."""

    name = "systems.ambre"
    label = "ambre"
    verbose_name = _("Ambre: attribute auction")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from systems.ambre import channels, plugin

        plugin.register()
        channels.register()
