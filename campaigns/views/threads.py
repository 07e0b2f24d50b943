"""Threads: opening one, reading its pages and new posts, replying, its settings."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access, play, services
from campaigns.forms import (
    ThreadForm,
    apply_errors,
)
from campaigns.models import (
    Board,
    Campaign,
    Post,
    Role,
    Thread,
    ThreadRead,
)
from campaigns.views.common import POSTS_PER_PAGE, _campaign_context, _lang, _odds_text, _plain_detail, _run, page_of
from campaigns.views.postform import _post_form, _prefill
from config.ratelimit import RateLimited


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
