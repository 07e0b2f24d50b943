"""The templates' page action, mounted under ``/characters/`` (namespace ``sms``) by ``config.urls``."""

from django.urls import path

from systems.sms import views

app_name = "sms"

urlpatterns = [
    path("<id:pk>/template/", views.template, name="template"),
]
