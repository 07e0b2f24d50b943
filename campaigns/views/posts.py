"""One post: its link, editing, history, quoting, hiding."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import display_name
from campaigns import access, services
from campaigns.forms import (
    EditPostForm,
    apply_errors,
)
from campaigns.markup import quote_markdown
from campaigns.views.common import _campaign_context, page_of
from campaigns.views.postform import _post_form


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
    author = post.character.name if post.character_id else display_name(post.author)
    form = _post_form(request, post.campaign, initial={"body": quote_markdown(post.body, author), "reply_to": post.pk})
    ctx = _campaign_context(request, post.campaign, thread=post.thread, form=form, reply_post=post)
    if request.htmx:
        return render(request, "campaigns/partials/post_form.html", ctx)
    return render(request, "campaigns/post_form_page.html", ctx)
