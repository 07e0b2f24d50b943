from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProgressionConfig(AppConfig):
    name = "progression"
    verbose_name = _("Progression")

    def ready(self) -> None:
        from progression import (
            change_kind,
            receivers,
            tasks,  # noqa: F401  registers the job's task: services.runs.enqueue sends it by name
        )

        receivers.connect()
        change_kind.register()  # characters asks it to price and follow purchase change requests
