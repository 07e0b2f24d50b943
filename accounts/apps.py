from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Profiles")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from accounts import signals  # noqa: F401
        from accounts.exports import export_user_data
        from config.exporters import register_exporter

        register_exporter("accounts", export_user_data, order=10)

        from accounts.models import IdempotentWrite
        from config import idempotency

        idempotency.register_store(IdempotentWrite)  # the answers of replayed writes are kept there

        post_migrate.connect(sync_site, sender=self, dispatch_uid="accounts.sync_site")


def sync_site(**kwargs: object) -> None:
    """The ``django.contrib.sites`` row follows the settings (``TABLEE_SITE_URL``, ``TABLEE_SITE_NAME``):
    allauth's e-mails name the site and link to its domain."""
    from django.conf import settings
    from django.contrib.sites.models import Site

    using = str(kwargs.get("using") or "default")
    Site.objects.using(using).update_or_create(
        pk=settings.SITE_ID, defaults={"domain": settings.SITE_DOMAIN, "name": settings.SITE_NAME}
    )
