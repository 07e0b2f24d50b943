from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Profiles")

    def ready(self) -> None:
        from accounts import signals  # noqa: F401
        from accounts.exports import export_user_data
        from config.exporters import register_exporter

        register_exporter("accounts", export_user_data, order=10)
