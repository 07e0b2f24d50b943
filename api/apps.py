from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"

    def ready(self) -> None:
        from api import schema  # noqa: F401  (registers the OpenAPI auth extension)
        from api.exports import export_user_data
        from config.exporters import register_exporter

        register_exporter("api", export_user_data, order=50)
