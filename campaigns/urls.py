from django.urls import path

from campaigns import views

app_name = "campaigns"

urlpatterns = [
    path("", views.directory, name="directory"),
    path("new/", views.campaign_create, name="create"),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/badge/", views.notification_badge, name="notification_badge"),
    path("notifications/digest/", views.notification_digest, name="notification_digest"),
    path("notifications/<id:notification_id>/", views.notification_open, name="notification_open"),
    path("invitations/<id:invitation_id>/answer/", views.invitation_answer, name="invitation_answer"),
    path("threads/<id:thread_id>/", views.thread_detail, name="thread"),
    path("threads/<id:thread_id>/unread/", views.thread_unread, name="thread_unread"),
    path("threads/<id:thread_id>/new-posts/", views.thread_new_posts, name="thread_new_posts"),
    path("threads/<id:thread_id>/reply/", views.thread_reply, name="thread_reply"),
    path("threads/<id:thread_id>/settings/", views.thread_settings, name="thread_settings"),
    path("posts/<id:post_id>/", views.post_link, name="post"),
    path("posts/<id:post_id>/edit/", views.post_edit, name="post_edit"),
    path("posts/<id:post_id>/history/", views.post_history, name="post_history"),
    path("posts/<id:post_id>/quote/", views.post_quote, name="post_quote"),
    path("posts/<id:post_id>/hide/", views.post_hide, name="post_hide"),
    path("sessions/<id:session_id>/", views.session_detail, name="session"),
    path("sessions/<id:session_id>/close/", views.session_close, name="session_close"),
    path("<slug:slug>/", views.campaign_detail, name="detail"),
    path("<slug:slug>/settings/", views.campaign_settings, name="settings"),
    path("<slug:slug>/members/", views.members, name="members"),
    path("<slug:slug>/members/invite/", views.invite, name="invite"),
    path("<slug:slug>/members/invite-link/", views.invite_link_reset, name="invite_link_reset"),
    path(
        "<slug:slug>/members/invitations/<id:invitation_id>/cancel/", views.invitation_cancel, name="invitation_cancel"
    ),
    path("<slug:slug>/members/requests/<id:request_id>/", views.join_request_decide, name="join_request_decide"),
    path("<slug:slug>/members/<id:user_id>/role/", views.member_role, name="member_role"),
    path("<slug:slug>/members/<id:user_id>/remove/", views.member_remove, name="member_remove"),
    path("<slug:slug>/members/<id:user_id>/hand-over/", views.hand_over, name="hand_over"),
    path("<slug:slug>/leave/", views.leave, name="leave"),
    path("<slug:slug>/join/", views.join_request, name="join_request"),
    path("<slug:slug>/join/<str:token>/", views.join_link, name="join_link"),
    path("<slug:slug>/boards/", views.boards_manage, name="boards"),
    path("<slug:slug>/boards/<id:board_id>/", views.board_detail, name="board"),
    path("<slug:slug>/boards/<id:board_id>/rename/", views.board_rename, name="board_rename"),
    path("<slug:slug>/boards/<id:board_id>/move/", views.board_move, name="board_move"),
    path("<slug:slug>/boards/<id:board_id>/new/", views.thread_create, name="thread_create"),
    path("<slug:slug>/roll-fields/", views.roll_fields, name="roll_fields"),
    path("<slug:slug>/roll-preview/", views.roll_preview, name="roll_preview"),
    path("<slug:slug>/gm-aids/", views.gm_aids, name="gm_aids"),
    path("<slug:slug>/search/", views.search, name="search"),
    path("<slug:slug>/rolls/verify/", views.rolls_verify, name="rolls_verify"),
    path("<slug:slug>/rolls/export.json", views.rolls_export, name="rolls_export"),
    path("<slug:slug>/sessions/", views.sessions, name="sessions"),
]
