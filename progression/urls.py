from django.urls import path

from progression import views

app_name = "progression"

urlpatterns = [
    path("campaigns/<id:campaign_id>/", views.campaign_progression, name="campaign"),
    path("sessions/<id:session_id>/awards/", views.session_awards, name="session_awards"),
    path("sessions/<id:session_id>/reopen/", views.session_reopen, name="session_reopen"),
    path("sessions/<id:session_id>/recalculate/", views.session_recalculate, name="session_recalculate"),
    path("sessions/<id:session_id>/progress/", views.session_progress, name="session_progress"),
    path("sessions/<id:session_id>/recap/", views.session_recap, name="session_recap"),
    path("characters/<id:character_id>/", views.character_progression, name="character"),
    path("characters/<id:character_id>/purchases/", views.purchase_create, name="purchase_create"),
    path("purchases/<id:request_id>/decide/", views.purchase_decide, name="purchase_decide"),
]
