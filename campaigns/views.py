"""Campaign pages."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from campaigns.models import Campaign


def home(request: HttpRequest) -> HttpResponse:
    """Landing page: your tables, then public recruiting tables."""
    mine = []
    if request.user.is_authenticated:
        mine = list(Campaign.objects.filter(memberships__user=request.user).order_by("title")[:50])
    recruiting = Campaign.objects.filter(is_public=True, recruiting=True).order_by("-created")[:12]
    return render(request, "campaigns/home.html", {"mine": mine, "recruiting": recruiting})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database check for load balancers and docker-compose."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
