"""A member's notifications and the header badge."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import services
from campaigns.models import (
    Invitation,
    Notification,
    NotificationSettings,
)


@login_required
def notifications(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        services.mark_notifications_read(request.user)
        return redirect("campaigns:notifications")
    items = list(
        Notification.objects.filter(user=request.user).select_related("campaign", "thread", "post", "actor__profile")[
            :100
        ]
    )
    invitations = Invitation.objects.filter(user=request.user, status="pending").select_related("campaign")
    prefs = NotificationSettings.objects.filter(user=request.user).first()
    return render(
        request,
        "campaigns/notifications.html",
        {"items": items, "invitations": invitations, "digest": bool(prefs and prefs.email_digest)},
    )


@login_required
def notification_open(request: HttpRequest, notification_id: int) -> HttpResponse:
    item = get_object_or_404(Notification, pk=notification_id, user=request.user)
    services.mark_notifications_read(request.user, [item.pk])
    if item.post_id:
        return redirect("campaigns:post", post_id=item.post_id)
    if item.url.startswith("/") and not item.url.startswith("//"):
        return redirect(item.url)
    if item.kind == Notification.Kind.JOIN_REQUEST:
        return redirect("campaigns:members", slug=item.campaign.slug)
    if item.kind == Notification.Kind.INVITATION:
        return redirect("campaigns:notifications")
    return redirect("campaigns:detail", slug=item.campaign.slug)


@login_required
@require_POST
def notification_digest(request: HttpRequest) -> HttpResponse:
    services.set_email_digest(request.user, enabled=request.POST.get("enabled") == "1")
    messages.success(request, _("E-mail digest preference saved."))
    return redirect("campaigns:notifications")


def notification_badge(request: HttpRequest) -> HttpResponse:
    """htmx fragment: the header badge (polled)."""
    return render(request, "campaigns/partials/notification_badge.html", {})
