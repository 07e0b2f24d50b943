"""The home page, the directory, a campaign's page, its settings and GM aids."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

import rules
from campaigns import access, records, services
from campaigns.forms import (
    CampaignForm,
    DirectoryForm,
    JoinRequestForm,
    apply_errors,
    structured_lists,
)
from campaigns.models import (
    Campaign,
    Invitation,
    JoinRequest,
    Membership,
    PlaySession,
    Role,
    Thread,
)
from campaigns.views.common import _campaign_context, _is_unread, _lang, _reads


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


def directory(request: HttpRequest) -> HttpResponse:
    """Public campaigns, filterable by system and language (recruiting first)."""
    form = DirectoryForm(request.GET or None)
    campaigns = Campaign.objects.filter(is_public=True)
    if form.is_valid():
        if form.cleaned_data["system"]:
            campaigns = campaigns.filter(system=form.cleaned_data["system"])
        if form.cleaned_data["language"]:
            campaigns = campaigns.filter(language=form.cleaned_data["language"])
        if form.cleaned_data["recruiting"]:
            campaigns = campaigns.filter(recruiting=True)
    campaigns = campaigns.order_by("-recruiting", "-created")[:100]
    names = {slug: name for slug, name in rules.system_choices(_lang())}
    rows = [{"campaign": c, "system_name": names.get(c.system, c.system)} for c in campaigns]
    template = "campaigns/partials/directory_list.html" if request.htmx else "campaigns/directory.html"
    return render(request, template, {"form": form, "rows": rows})


@login_required
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = services.create_campaign(
                request.user,
                title=form.cleaned_data["title"],
                pitch=form.cleaned_data["pitch"],
                system=form.cleaned_data["system"],
                is_public=form.cleaned_data["is_public"],
                recruiting=form.cleaned_data["recruiting"],
                language=form.cleaned_data["language"],
            )
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Campaign created. You are its GM."))
            return redirect("campaigns:detail", slug=campaign.slug)
    return render(request, "campaigns/campaign_form.html", {"form": form})


def campaign_detail(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    boards = list(campaign.boards.all())
    threads_by_board: dict[int, list[Thread]] = {b.pk: [] for b in boards}
    recent = Thread.objects.filter(campaign=campaign).order_by("-sticky", "-last_post_at", "-id")
    reads = _reads(request.user, recent[:200])
    for thread in recent[:200]:
        if len(threads_by_board.get(thread.board_id, [])) < 8:
            thread.unread = _is_unread(request.user, thread, reads)
            threads_by_board.setdefault(thread.board_id, []).append(thread)
    for board in boards:
        board.recent_threads = threads_by_board.get(board.pk, [])
    open_session = campaign.play_sessions.filter(status=PlaySession.Status.OPEN).first()
    members = Membership.objects.filter(campaign=campaign).select_related("user__profile").order_by("role", "joined")
    ctx = _campaign_context(
        request,
        campaign,
        boards=boards,
        open_session=open_session,
        members=members,
        join_form=JoinRequestForm(),
        pending_request=(
            request.user.is_authenticated
            and JoinRequest.objects.filter(campaign=campaign, user=request.user, status="pending").exists()
        ),
        invitation=(
            Invitation.objects.filter(campaign=campaign, user=request.user, status="pending").first()
            if request.user.is_authenticated
            else None
        ),
    )
    return render(request, "campaigns/campaign_detail.html", ctx)


@login_required
def gm_aids(request: HttpRequest, slug: str) -> HttpResponse:
    """GM-only help tables from the campaign's system, when it has some (``RuleSystem.gm_aids``).

    Clefs de l'Aube: the indicative names of the aspect × means combinations, which the seed keeps
    off the character sheet as a GM aid (L360-L363, L370-L422), and the difficulty levels (L837-L869).
    """
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.is_gm(request.user, campaign):
        raise Http404
    aids = campaign.rule_system.gm_aids()
    if aids is None:
        raise Http404
    lang = _lang()
    aspects = [a["code"] for a in aids.get("aspects", [])]
    combinations = [
        {"means": row["means_label"][lang], "names": [row["names"][code][lang] for code in aspects]}
        for row in aids.get("combinations", [])
    ]
    ctx = _campaign_context(
        request,
        campaign,
        aspect_labels=[a["label"][lang] for a in aids.get("aspects", [])],
        combinations=combinations,
        difficulties=[(d["nd"], d["label"][lang]) for d in aids.get("difficulties", [])],
    )
    return render(request, "campaigns/gm_aids.html", ctx)


@login_required
def campaign_settings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    initial = {
        "title": campaign.title,
        "pitch": campaign.pitch,
        "language": campaign.language,
        "is_public": campaign.is_public,
        "recruiting": campaign.recruiting,
    }
    form = CampaignForm(request.POST or None, initial=initial, campaign=campaign)
    if access.role_of(request.user, campaign) != Role.GM:
        for name in initial:  # the public listing is the GM's (DESIGN.md)
            form.fields[name].disabled = True
            form.fields[name].help_text = _("Only the GM changes the public listing.")
    if request.method == "POST" and form.is_valid():
        try:
            services.update_campaign(
                request.user,
                campaign,
                title=form.cleaned_data["title"],
                pitch=form.cleaned_data["pitch"],
                is_public=form.cleaned_data["is_public"],
                recruiting=form.cleaned_data["recruiting"],
                language=form.cleaned_data["language"],
                system_settings=form.system_values(),
            )
        except ValidationError as exc:
            apply_errors(form, exc, form.list_labels())
        else:
            messages.success(request, _("Settings saved."))
            return redirect("campaigns:settings", slug=campaign.slug)
    status = 400 if request.method == "POST" else 200  # refused: nothing saved, the messages at their fields
    return render(
        request, "campaigns/campaign_settings.html", _campaign_context(request, campaign, form=form), status=status
    )


def settings_list(request: HttpRequest, slug: str, path: str) -> HttpResponse:
    """A structured editor for one list setting (a catalogue, the bestiary, the
    archetypes): one form per entry with the rules' fields and choices, never JSON.
    Adding or removing an entry re-renders the form; saving goes through
    ``services.update_campaign``, which validates it all or saves nothing."""
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    system = campaign.rule_system
    field = next((f for f in structured_lists(system.campaign_settings_fields()) if f.path == path), None)
    if field is None:
        raise Http404
    stored = system.settings(campaign.system_settings)
    values, errors = stored, {}
    status = 200
    if request.method == "POST":
        values, parse_errors = records.parse_sheet([field], request.POST, stored)
        structural = (
            "_add" in request.POST or "_example" in request.POST or any(k.startswith("del:") for k in request.POST)
        )
        if not structural and parse_errors:
            status = 400  # a key missing, repeated or of the wrong type: nothing is saved
        elif not structural:
            try:
                services.update_campaign(
                    request.user,
                    campaign,
                    title=campaign.title,
                    pitch=campaign.pitch,
                    is_public=campaign.is_public,
                    recruiting=campaign.recruiting,
                    language=campaign.language,
                    system_settings={**(campaign.system_settings or {}), path: values.get(path)},
                )
            except ValidationError as exc:
                campaign.refresh_from_db()
                for key, messages_ in exc.message_dict.items():
                    errors.setdefault(key.removeprefix("system__").replace("__", "."), []).extend(messages_)
                status = 400
            except PermissionDenied:
                raise Http404 from None
            else:
                messages.success(request, _("Saved."))
                return redirect("campaigns:settings_list", slug=campaign.slug, path=path)
        for e in parse_errors if not structural else ():
            errors.setdefault(e.path, []).append(records.msg(e.message))
    invalid = sum(len(m) for m in errors.values())
    labels = system.group_labels()
    nodes = records.build_nodes(
        [field],
        values,
        errors,
        group_label=lambda key: records.msg(labels[key]) if key in labels else records.humanize_key(key),
    )
    form_errors = [m for msgs in errors.values() for m in msgs]  # those no input shows
    ctx = _campaign_context(
        request,
        campaign,
        field_label=records.msg(field.label),
        field_help=records.msg(field.help) if field.help else "",
        nodes=nodes,
        form_errors=form_errors,
        invalid=invalid,
        form_action=reverse("campaigns:settings_list", kwargs={"slug": campaign.slug, "path": path}),
    )
    htmx = request.headers.get("HX-Request")
    template = "campaigns/partials/settings_list_form.html" if htmx else "campaigns/settings_list.html"
    return render(request, template, ctx, status=status)
