"""API routes: ``/api/v1/...`` (versioned JSON), ``/api/schema/`` (OpenAPI 3),
``/api/docs/`` (browsable docs) and ``/api/tokens/`` (token page)."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api import pages
from api.views import account, campaigns, systems

app_name = "api"

v1 = [
    path("me/", account.MeView.as_view(), name="me"),
    path("tokens/", account.TokenListView.as_view(), name="tokens"),
    path("tokens/<int:token_id>/", account.TokenDetailView.as_view(), name="token"),
    path("systems/", systems.SystemListView.as_view(), name="systems"),
    path("systems/<str:slug>/", systems.SystemDetailView.as_view(), name="system"),
    path("systems/<str:slug>/odds/", systems.SystemOddsView.as_view(), name="system-odds"),
    path("campaigns/", campaigns.CampaignListView.as_view(), name="campaigns"),
    path("campaigns/<str:campaign>/", campaigns.CampaignDetailView.as_view(), name="campaign"),
    path("campaigns/<str:campaign>/members/", campaigns.MembershipListView.as_view(), name="campaign-members"),
]

urlpatterns = [
    path("v1/", include(v1)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
    path("tokens/", pages.tokens, name="token-page"),
    path("tokens/<int:token_id>/revoke/", pages.revoke, name="token-revoke"),
]
