"""The auction's pages, mounted under ``/characters/`` (namespace ``ambre``) by ``config.urls``."""

from django.urls import path

from systems.ambre import views

app_name = "ambre"

urlpatterns = [
    path("campaign/<str:campaign_id>/auction/new/", views.auction_open, name="auction_open"),
    path("auctions/<id:pk>/", views.auction_detail, name="auction"),
    path("auctions/<id:pk>/panel/", views.auction_panel, name="auction_panel"),
    path("auctions/<id:pk>/act/", views.auction_act, name="auction_act"),
    path("auctions/<id:pk>/control/", views.auction_control, name="auction_control"),
]
