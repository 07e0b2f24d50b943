"""Encounters, rounds and the append-only combat log."""

from django.urls import path

from combat import views

app_name = "combat"

urlpatterns = [
    path("", views.index, name="index"),
    path("thread/<int:thread_id>/", views.thread_encounters, name="thread"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/live/", views.live_fragment, name="live"),
    path("<int:pk>/declare-panel/", views.declare_fragment, name="declare_panel"),
    path("<int:pk>/participants/", views.add_participant, name="add_participant"),
    path("<int:pk>/participants/<int:participant_id>/visibility/", views.toggle_visibility, name="visibility"),
    path("<int:pk>/participants/<int:participant_id>/declare/", views.declare, name="declare"),
    path("<int:pk>/start/", views.start, name="start"),
    path("<int:pk>/reveal/", views.reveal, name="reveal"),
    path("<int:pk>/resolve/", views.resolve, name="resolve"),
    path("<int:pk>/resolve-all/", views.resolve_all, name="resolve_all"),
    path("<int:pk>/skip/", views.skip, name="skip"),
    path("<int:pk>/undo/", views.undo, name="undo"),
    path("<int:pk>/adjust/", views.adjust, name="adjust"),
    path("<int:pk>/end-round/", views.end_round, name="end_round"),
    path("<int:pk>/end/", views.end, name="end"),
    path("<int:pk>/notes/", views.notes, name="notes"),
]
