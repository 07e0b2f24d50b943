"""The auction's API routes, joined to ``/api/v1/`` (names in the ``api`` namespace) by ``api.urls``."""

from django.urls import path

from systems.ambre import api_views as api

C = "campaigns/<str:campaign>/"

urlpatterns = [
    path(C + "auctions/", api.AuctionListView.as_view(), name="auctions"),
    path("auctions/<id:auction_id>/", api.AuctionDetailView.as_view(), name="auction"),
    path("auctions/<id:auction_id>/act/", api.AuctionActView.as_view(), name="auction-act"),
    path("auctions/<id:auction_id>/control/", api.AuctionControlView.as_view(), name="auction-control"),
]
