"""Boards and threads: adding, renaming, ordering boards; opening and changing threads; reading marks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import (
    Board,
    Campaign,
    Post,
    Thread,
    ThreadRead,
)
from campaigns.services.common import _clean_name, _require_gm, _require_member_writer
from campaigns.services.posts import create_post


def add_board(user: Any, campaign: Campaign, *, name: str, kind: str = Board.Kind.OTHER) -> Board:
    _require_gm(user, campaign)
    name = _clean_name(name)
    if kind not in Board.Kind.values:
        raise ValidationError({"kind": [_("Choose a kind from the list.")]})
    with transaction.atomic():
        last = campaign.boards.order_by("-position").values_list("position", flat=True).first()
        return Board.objects.create(campaign=campaign, name=name, kind=kind, position=(last or 0) + 1)


def rename_board(user: Any, board: Board, *, name: str) -> Board:
    _require_gm(user, board.campaign)
    board.name = _clean_name(name)
    board.save(update_fields=["name"])
    return board


def move_board(user: Any, board: Board, *, offset: int) -> list[Board]:
    """Move a board up (``-1``) or down (``+1``) in the campaign's order."""
    _require_gm(user, board.campaign)
    with transaction.atomic():
        boards = list(board.campaign.boards.select_for_update().order_by("position", "id"))
        index = next(i for i, b in enumerate(boards) if b.pk == board.pk)
        target = max(0, min(len(boards) - 1, index + offset))
        boards.insert(target, boards.pop(index))
        for position, item in enumerate(boards):
            if item.position != position:
                item.position = position
                item.save(update_fields=["position"])
    return boards


def create_thread(
    user: Any,
    board: Board,
    *,
    title: str,
    body: str,
    sticky: bool = False,
    locked: bool = False,
    character: Any = None,
    visibility: str = Post.Visibility.PUBLIC,
    recipients: Iterable[Any] = (),
    roll_requests: Sequence[dict[str, Any]] = (),
    client_nonce: str | None = None,
) -> Thread:
    """Open a thread (a scene) with its first post. Sticky/locked: GMs only."""
    campaign = board.campaign
    _require_member_writer(user, campaign)
    title = _clean_name(title, "title", 160)
    if (sticky or locked) and not access.is_gm(user, campaign):
        raise PermissionDenied(_("Only the GM and co-GMs can do this."))
    with transaction.atomic():
        thread = Thread.objects.create(
            board=board, campaign=campaign, title=title, created_by=user, sticky=sticky, locked=False
        )
        create_post(
            user,
            thread,
            body=body,
            character=character,
            visibility=visibility,
            recipients=recipients,
            roll_requests=roll_requests,
            client_nonce=client_nonce,
        )
        if locked:
            Thread.objects.filter(pk=thread.pk).update(locked=True)
            thread.locked = True
    thread.refresh_from_db()
    return thread


def update_thread(
    user: Any,
    thread: Thread,
    *,
    title: str | None = None,
    sticky: bool | None = None,
    locked: bool | None = None,
    board: Board | None = None,
) -> Thread:
    """The GM or a co-GM renames, pins, locks or moves a thread."""
    _require_gm(user, thread.campaign)
    fields = []
    if title is not None:
        thread.title = _clean_name(title, "title", 160)
        fields.append("title")
    if sticky is not None:
        thread.sticky = bool(sticky)
        fields.append("sticky")
    if locked is not None:
        thread.locked = bool(locked)
        fields.append("locked")
    if board is not None:
        if board.campaign_id != thread.campaign_id:
            raise ValidationError({"board": [_("Choose a board of this campaign.")]})
        thread.board = board
        fields.append("board")
    if fields:
        thread.save(update_fields=fields)
    return thread


def mark_read(user: Any, thread: Thread, number: int) -> None:
    """Remember that the user has read the thread up to post ``number`` (never goes back)."""
    if user is None or not user.is_authenticated or number <= 0:
        return
    number = min(number, thread.post_count)
    updated = ThreadRead.objects.filter(user=user, thread=thread, last_read_number__lt=number).update(
        last_read_number=number, updated=timezone.now()
    )
    if not updated:
        try:
            with transaction.atomic():
                ThreadRead.objects.get_or_create(user=user, thread=thread, defaults={"last_read_number": number})
        except IntegrityError:
            pass
