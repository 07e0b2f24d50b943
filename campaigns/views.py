"""Campaign pages. Thin: parse with a form, call a service, render.

What a user may not see answers 404 (``campaigns.access``); a forbidden write
on something visible answers 403 (``PermissionDenied``) and changes nothing.
"""

from __future__ import annotations

import math
import re
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

import rules
from campaigns import access, checkpoints, dice, play, services
from campaigns.forms import (
    BoardForm,
    CampaignForm,
    DirectoryForm,
    EditPostForm,
    InviteForm,
    JoinRequestForm,
    PostForm,
    RenameForm,
    SearchForm,
    SessionForm,
    ThreadForm,
    apply_errors,
    collect_rules_values,
    structured_lists,
)
from campaigns.markup import quote_markdown
from campaigns.models import (
    Board,
    Campaign,
    Invitation,
    JoinRequest,
    Membership,
    Notification,
    NotificationSettings,
    PlaySession,
    Post,
    Role,
    Roll,
    Thread,
    ThreadRead,
)
from config.ratelimit import RateLimited
from rules.base import RulesError

User = get_user_model()
POSTS_PER_PAGE = 20
THREADS_PER_PAGE = 50
SEARCH_LIMIT = 50


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


def _lang() -> str:
    return get_language() or "fr"


def _campaign_context(request: HttpRequest, campaign: Campaign, **extra: Any) -> dict[str, Any]:
    role = access.role_of(request.user, campaign)
    return {
        "campaign": campaign,
        "role": role,
        "is_gm": role in access.GM_ROLES,
        "is_main_gm": role == Role.GM,
        "can_post": access.can_post(request.user, campaign),
        "system_name": campaign.rule_system.name.get(_lang()),
        "has_gm_aids": role in access.GM_ROLES and campaign.rule_system.gm_aids() is not None,
        "chain_head": dice.chain_head(campaign),
        **extra,
    }


# ---------------------------------------------------------------------------
# Directory and campaigns
# ---------------------------------------------------------------------------
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
            apply_errors(form, exc)
        else:
            messages.success(request, _("Settings saved."))
            return redirect("campaigns:settings", slug=campaign.slug)
    return render(request, "campaigns/campaign_settings.html", _campaign_context(request, campaign, form=form))


def settings_list(request: HttpRequest, slug: str, path: str) -> HttpResponse:
    """A structured editor for one list setting (a catalogue, the bestiary, the
    archetypes): one form per entry with the rules' fields and choices, never JSON.
    Adding or removing an entry re-renders the form; saving goes through
    ``services.update_campaign``, which validates it all or saves nothing."""
    from characters import sheetform as sf  # the generic editor of rules-declared records

    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    system = campaign.rule_system
    field = next((f for f in structured_lists(system.campaign_settings_fields()) if f.path == path), None)
    if field is None:
        raise Http404
    stored = system.settings(campaign.system_settings)
    values, errors = stored, {}
    status = 200
    if request.method == "POST":
        values, parse_errors = sf.parse_sheet([field], request.POST, stored)
        structural = "_add" in request.POST or any(k.startswith("del:") for k in request.POST)
        if not structural:
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
        for e in parse_errors:
            errors.setdefault(e.path, []).append(sf.msg(e.message))
    invalid = sum(len(m) for m in errors.values())
    nodes = sf.build_nodes([field], values, errors)
    form_errors = [m for msgs in errors.values() for m in msgs]  # those no input shows
    ctx = _campaign_context(
        request,
        campaign,
        field_label=sf.msg(field.label),
        field_help=sf.msg(field.help) if field.help else "",
        nodes=nodes,
        form_errors=form_errors,
        invalid=invalid,
        form_action=reverse("campaigns:settings_list", kwargs={"slug": campaign.slug, "path": path}),
    )
    htmx = request.headers.get("HX-Request")
    template = "campaigns/partials/settings_list_form.html" if htmx else "campaigns/settings_list.html"
    return render(request, template, ctx, status=status)


# ---------------------------------------------------------------------------
# Members
# ---------------------------------------------------------------------------
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


def _run(request: HttpRequest, fn: Any, *args: Any, success: str = "", **kwargs: Any) -> Any:
    """Call a service; turn its ValidationError into an error message."""
    try:
        result = fn(*args, **kwargs)
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
        return None
    if success:
        messages.success(request, success)
    return result


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


