"""The creation roll's API route, joined to ``/api/v1/`` (``api`` namespace) by ``api.urls``."""

from django.urls import path

from systems.clefs import api_views as api

urlpatterns = [
    path("characters/<id:character_id>/clefs-roll/", api.ClefsRollView.as_view(), name="character-clefs-roll"),
]
