"""Play sessions: listing, opening, reading, closing."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access, services
from campaigns.forms import (
    SessionForm,
    apply_errors,
)
from campaigns.models import (
    PlaySession,
)
from campaigns.views.common import _campaign_context, _lang, _plain_detail, _run


def sessions(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    form = SessionForm(request.POST or None)
    if request.method == "POST":
        if not request.user.is_authenticated:
            raise PermissionDenied
        if form.is_valid():
            try:
                session = services.open_session(request.user, campaign, title=form.cleaned_data["title"])
            except ValidationError as exc:
                apply_errors(form, exc)
            else:
                messages.success(request, _("Session opened."))
                return redirect("campaigns:session", session_id=session.pk)
    items = campaign.play_sessions.all().order_by("-number")
    ctx = _campaign_context(request, campaign, form=form, sessions=items)
    return render(request, "campaigns/sessions.html", ctx)


def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    session = get_object_or_404(PlaySession.objects.select_related("campaign"), pk=session_id)
    campaign = access.get_campaign_for_user(request.user, session.campaign.slug)
    is_gm = access.is_gm(request.user, campaign)
    rolls = [
        r
        for r in session.rolls.select_related("post", "character").order_by("sequence")
        if not r.secret or is_gm or r.roller_id == getattr(request.user, "pk", None)
    ]
    # A roll of a post the user may not see stays hidden.
    if not is_gm:
        allowed = set(
            access.visible_posts_in_campaign(request.user, campaign)
            .filter(session=session)
            .values_list("pk", flat=True)
        )
        rolls = [r for r in rolls if r.post_id is None or r.post_id in allowed]
    for roll in rolls:
        roll.summary_text = (roll.resolution.get("summary") or {}).get(_lang(), "")
        roll.detail_text = _plain_detail(roll.resolution.get("outcome", {}).get("detail", ""))
    post_count = access.visible_posts_in_campaign(request.user, campaign).filter(session=session).count()
    ctx = _campaign_context(request, campaign, session=session, rolls=rolls, post_count=post_count)
    return render(request, "campaigns/session_detail.html", ctx)


@login_required
@require_POST
def session_close(request: HttpRequest, session_id: int) -> HttpResponse:
    session = get_object_or_404(PlaySession.objects.select_related("campaign"), pk=session_id)
    access.get_campaign_for_user(request.user, session.campaign.slug, write=True)
    _run(request, services.close_session, request.user, session, success=_("Session closed."))
    return redirect("campaigns:session", session_id=session.pk)
