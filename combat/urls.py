"""Encounters, rounds and the append-only combat log."""

from django.urls import path

from combat import views

app_name = "combat"

urlpatterns = [
    path("", views.index, name="index"),
    path("thread/<id:thread_id>/", views.thread_encounters, name="thread"),
    path("<id:pk>/", views.detail, name="detail"),
    path("<id:pk>/live/", views.live_fragment, name="live"),
    path("<id:pk>/declare-panel/", views.declare_fragment, name="declare_panel"),
    path("<id:pk>/participants/", views.add_participant, name="add_participant"),
    path("<id:pk>/participants/<id:participant_id>/visibility/", views.toggle_visibility, name="visibility"),
    path("<id:pk>/participants/<id:participant_id>/declare/", views.declare, name="declare"),
    path("<id:pk>/participants/<id:participant_id>/side/", views.set_side, name="side"),
    path("<id:pk>/declarations/<id:declaration_id>/defend/", views.defend, name="defend"),
    path("<id:pk>/participants/<id:participant_id>/remove/", views.remove, name="remove"),
    path("<id:pk>/participants/<id:participant_id>/revive/", views.revive, name="revive"),
    path("<id:pk>/start/", views.start, name="start"),
    path("<id:pk>/reveal/", views.reveal, name="reveal"),
    path("<id:pk>/resolve/", views.resolve, name="resolve"),
    path("<id:pk>/resolve-all/", views.resolve_all, name="resolve_all"),
    path("<id:pk>/skip/", views.skip, name="skip"),
    path("<id:pk>/undo/", views.undo, name="undo"),
    path("<id:pk>/adjust/", views.adjust, name="adjust"),
    path("<id:pk>/end-round/", views.end_round, name="end_round"),
    path("<id:pk>/end/", views.end, name="end"),
    path("<id:pk>/notes/", views.notes, name="notes"),
]
