"""Boards: managing them and listing their threads."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import access, services
from campaigns.forms import (
    BoardForm,
    RenameForm,
    apply_errors,
)
from campaigns.models import (
    Board,
)
from campaigns.views.common import THREADS_PER_PAGE, _campaign_context, _is_unread, _reads, _run


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
