"""The creation roll's page action, mounted under ``/characters/`` (namespace ``clefs``) by ``config.urls``."""

from django.urls import path

from systems.clefs import views

app_name = "clefs"

urlpatterns = [
    path("<id:pk>/clefs-roll/", views.creation_roll, name="creation_roll"),
]
