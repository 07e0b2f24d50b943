from django.urls import path

from live import views

app_name = "live"

urlpatterns = [
    path("<slug:prefix>/<id:object_id>/", views.stream, name="stream"),
]
