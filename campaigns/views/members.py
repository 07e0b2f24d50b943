"""Members, invitations and join requests."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access, services
from campaigns.forms import (
    InviteForm,
    JoinRequestForm,
)
from campaigns.models import (
    Campaign,
    Invitation,
    JoinRequest,
    Membership,
    Role,
)
from campaigns.views.common import _campaign_context, _run


def members(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    if not (access.is_member(request.user, campaign) or access.is_moderator(request.user)):
        raise Http404
    ctx = _campaign_context(
        request,
        campaign,
        members=Membership.objects.filter(campaign=campaign).select_related("user__profile").order_by("joined"),
        invite_form=InviteForm(),
    )
    if ctx["is_gm"]:
        ctx["invitations"] = campaign.invitations.filter(status="pending").select_related("user")
        ctx["join_requests"] = campaign.join_requests.filter(status="pending").select_related("user__profile")
        ctx["invite_url"] = (
            request.build_absolute_uri(
                reverse("campaigns:join_link", kwargs={"slug": campaign.slug, "token": campaign.invite_token})
            )
            if campaign.invite_token
            else ""
        )
        ctx["roles"] = [(Role.COGM, _("co-GM")), (Role.PLAYER, _("player")), (Role.SPECTATOR, _("spectator"))]
    return render(request, "campaigns/members.html", ctx)


def _member_user(campaign: Campaign, user_id: int) -> Any:
    membership = Membership.objects.filter(campaign=campaign, user_id=user_id).select_related("user").first()
    if membership is None:
        raise Http404
    return membership.user


@login_required
@require_POST
def member_role(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    member = _member_user(campaign, user_id)
    _run(
        request,
        services.set_member_role,
        request.user,
        campaign,
        member,
        role=request.POST.get("role", ""),
        success=_("Role changed."),
    )
    return redirect("campaigns:members", slug=campaign.slug)


@login_required
@require_POST
def member_remove(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    member = _member_user(campaign, user_id)
    _run(request, services.remove_member, request.user, campaign, member, success=_("Member removed."))
    return redirect("campaigns:members", slug=campaign.slug)


@login_required
@require_POST
def hand_over(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    member = _member_user(campaign, user_id)
    _run(request, services.hand_over, request.user, campaign, member, success=_("The campaign was handed over."))
    return redirect("campaigns:members", slug=campaign.slug)


@login_required
@require_POST
def leave(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    if _run(request, services.leave_campaign, request.user, campaign) is None and access.is_member(
        request.user, campaign
    ):
        return redirect("campaigns:members", slug=campaign.slug)
    messages.success(request, _("You left the campaign."))
    return redirect("campaigns:directory")


@login_required
@require_POST
def invite(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    form = InviteForm(request.POST)
    if form.is_valid():
        _run(
            request,
            services.invite_member,
            request.user,
            campaign,
            username=form.cleaned_data["username"],
            role=form.cleaned_data["role"],
            success=_("Invitation sent."),
        )
    else:
        messages.error(request, _("Give a username."))
    return redirect("campaigns:members", slug=campaign.slug)


@login_required
@require_POST
def invitation_cancel(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    invitation = get_object_or_404(Invitation, pk=invitation_id, campaign=campaign)
    services.cancel_invitation(request.user, invitation)
    return redirect("campaigns:members", slug=campaign.slug)


@login_required
@require_POST
def invitation_answer(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = Invitation.objects.filter(pk=invitation_id, user=request.user).select_related("campaign").first()
    if invitation is None:
        raise Http404
    accept = request.POST.get("accept") == "1"
    services.answer_invitation(request.user, invitation, accept=accept)
    if accept:
        messages.success(request, _("Welcome to the table!"))
        return redirect("campaigns:detail", slug=invitation.campaign.slug)
    return redirect("campaigns:notifications")


@login_required
@require_POST
def invite_link_reset(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    services.reset_invite_link(request.user, campaign)
    messages.success(request, _("New invitation link created; the old one no longer works."))
    return redirect("campaigns:members", slug=campaign.slug)


@login_required
def join_link(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    """The invitation link: a confirmation page (GET), then joining (POST). Private campaigns too."""
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None or not campaign.invite_token or campaign.invite_token != token:
        raise Http404
    if access.is_member(request.user, campaign):
        return redirect("campaigns:detail", slug=campaign.slug)
    if request.method == "POST":
        services.join_by_link(request.user, campaign, token)
        messages.success(request, _("Welcome to the table!"))
        return redirect("campaigns:detail", slug=campaign.slug)
    return render(request, "campaigns/join_link.html", {"campaign": campaign, "token": token})


@login_required
@require_POST
def join_request(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    form = JoinRequestForm(request.POST)
    if form.is_valid():
        _run(
            request,
            services.request_to_join,
            request.user,
            campaign,
            message=form.cleaned_data["message"],
            success=_("Your request was sent to the GM."),
        )
    else:
        messages.error(request, _("At most 2000 characters."))
    return redirect("campaigns:detail", slug=campaign.slug)


@login_required
@require_POST
def join_request_decide(request: HttpRequest, slug: str, request_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    join = get_object_or_404(JoinRequest, pk=request_id, campaign=campaign)
    accept = request.POST.get("accept") == "1"
    _run(
        request,
        services.decide_join_request,
        request.user,
        join,
        accept=accept,
        role=request.POST.get("role", Role.PLAYER),
        success=_("Request accepted.") if accept else _("Request refused."),
    )
    return redirect("campaigns:members", slug=campaign.slug)
