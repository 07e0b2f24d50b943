from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClefsConfig(AppConfig):
    """Les Clefs de l'Aube: the creation dice rolled by the server, once, in the campaign's chain."""

    name = "systems.clefs"
    label = "clefs"
    verbose_name = _("Les Clefs de l'Aube: creation roll")

    def ready(self) -> None:
        from systems.clefs import plugin

        plugin.register()
