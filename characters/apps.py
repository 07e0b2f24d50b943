from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CharactersConfig(AppConfig):
    name = "characters"
    verbose_name = _("Characters")

    def ready(self) -> None:
        from characters import live  # noqa: F401  (registers live channel authorizers)
        from characters.exports import export_user_data
        from config.exporters import register_exporter

        register_exporter("characters", export_user_data, order=30)

        from characters import voices

        voices.register()  # answers campaigns.voices: the characters a post speaks as and rolls for
