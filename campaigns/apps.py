from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = _("Campaigns")

    def ready(self) -> None:
        from campaigns import live  # noqa: F401  (registers live channel authorizers)
        from campaigns.exports import export_user_data
        from config.exporters import register_exporter

        register_exporter("campaigns", export_user_data, order=20)

        from campaigns.notifications import unread_count
        from config.auth import register_user_annotation

        register_user_annotation("tablee_unread", unread_count)

        import rules

        # Every registered rule system imported now, once per process: the first page or session job
        # of a campaign does not pay for importing its system, and a system that fails to import stops
        # the start (a deploy), not a player's page.
        rules.available_systems()
