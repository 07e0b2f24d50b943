from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("reports/<id:report_id>/", views.report_detail, name="report"),
    path("report/<str:kind>/<id:target_id>/", views.report_create, name="report_create"),
    path("posts/<id:post_id>/hide/", views.post_hide, name="post_hide"),
    path("posts/<id:post_id>/restore/", views.post_restore, name="post_restore"),
    path("posts/<id:post_id>/visibility/", views.post_visibility, name="post_visibility"),
    path("threads/<id:thread_id>/lock/", views.thread_lock, name="thread_lock"),
    path("campaigns/<id:campaign_id>/lock/", views.campaign_lock, name="campaign_lock"),
    path("campaigns/<id:campaign_id>/bans/", views.bans, name="bans"),
    path("campaigns/<id:campaign_id>/members/<id:user_id>/ban/", views.ban_member, name="ban_member"),
    path("bans/<id:ban_id>/lift/", views.lift_ban, name="lift_ban"),
    path("users/", views.users, name="users"),
    path("users/<id:user_id>/", views.user_detail, name="user"),
    path("users/<id:user_id>/suspend/", views.suspend, name="suspend"),
    path("users/<id:user_id>/unsuspend/", views.unsuspend, name="unsuspend"),
    path("users/<id:user_id>/delete-spam/", views.delete_spam, name="delete_spam"),
    path("log/", views.audit_log, name="log"),
    path("suspended/", views.suspended, name="suspended"),
    path("my-data/", views.my_data, name="my_data"),
    path("my-data/export.json", views.export, name="export"),
    path("my-data/delete/", views.delete_account, name="delete_account"),
]
