from django.urls import path

from characters import views

app_name = "characters"

urlpatterns = [
    path("", views.my_characters, name="mine"),
    path("campaign/<str:campaign_id>/", views.campaign_characters, name="roster"),
    path("campaign/<str:campaign_id>/new/", views.character_new, name="new"),
    path("campaign/<str:campaign_id>/import/", views.character_import, name="import"),
    path("campaign/<str:campaign_id>/auction/new/", views.auction_open, name="auction_open"),
    path("<int:pk>/", views.character_detail, name="detail"),
    path("<int:pk>/print/", views.character_print, name="print"),
    path("<int:pk>/export.json", views.character_export, name="export"),
    path("<int:pk>/wizard/", views.wizard, name="wizard"),
    path("<int:pk>/wizard/<str:step>/", views.wizard, name="wizard_step"),
    path("<int:pk>/validate/", views.validate, name="validate"),
    path("<int:pk>/notice/", views.sheet_notice, name="notice"),
    path("<int:pk>/edit/", views.sheet_edit, name="edit"),
    path("<int:pk>/profile/", views.profile_edit, name="profile"),
    path("<int:pk>/portrait/", views.portrait, name="portrait"),
    path("<int:pk>/submit/", views.submit, name="submit"),
    path("<int:pk>/approve/", views.approve, name="approve"),
    path("<int:pk>/return/", views.return_to_player, name="return"),
    path("<int:pk>/status/", views.set_status, name="status"),
    path("<int:pk>/history/", views.history, name="history"),
    path("<int:pk>/clefs-roll/", views.clefs_roll, name="clefs_roll"),
    path("<int:pk>/template/", views.sms_template, name="sms_template"),
    path("changes/<int:pk>/", views.change_detail, name="change"),
    path("changes/<int:pk>/<str:action>/", views.change_action, name="change_action"),
    path("auctions/<int:pk>/", views.auction_detail, name="auction"),
    path("auctions/<int:pk>/panel/", views.auction_panel, name="auction_panel"),
    path("auctions/<int:pk>/act/", views.auction_act, name="auction_act"),
    path("auctions/<int:pk>/control/", views.auction_control, name="auction_control"),
]
