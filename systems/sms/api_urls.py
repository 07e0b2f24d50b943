"""The templates' API route, joined to ``/api/v1/`` (``api`` namespace) by ``api.urls``."""

from django.urls import path

from systems.sms import api_views as api

urlpatterns = [
    path("characters/<id:character_id>/template/", api.TemplateView.as_view(), name="character-template"),
]
