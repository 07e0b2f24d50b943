from django.urls import path

from rhythm import views

app_name = "rhythm"

urlpatterns = [
    path("threads/<id:thread_id>/scene/", views.scene_settings, name="scene_settings"),
    path("threads/<id:thread_id>/scene/header/", views.scene_header, name="scene_header"),
    path("threads/<id:thread_id>/scene/close-round/", views.close_round, name="close_round"),
    path("threads/<id:thread_id>/scene/nudge/<id:user_id>/", views.nudge, name="nudge"),
    path("threads/<id:thread_id>/draft/", views.draft, name="draft"),
    path("absences/", views.absences, name="absences"),
    path("absences/<id:absence_id>/delete/", views.absence_delete, name="absence_delete"),
    path("settings/", views.preferences, name="preferences"),
    path("timezone/", views.detect_timezone, name="timezone"),
]
