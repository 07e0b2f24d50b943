from django.urls import path

from characters import roll_views, views

app_name = "characters"

urlpatterns = [
    path("", views.my_characters, name="mine"),
    path("media/<path:name>", views.portrait_file, name="portrait_file"),
    path("campaign/<str:campaign_id>/", views.campaign_characters, name="roster"),
    path("campaign/<str:campaign_id>/new/", views.character_new, name="new"),
    path("campaign/<str:campaign_id>/import/", views.character_import, name="import"),
    path("<id:pk>/", views.character_detail, name="detail"),
    path("<id:pk>/print/", views.character_print, name="print"),
    path("<id:pk>/export.json", views.character_export, name="export"),
    path("<id:pk>/wizard/", views.wizard, name="wizard"),
    path("<id:pk>/wizard/<str:step>/", views.wizard, name="wizard_step"),
    path("<id:pk>/validate/", views.validate, name="validate"),
    path("<id:pk>/notice/", views.sheet_notice, name="notice"),
    path("<id:pk>/edit/", views.sheet_edit, name="edit"),
    path("<id:pk>/profile/", views.profile_edit, name="profile"),
    path("<id:pk>/portrait/", views.portrait, name="portrait"),
    path("<id:pk>/submit/", views.submit, name="submit"),
    path("<id:pk>/approve/", views.approve, name="approve"),
    path("<id:pk>/return/", views.return_to_player, name="return"),
    path("<id:pk>/status/", views.set_status, name="status"),
    path("<id:pk>/history/", views.history, name="history"),
    path("rolls/<id:roll_id>/lower/", roll_views.roll_lower, name="roll_lower"),  # spending experience on a roll
    path("changes/<id:pk>/", views.change_detail, name="change"),
    path("changes/<id:pk>/<str:action>/", views.change_action, name="change_action"),
]
