"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path, register_converter

from config.converters import IdConverter

# Before the apps' URLconfs are imported: ``<id:...>`` in every app.
register_converter(IdConverter, "id")

from campaigns import views as campaign_views  # noqa: E402
from characters import plugins  # noqa: E402

urlpatterns = [
    path("", campaign_views.home, name="home"),
    path("admin/", admin.site.urls),
    path(".well-known/tablee-rolls-key", campaign_views.rolls_public_key, name="rolls_public_key"),
    path("accounts/", include("allauth.urls")),
    path("profile/", include("accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("live/", include("live.urls")),
    path("campaigns/", include("campaigns.urls")),
    path("characters/", include("characters.urls")),
    # The system plug-ins' pages (systems/<name>/urls.py), each in its own namespace, under /characters/.
    *plugins.url_includes(),
    path("combat/", include("combat.urls")),
    path("progression/", include("progression.urls")),
    path("moderation/", include("moderation.urls")),
    path("rhythm/", include("rhythm.urls")),
    path("api/", include("api.urls")),
    path("healthz", campaign_views.healthz, name="healthz"),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"

# No public /media/: portraits are served by characters.views.portrait_file (authorization checked).