# ---------------------------------------------------------------------------
# Boards
# ---------------------------------------------------------------------------
@login_required
def boards_manage(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    form = BoardForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.add_board(request.user, campaign, name=form.cleaned_data["name"], kind=form.cleaned_data["kind"])
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Board added."))
            return redirect("campaigns:boards", slug=campaign.slug)
    boards = list(campaign.boards.all())
    return render(request, "campaigns/boards.html", _campaign_context(request, campaign, form=form, boards=boards))


@login_required
@require_POST
def board_rename(request: HttpRequest, slug: str, board_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    board = get_object_or_404(Board, pk=board_id, campaign=campaign)
    form = RenameForm(request.POST)
    if form.is_valid():
        _run(
            request,
            services.rename_board,
            request.user,
            board,
            name=form.cleaned_data["name"],
            success=_("Board renamed."),
        )
    else:
        messages.error(request, _("Give the board a name (80 characters at most)."))
    return redirect("campaigns:boards", slug=campaign.slug)


@login_required
@require_POST
def board_move(request: HttpRequest, slug: str, board_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug, write=True)
    board = get_object_or_404(Board, pk=board_id, campaign=campaign)
    services.move_board(request.user, board, offset=-1 if request.POST.get("direction") == "up" else 1)
    if request.htmx:
        boards = list(campaign.boards.all())
        return render(
            request, "campaigns/partials/board_rows.html", _campaign_context(request, campaign, boards=boards)
        )
    return redirect("campaigns:boards", slug=campaign.slug)


def _reads(user: Any, threads: Any) -> dict[int, int]:
    if not user.is_authenticated:
        return {}
    ids = [t.pk for t in threads]
    return dict(ThreadRead.objects.filter(user=user, thread_id__in=ids).values_list("thread_id", "last_read_number"))


def _is_unread(user: Any, thread: Thread, reads: dict[int, int]) -> bool:
    return bool(user.is_authenticated and thread.post_count > reads.get(thread.pk, 0))


def board_detail(request: HttpRequest, slug: str, board_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    board = get_object_or_404(Board, pk=board_id, campaign=campaign)
    threads = list(
        board.threads.select_related("created_by__profile").order_by("-sticky", "-last_post_at", "-id")[
            :THREADS_PER_PAGE
        ]
    )
    reads = _reads(request.user, threads)
    for thread in threads:
        thread.unread = _is_unread(request.user, thread, reads)
    return render(
        request, "campaigns/board_detail.html", _campaign_context(request, campaign, board=board, threads=threads)
    )


def _post_form(request: HttpRequest, campaign: Campaign, data: Any = None, **kwargs: Any) -> PostForm:
    from characters.models import Character

    is_gm = access.is_gm(request.user, campaign)
    characters = Character.objects.filter(campaign=campaign)
    if is_gm:
        characters = characters.filter(Q(owner=request.user) | Q(is_npc=True)).only("pk", "name", "is_npc", "owner_id")
        sheet_characters = list(play.sheet_test_characters(request.user, campaign))
    else:
        # One query: a player's voices are their characters; those approved can also roll from their sheet.
        characters = list(characters.filter(owner=request.user, is_npc=False))
        sheet_characters = [c for c in characters if c.status in play.PLAYABLE_STATUSES]
    for character in sheet_characters:
        character.campaign = campaign
    members = [
        (m.user_id, m.user.profile.name if hasattr(m.user, "profile") else m.user.username)
        for m in Membership.objects.filter(campaign=campaign).exclude(user=request.user).select_related("user__profile")
    ]
    return PostForm(
        data,
        campaign=campaign,
        characters=list(characters),
        members=members,
        is_gm=is_gm,
        sheet_characters=sheet_characters,
        sheet_options=play.sheet_tests_of,
        **kwargs,
    )


def _prefill(request: HttpRequest) -> dict[str, Any]:
    """``?character=&test=`` (from a sheet's "What you can roll" line): the test the form opens with."""
    character, test = request.GET.get("character", ""), request.GET.get("test", "")
    if not character or not test:
        return {}
    # The post speaks as that character when it is one of the author's voices (the choice ignores others).
    return {"initial": {"sheet_character": character[:20], "sheet_test": test[:100], "character": character[:20]}}


@login_required
def thread_create(request: HttpRequest, slug: str, board_id: int) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    board = get_object_or_404(Board, pk=board_id, campaign=campaign)
    if not access.can_post(request.user, campaign):
        raise PermissionDenied
    thread_form = ThreadForm(request.POST or None)
    post_form = _post_form(request, campaign, request.POST or None)
    if request.method == "POST" and thread_form.is_valid() and post_form.is_valid():
        try:
            thread = services.create_thread(
                request.user,
                board,
                title=thread_form.cleaned_data["title"],
                body=post_form.cleaned_data["body"],
                sticky=thread_form.cleaned_data["sticky"],
                locked=thread_form.cleaned_data["locked"],
                character=post_form.cleaned_data["character"] or None,
                visibility=post_form.cleaned_data["visibility"],
                recipients=post_form.cleaned_data["recipients"],
                roll_requests=post_form.roll_requests(),
                client_nonce=post_form.cleaned_data.get("client_nonce") or None,
            )
        except ValidationError as exc:
            apply_errors(thread_form if "title" in getattr(exc, "error_dict", {}) else post_form, exc)
        else:
            return redirect("campaigns:thread", thread_id=thread.pk)
    ctx = _campaign_context(request, campaign, board=board, thread_form=thread_form, form=post_form)
    return render(request, "campaigns/thread_create.html", ctx)


# ---------------------------------------------------------------------------
# Threads and posts
# ---------------------------------------------------------------------------
def page_of(number: int) -> int:
    return max(1, math.ceil(number / POSTS_PER_PAGE))


def _decorate(posts: list[Post], user: Any, campaign: Campaign, role: str | None, last_read: int | None) -> None:
    """Per-post flags computed without queries (roles are known)."""
    is_gm = role in access.GM_ROLES
    lang = _lang()
    secret = play.secret_paths(campaign.system)
    for post in posts:
        mine = user.is_authenticated and post.author_id == user.pk
        post.can_edit = role is not None and (
            (mine and not post.is_system) or (role == Role.GM and post.visibility == Post.Visibility.GM_ONLY)
        )
        post.can_hide = is_gm or getattr(user, "_is_moderator", False)
        # A moderator's hide is the moderators' to lift (GMs still read the post).
        post.hide_locked = post.can_hide and not access.can_change_hidden_state(user, post)
        # Moderated posts keep their place and rolls; their text is withheld.
        post.content_withheld = post.hidden and not post.can_hide
        if post.content_withheld:
            post.can_edit = False
        post.can_reply = role in (Role.GM, Role.COGM, Role.PLAYER) and not post.content_withheld
        post.is_new = last_read is not None and post.number > last_read
        shown = []
        # A lowered roll is superseded by its lowering (a later roll of the same post).
        lowered = {(r.request.get("lower_die") or {}).get("sequence") for r in post.rolls.all()}
        reread = {(r.request.get("reevaluate") or {}).get("sequence") for r in post.rolls.all()}
        gm_reread = {(r.request.get("gm_inputs") or {}).get("sequence") for r in post.rolls.all()}
        for roll in post.rolls.all():
            if roll.secret and not (is_gm or (user.is_authenticated and roll.roller_id == user.pk)):
                continue
            roll.summary_text = (roll.resolution.get("summary") or {}).get(lang, "")
            roll.detail_text = _plain_detail(roll.resolution.get("outcome", {}).get("detail", ""))
            roll.odds_text = _odds_text(roll.resolution.get("odds"), lang)
            source = roll.request.get("from_sheet") if isinstance(roll.request, dict) else None
            mine = user.is_authenticated and roll.roller_id == user.pk
            hidden = frozenset() if is_gm or mine else secret
            roll.sheet_text = play.reads_text(source, lang, hidden) if isinstance(source, dict) else ""
            roll.sheet_version = source.get("version") if roll.sheet_text else None
            roll.sheet_link = bool(roll.sheet_text) and (is_gm or roll.roller_id == getattr(user, "pk", None))
            roll.gm_fields = []
            if roll.sheet_text and is_gm and roll.sequence not in gm_reread:
                roll.gm_fields = _gm_fields(source.get("gm_fields"), source.get("declared") or {}, lang)
            roll.can_lower = roll.sequence not in lowered and services.can_lower_die(user, roll)
            roll.can_set_difficulty = (
                roll.sequence not in reread
                and not roll.sheet_text  # a sheet roll: the GM's inputs form sets the difficulty too
                and services.can_set_difficulty(user, roll, is_gm=is_gm)
            )
            shown.append(roll)
        post.shown_rolls = shown


def _gm_fields(specs: Any, declared: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The GM-only inputs a GM may still add to a sheet roll, as simple form controls (from the stored specs)."""
    out = []
    for spec in specs if isinstance(specs, list) else []:
        if not isinstance(spec, dict) or spec.get("kind") not in ("int", "bool", "choice"):
            continue
        label = spec.get("label") or {}
        out.append(
            {
                "path": spec["path"],
                "kind": spec["kind"],
                "label": label.get(lang) or label.get("fr") or "",
                "minimum": spec.get("minimum"),
                "maximum": spec.get("maximum"),
                "value": declared.get(spec["path"], spec.get("default")),
                "choices": [(v, (m or {}).get(lang, v)) for v, m in spec.get("choices") or []],
            }
        )
    return out


def _plain_detail(detail: Any) -> str:
    """d20's breakdown (``2d6 (**6**, 4) + 1 = `11```) without Markdown marks nor total: ``2d6 (6, 4) + 1``."""
    plain = str(detail or "").replace("**", "").replace("`", "").replace("~~", "")
    return plain.rsplit(" = ", 1)[0]  # the total is shown on its own


def _odds_text(odds: Any, lang: str) -> str:
    """A short line of odds, when the system provides them."""
    if not isinstance(odds, dict):
        return ""
    summary = odds.get("summary")
    if isinstance(summary, dict) and summary.get(lang):
        return str(summary[lang])
    success = odds.get("success")
    if isinstance(success, int | float) and not isinstance(success, bool):
        percent = round(100 * float(success))
        return _("%(percent)d %% chance of success") % {"percent": percent}
    return ""


def _page_posts(request: HttpRequest, thread: Thread, first: int, last: int) -> list[Post]:
    qs = (
        access.post_places(request.user, thread)
        .filter(number__gte=first, number__lte=last)
        .select_related("author__profile", "character", "reply_to", "hidden_by")
        .prefetch_related("rolls", "recipients__profile")
        .order_by("number")
    )
    return list(qs)


def thread_detail(request: HttpRequest, thread_id: int) -> HttpResponse:
    """A page of a thread: posts numbered ``(page-1)*20+1 .. page*20`` (a range, no OFFSET)."""
    thread = access.get_thread_for_user(request.user, thread_id, reader=True)
    campaign = thread.campaign
    role = access.role_of(request.user, campaign)
    if role is None and request.user.is_authenticated:
        request.user._is_moderator = access.is_moderator(request.user)
    num_pages = page_of(thread.post_count)
    if "n" in request.GET:
        try:
            number = int(request.GET["n"])
        except ValueError:
            number = 1
        url = reverse("campaigns:thread", kwargs={"thread_id": thread.pk})
        return redirect(f"{url}?page={page_of(number)}#post-{number}")
    try:
        page = max(1, min(num_pages, int(request.GET.get("page", "1"))))
    except ValueError:
        page = 1
    first = (page - 1) * POSTS_PER_PAGE + 1
    last = page * POSTS_PER_PAGE
    posts = _page_posts(request, thread, first, last)
    last_read = None
    if request.user.is_authenticated:
        last_read = getattr(thread, "reader_last_read", None) or 0
        if posts and posts[-1].number > last_read:
            services.mark_read(request.user, thread, posts[-1].number)
    _decorate(posts, request.user, campaign, role, last_read)
    form = None
    if access.can_post(request.user, campaign) and (not thread.locked or role in access.GM_ROLES):
        form = _post_form(request, campaign, **_prefill(request))
    ctx = _campaign_context(
        request,
        campaign,
        thread=thread,
        posts=posts,
        page=page,
        num_pages=num_pages,
        page_range=_page_links(page, num_pages),
        is_last_page=page == num_pages,
        last_number=max(last if page < num_pages else thread.post_count, 0),
        form=form,
        thread_form=ThreadForm(initial={"title": thread.title, "sticky": thread.sticky, "locked": thread.locked}),
        per_page=POSTS_PER_PAGE,
    )
    return render(request, "campaigns/thread_detail.html", ctx)


def _page_links(page: int, num_pages: int) -> list[int | None]:
    pages = sorted({1, 2, page - 2, page - 1, page, page + 1, page + 2, num_pages - 1, num_pages})
    links: list[int | None] = []
    previous = 0
    for p in pages:
        if p < 1 or p > num_pages:
            continue
        if p - previous > 1:
            links.append(None)
        links.append(p)
        previous = p
    return links


@login_required
def thread_unread(request: HttpRequest, thread_id: int) -> HttpResponse:
    """Jump to the first post the user has not read."""
    thread = access.get_thread_for_user(request.user, thread_id)
    last_read = (
        ThreadRead.objects.filter(user=request.user, thread=thread).values_list("last_read_number", flat=True).first()
        or 0
    )
    number = (
        access.visible_posts(request.user, thread)
        .filter(number__gt=last_read)
        .order_by("number")
        .values_list("number", flat=True)
        .first()
    )
    number = number or max(thread.post_count, 1)
    url = reverse("campaigns:thread", kwargs={"thread_id": thread.pk})
    return redirect(f"{url}?page={page_of(number)}#post-{number}")


def thread_new_posts(request: HttpRequest, thread_id: int) -> HttpResponse:
    """Live fragment: the posts after ``after`` the user may see (appended), and a new poller."""
    thread = access.get_thread_for_user(request.user, thread_id)
    campaign = thread.campaign
    role = access.role_of(request.user, campaign)
    try:
        after = max(0, int(request.GET.get("after", "0")))
    except ValueError:
        after = 0
    mode = request.GET.get("mode", "append")
    posts = _page_posts(request, thread, after + 1, after + POSTS_PER_PAGE) if mode == "append" else []
    if mode == "append" and posts:
        _decorate(posts, request.user, campaign, role, None)
        for post in posts:
            post.is_new = True
        if request.user.is_authenticated:
            services.mark_read(request.user, thread, posts[-1].number)
    newer = thread.post_count > after
    ctx = _campaign_context(
        request,
        campaign,
        thread=thread,
        posts=posts,
        after=posts[-1].number if posts else after,
        mode=mode,
        newer=newer and mode != "append",
        unread_url=reverse("campaigns:thread_unread", kwargs={"thread_id": thread.pk}),
    )
    return render(request, "campaigns/partials/new_posts.html", ctx)


@login_required
@require_POST
def thread_reply(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = access.get_thread_for_user(request.user, thread_id)
    campaign = thread.campaign
    form = _post_form(request, campaign, request.POST)
    if form.is_valid():
        reply_to = None
        if form.cleaned_data.get("reply_to"):
            reply_to = Post.objects.filter(pk=form.cleaned_data["reply_to"], thread=thread).first()
        try:
            post = services.create_post(
                request.user,
                thread,
                body=form.cleaned_data["body"],
                character=form.cleaned_data["character"] or None,
                visibility=form.cleaned_data["visibility"],
                recipients=form.cleaned_data["recipients"],
                roll_requests=form.roll_requests(),
                client_nonce=form.cleaned_data.get("client_nonce") or None,
                reply_to=reply_to,
                turn_for=form.cleaned_data.get("turn_for") or (),
            )
        except ValidationError as exc:
            apply_errors(form, exc)
            if isinstance(exc, RateLimited):
                ctx = _campaign_context(request, campaign, thread=thread, form=form)
                response = render(request, "campaigns/post_form_page.html", ctx, status=429)
                response["Retry-After"] = str(max(1, exc.retry_after))
                return response
        else:
            url = reverse("campaigns:thread", kwargs={"thread_id": thread.pk})
            return redirect(f"{url}?page={page_of(post.number)}#post-{post.number}")
    ctx = _campaign_context(request, campaign, thread=thread, form=form)
    return render(request, "campaigns/post_form_page.html", ctx, status=400)


def roll_fields(request: HttpRequest, slug: str) -> HttpResponse:
    """htmx fragment: the fields of the chosen system test, generated from its declaration."""
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    form = _post_form(request, campaign, test_kind=request.GET.get("test_kind", ""))
    return render(request, "campaigns/partials/test_fields.html", {"form": form})


@login_required
def roll_from_sheet(request: HttpRequest, slug: str) -> HttpResponse:
    """A sheet line's "Roll" control: open the chosen thread's post form with the test prefilled."""
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    try:
        thread_id = int(request.GET.get("thread", ""))
    except ValueError:
        raise Http404 from None
    thread = get_object_or_404(Thread, pk=thread_id, campaign=campaign)
    if thread.locked and not access.is_gm(request.user, campaign):
        raise Http404
    query = urlencode({"character": request.GET.get("character", "")[:20], "test": request.GET.get("test", "")[:100]})
    url = reverse("campaigns:thread", kwargs={"thread_id": thread.pk})
    return redirect(f"{url}?page={page_of(max(thread.post_count, 1))}&{query}#reply")


def sheet_test_fields(request: HttpRequest, slug: str) -> HttpResponse:
    """htmx fragment: what the chosen character can roll, the values it reads and the inputs to declare."""
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    initial = {k: request.GET.get(k, "")[:100] for k in ("sheet_character", "sheet_test")}
    form = _post_form(request, campaign, initial=initial)
    return render(request, "campaigns/partials/sheet_test_fields.html", {"form": form})


def _sheet_preview(request: HttpRequest, campaign: Campaign, form: PostForm) -> tuple[str, list[str], str]:
    """Odds of the chosen sheet test, built by the rules from the sheet (nothing rolled nor stored)."""
    lang = get_language() or "fr"
    errors = [
        _("%(field)s: %(error)s") % {"field": form.fields[name].label, "error": message}
        for name, messages_ in form.errors.items()
        if name.startswith("declared__")
        for message in messages_
    ]
    sheet = form.sheet_request() if not errors else None
    if sheet is None:
        return "", errors, ""
    character = form.sheet_characters[str(sheet["character_id"])]
    try:
        test, source = services.build_sheet_test(
            request.user, campaign, character, sheet["sheet_test"]["test"], sheet["sheet_test"]["declared"]
        )
        odds = dice.preview_odds(campaign, test)
    except RulesError as exc:
        return "", [e.message.get(lang) for e in exc.errors], ""
    return _odds_text(odds, lang), [], play.reads_text(source, lang)


def roll_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """htmx fragment: the odds of the system test being filled in, before anything is rolled.

    Fed by the post form as the player types (the SMS spell builder shows the spell's difficulty
    and energy cost). Nothing is rolled nor stored; the numbers come from ``rules`` only.
    """
    campaign = access.get_campaign_for_user(request.user, slug)
    if not access.can_post(request.user, campaign):
        raise Http404
    form = _post_form(request, campaign, data=request.GET)
    form.is_valid()
    if request.GET.get("sheet_test"):
        text, errors, reads = _sheet_preview(request, campaign, form)
        context = {"preview": text, "preview_errors": errors, "preview_reads": reads}
        return render(request, "campaigns/partials/roll_preview.html", context)
    errors = [
        _("%(field)s: %(error)s") % {"field": form.fields[name].label, "error": message}
        for name, messages_ in form.errors.items()
        if name.startswith("test__")
        for message in messages_
    ]
    text = ""
    kind = form.cleaned_data.get("test_kind") if hasattr(form, "cleaned_data") else ""
    if kind and form.test_specs and not errors:
        test = collect_rules_values(form.cleaned_data, form.test_specs, "test__")
        test["kind"] = kind
        try:
            odds = dice.preview_odds(campaign, test)
        except RulesError as exc:
            errors = [e.message.get(get_language() or "fr") for e in exc.errors]
        else:
            text = _odds_text(odds, get_language() or "fr")
    return render(request, "campaigns/partials/roll_preview.html", {"preview": text, "preview_errors": errors})


@login_required
@require_POST
def thread_settings(request: HttpRequest, thread_id: int) -> HttpResponse:
    thread = access.get_thread_for_user(request.user, thread_id)
    if not access.is_gm(request.user, thread.campaign):
        raise PermissionDenied
    form = ThreadForm(request.POST)
    if form.is_valid():
        _run(
            request,
            services.update_thread,
            request.user,
            thread,
            title=form.cleaned_data["title"],
            sticky=form.cleaned_data["sticky"],
            locked=form.cleaned_data["locked"],
            success=_("Thread updated."),
        )
    else:
        messages.error(request, _("Give the thread a title (160 characters at most)."))
    return redirect("campaigns:thread", thread_id=thread.pk)


def post_link(request: HttpRequest, post_id: int) -> HttpResponse:
    post = access.get_post_for_user(request.user, post_id)
    url = reverse("campaigns:thread", kwargs={"thread_id": post.thread_id})
    return redirect(f"{url}?page={page_of(post.number)}#post-{post.number}")


@login_required
def post_edit(request: HttpRequest, post_id: int) -> HttpResponse:
    post = access.get_post_for_user(request.user, post_id)
    if not access.can_edit_post(request.user, post):
        raise PermissionDenied
    form = EditPostForm(request.POST or None, initial={"body": post.body})
    if request.method == "POST" and form.is_valid():
        try:
            services.edit_post(request.user, post, body=form.cleaned_data["body"])
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Post edited; the previous version is kept."))
            return redirect("campaigns:post", post_id=post.pk)
    ctx = _campaign_context(request, post.campaign, post=post, thread=post.thread, form=form)
    return render(request, "campaigns/post_edit.html", ctx, status=400 if form.errors else 200)


def post_history(request: HttpRequest, post_id: int) -> HttpResponse:
    """Every version of a post: the author, the GM and co-GMs."""
    post = access.get_post_for_user(request.user, post_id)
    if not (post.author_id == getattr(request.user, "pk", None) or access.is_gm(request.user, post.campaign)):
        raise Http404
    versions = post.versions.select_related("edited_by__profile").order_by("-id")
    ctx = _campaign_context(request, post.campaign, post=post, thread=post.thread, versions=versions)
    return render(request, "campaigns/post_history.html", ctx)


def post_quote(request: HttpRequest, post_id: int) -> HttpResponse:
    """The reply form prefilled with a quotation of the post (htmx fragment or full page)."""
    post = access.get_post_for_user(request.user, post_id)
    if not access.can_post(request.user, post.campaign):
        raise Http404
    from accounts.models import display_name

    author = post.character.name if post.character_id else display_name(post.author)
    form = _post_form(request, post.campaign, initial={"body": quote_markdown(post.body, author), "reply_to": post.pk})
    ctx = _campaign_context(request, post.campaign, thread=post.thread, form=form, reply_post=post)
    if request.htmx:
        return render(request, "campaigns/partials/post_form.html", ctx)
    return render(request, "campaigns/post_form_page.html", ctx)


@login_required
@require_POST
def post_hide(request: HttpRequest, post_id: int) -> HttpResponse:
    """Hide or show again a post (GM, co-GM, moderator); recorded in the audit log."""
    from moderation import services as moderation

    post = access.get_post_for_user(request.user, post_id)
    reason = request.POST.get("reason", "")
    try:
        if request.POST.get("hidden", "1") == "1":
            moderation.hide_post(request.user, post, reason=reason)
            messages.success(request, _("Post hidden. Its rolls stay visible."))
        else:
            moderation.restore_post(request.user, post, reason=reason)
            messages.success(request, _("Post shown again."))
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    return redirect("campaigns:post", post_id=post.pk)


@login_required
@require_POST
def roll_lower(request: HttpRequest, roll_id: int) -> HttpResponse:
    """Spend experience to lower the die of one's own test (Altaride); the lowering is a new roll."""
    roll = get_object_or_404(Roll.objects.select_related("campaign", "post"), pk=roll_id)
    if not access.can_see_roll(request.user, roll) or roll.post_id is None:
        raise Http404
    try:
        lowered = services.lower_roll_die(request.user, roll, points=request.POST.get("points"))
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    else:
        messages.success(request, _("Die lowered: roll #%(n)d records the new result.") % {"n": lowered.sequence})
    return redirect("campaigns:post", post_id=roll.post_id)


@login_required
@require_POST
def roll_difficulty(request: HttpRequest, roll_id: int) -> HttpResponse:
    """The GM sets the difficulty of a test after the roll; the re-reading is a new roll."""
    roll = get_object_or_404(Roll.objects.select_related("campaign", "post"), pk=roll_id)
    if not access.can_see_roll(request.user, roll) or roll.post_id is None:
        raise Http404
    try:
        reread = services.set_roll_difficulty(request.user, roll, difficulty=request.POST.get("difficulty"))
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    else:
        messages.success(request, _("Difficulty set: roll #%(n)d records the result.") % {"n": reread.sequence})
    return redirect("campaigns:post", post_id=roll.post_id)


@login_required
@require_POST
def roll_gm_inputs(request: HttpRequest, roll_id: int) -> HttpResponse:
    """The GM adds GM-only inputs to a sheet roll after it; the same draws are re-read in a new roll."""
    roll = get_object_or_404(Roll.objects.select_related("campaign", "post"), pk=roll_id)
    if not access.can_see_roll(request.user, roll) or roll.post_id is None:
        raise Http404
    source = roll.request.get("from_sheet") if isinstance(roll.request, dict) else None
    declared: dict[str, Any] = {}
    for spec in (source or {}).get("gm_fields") or []:
        name = f"gm__{spec.get('path')}"
        raw = request.POST.get(name, "")
        if spec.get("kind") == "bool":
            if raw:
                declared[spec["path"]] = True
        elif raw != "" and spec.get("kind") == "int":
            try:
                declared[spec["path"]] = int(raw)
            except ValueError:
                messages.error(request, _("%(field)s: enter a whole number.") % {"field": spec["path"]})
                return redirect("campaigns:post", post_id=roll.post_id)
        elif raw != "":
            declared[spec["path"]] = raw[:100]
    try:
        reread = services.add_gm_inputs(request.user, roll, declared=declared)
    except ValidationError as exc:
        for error in exc.messages:
            messages.error(request, error)
    else:
        messages.success(request, _("GM's inputs added: roll #%(n)d records the result.") % {"n": reread.sequence})
    return redirect("campaigns:post", post_id=roll.post_id)


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------
def search_posts(user: Any, campaign: Campaign, query: str) -> list[Post]:
    """Posts of the campaign matching ``query`` that the user may see.

    PostgreSQL: full-text search over the stored French + English vector,
    ranked. SQLite (embedded default): a case-insensitive substring match.
    """
    from django.conf import settings

    query = (query or "").strip()
    if not query:
        return []
    base = access.visible_posts_in_campaign(user, campaign)
    if getattr(settings, "USING_POSTGRES", False):
        from django.contrib.postgres.search import SearchQuery, SearchRank

        search = SearchQuery(query, config="french", search_type="websearch") | SearchQuery(
            query, config="english", search_type="websearch"
        )
        qs = (
            base.filter(search_vector=search)
            .annotate(rank=SearchRank("search_vector", search))
            .order_by("-rank", "-created")
        )
    else:
        qs = base.filter(body__icontains=query).order_by("-created")
    return list(qs.select_related("thread", "author__profile", "character")[:SEARCH_LIMIT])


def search(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    form = SearchForm(request.GET or None)
    results: list[Post] = []
    if form.is_valid():
        results = search_posts(request.user, campaign, form.cleaned_data["q"])
    ctx = _campaign_context(request, campaign, form=form, results=results, searched=bool(request.GET.get("q")))
    return render(request, "campaigns/search.html", ctx)


# ---------------------------------------------------------------------------
# Rolls
# ---------------------------------------------------------------------------
def rolls_verify(request: HttpRequest, slug: str) -> HttpResponse:
    """Recompute the campaign's roll chain on the server, and offer the in-browser check."""
    campaign = access.get_campaign_for_user(request.user, slug)
    ok, problems = dice.verify_chain(campaign)
    messages_ = _verify_messages()
    problems = [_translate_problem(p, messages_) for p in problems]
    count = Roll.objects.filter(campaign=campaign).count()
    seeds = dice.export_seeds(campaign)
    ctx = _campaign_context(
        request,
        campaign,
        ok=ok,
        problems=problems,
        count=count,
        last_hash=dice.chain_head(campaign)["hash"] if count else None,
        seeds=list(reversed(seeds)),
        server_nonces=Roll.objects.filter(campaign=campaign, fair__nonce_by="server").count(),
        verify_messages=messages_,
    )
    return render(request, "campaigns/rolls_verify.html", ctx)


_SERVER_PROBLEMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"roll #(\d+): expected sequence (\d+) \(a roll is missing\)"), "sequence"),
    (re.compile(r"roll #(\d+): previous hash does not match roll #\d+"), "prev"),
    (re.compile(r"roll #(\d+): content does not match its hash \(altered\)"), "hash"),
    (re.compile(r"roll #(\d+): drawn from a seed whose commitment was not published"), "unpublished"),
    (re.compile(r"roll #(\d+): the request does not match the one the dice were drawn for"), "request"),
    (re.compile(r"roll #(\d+): the dice shown differ from the dice drawn"), "shown"),
    (re.compile(r"roll #(\d+): the revealed seed does not match its commitment"), "commitment"),
    (re.compile(r"roll #(\d+): the dice are not those of the seed, nonce and request"), "dice"),
    (re.compile(r"roll #(\d+): its dice differ from those of roll #(\d+)"), "derived"),
    (re.compile(r"roll #(\d+): dice not drawn from a committed seed"), "unproven"),
    (re.compile(r"roll #(\d+): the total is not the one its dice give"), "total"),
]


def _translate_problem(problem: str, messages_: dict[str, str]) -> str:
    """A problem of ``dice.verify_chain`` (English, for the command and the API) in the page's language."""
    for pattern, code in _SERVER_PROBLEMS:
        match = pattern.fullmatch(problem)
        if match:
            text = messages_[code]
            for i, value in enumerate(match.groups()):
                text = text.replace("{" + str(i) + "}", value)
            return text
    return problem


def _verify_messages() -> dict[str, str]:
    """The in-browser verifier's messages ({0}, {1}: numbers filled in by static/js/rolls.js)."""
    return {
        "ok": _(
            "✔ Verified by your browser: the chain, every revealed die, the checkpoints and the heads you saw agree."
        ),
        "broken": _("✘ First discrepancy: {1}"),
        "failed": _("The check could not run:"),
        "stats": _(
            "Rolls: {0}; recomputed from a revealed seed: {1}; waiting for their seed: {2}; without a browser"
            " nonce: {3}; heads seen by this browser: {4}; signed checkpoints: {5}."
        ),
        "foreseen": _("Rolls drawn from a seed whose commitment this browser had seen before: {0}."),
        "sequence": _("roll #{0} is where roll #{1} should be (a roll is missing or out of order)."),
        "prev": _("roll #{0} does not point to the roll before it."),
        "hash": _("roll #{0} does not match its hash (altered)."),
        "shown_content": _("roll #{0}: the content shown differs from the content hashed."),
        "unpublished": _("roll #{0} was drawn from a seed whose commitment was not published."),
        "request": _("roll #{0}: the request does not match the one its dice were drawn for."),
        "shown": _("roll #{0}: the dice shown differ from the dice drawn."),
        "commitment": _("roll #{0}: the revealed seed does not match its commitment."),
        "dice": _("roll #{0}: the dice are not those its seed, nonce and request give."),
        "derived": _("roll #{0}: its dice differ from those of roll #{1} it re-reads."),
        "unproven": _("roll #{0} has dice that were not drawn from a committed seed."),
        "total": _("roll #{0}: the total is not the one its dice give."),
        "head_missing": _("roll #{0}, which this browser saw, is no longer in the chain."),
        "head_rewritten": _("roll #{0}: the chain was rewritten since this browser saw it."),
        "commitment_changed": _("seed #{0}: its commitment differs from the one this browser was shown."),
        "signature": _("the checkpoint at roll #{0} is not signed by this site's key."),
        "no_ed25519": _("this browser cannot check Ed25519 signatures (checkpoint at roll #{0})."),
        "checkpoint_missing": _("roll #{0} of a signed checkpoint is no longer in the chain."),
        "checkpoint_rewritten": _("roll #{0}: the chain differs from the signed checkpoint."),
        "key_changed": _("this site's signing key differs from the one this browser saw before."),
    }


def rolls_export(request: HttpRequest, slug: str) -> JsonResponse:
    """The chain as JSON: rolls the user may not see appear only as digests."""
    campaign = access.get_campaign_for_user(request.user, slug)
    response = JsonResponse(
        checkpoints.export_document(request.user, campaign), json_dumps_params={"ensure_ascii": False}
    )
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="tablee-rolls-{campaign.slug}.json"'
    return response


def rolls_checkpoint(request: HttpRequest, slug: str) -> JsonResponse:
    """A signed checkpoint of the chain head, as a file to keep."""
    campaign = access.get_campaign_for_user(request.user, slug)
    response = JsonResponse(checkpoints.checkpoint(campaign))
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="tablee-checkpoint-{campaign.slug}-{stamp}.json"'
    return response


@require_POST
@login_required
def rolls_rotate(request: HttpRequest, slug: str) -> HttpResponse:
    """A GM reveals the current dice seed now (the next commitment is published at once)."""
    campaign = access.get_campaign_for_user(request.user, slug)
    try:
        revealed, _current = services.rotate_roll_seed(request.user, campaign)
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(
            request, _("Seed #%(n)d is revealed: its rolls can now be recomputed.") % {"n": revealed.index}
        )
    return redirect("campaigns:rolls_verify", slug=campaign.slug)


def rolls_public_key(request: HttpRequest) -> JsonResponse:
    """``/.well-known/tablee-rolls-key``: the public key that signs dice checkpoints."""
    response = JsonResponse(checkpoints.public_key_info())
    response["Access-Control-Allow-Origin"] = "*"
    return response


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# Notifications
# ---------------------------------------------------------------------------
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
