"""Threads: opening one, reading its pages and new posts, replying, its settings."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access, services
from campaigns.forms import (
    ThreadForm,
    apply_errors,
)
from campaigns.models import (
    Board,
    Post,
    Thread,
    ThreadRead,
)
from campaigns.reads import PostView, page_posts, post_views, reader_for
from campaigns.views.common import POSTS_PER_PAGE, _campaign_context, _run, page_of
from campaigns.views.postform import _post_form, _prefill, _reply_form
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


def _page_posts(request: HttpRequest, thread: Thread, first: int, last: int) -> list[Post]:
    return page_posts(request.user, thread, first, last)


def thread_detail(request: HttpRequest, thread_id: int) -> HttpResponse:
    """A page of a thread: posts numbered ``(page-1)*20+1 .. page*20`` (a range, no OFFSET)."""
    thread = access.get_thread_for_user(request.user, thread_id, reader=True)
    campaign = thread.campaign
    role = access.role_of(request.user, campaign)
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
    views = post_views(reader_for(request.user, campaign), posts, last_read=last_read)
    form = None
    if access.can_post(request.user, campaign) and (not thread.locked or role in access.GM_ROLES):
        form = _reply_form(request, campaign, thread, **_prefill(request))
    ctx = _campaign_context(
        request,
        campaign,
        thread=thread,
        posts=views,
        page=page,
        num_pages=num_pages,
        page_range=_page_links(page, num_pages),
        is_last_page=page == num_pages,
        last_number=max(last if page < num_pages else thread.post_count, 0),
        form=form,
        # The thread's settings form: a GM's only (the page shows it to them alone).
        thread_form=ThreadForm(initial={"title": thread.title, "sticky": thread.sticky, "locked": thread.locked})
        if role in access.GM_ROLES
        else None,
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
    try:
        after = max(0, int(request.GET.get("after", "0")))
    except ValueError:
        after = 0
    mode = request.GET.get("mode", "append")
    posts = _page_posts(request, thread, after + 1, after + POSTS_PER_PAGE) if mode == "append" else []
    views: list[PostView] = []
    if mode == "append" and posts:
        views = post_views(reader_for(request.user, campaign), posts, last_read=after)
        if request.user.is_authenticated:
            services.mark_read(request.user, thread, posts[-1].number)
    newer = thread.post_count > after
    ctx = _campaign_context(
        request,
        campaign,
        thread=thread,
        posts=views,
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
