"""Helpers shared by the campaign pages: the campaign header context, page numbers, texts of rolls."""

from __future__ import annotations

import math
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import get_language

from campaigns.models import (
    Campaign,
    Thread,
    ThreadRead,
)
from campaigns.reads import campaign_view, odds_text, plain_detail

User = get_user_model()


POSTS_PER_PAGE = 20


THREADS_PER_PAGE = 50


SEARCH_LIMIT = 50


def _lang() -> str:
    return get_language() or "fr"


def _campaign_context(request: HttpRequest, campaign: Campaign, **extra: Any) -> dict[str, Any]:
    """The campaign header, rendered from the campaign's read model (:func:`campaigns.reads.campaign_view`)."""
    return {**campaign_view(request.user, campaign).page_context(), **extra}


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


def _reads(user: Any, threads: Any) -> dict[int, int]:
    if not user.is_authenticated:
        return {}
    ids = [t.pk for t in threads]
    return dict(ThreadRead.objects.filter(user=user, thread_id__in=ids).values_list("thread_id", "last_read_number"))


def _is_unread(user: Any, thread: Thread, reads: dict[int, int]) -> bool:
    return bool(user.is_authenticated and thread.post_count > reads.get(thread.pk, 0))


def page_of(number: int) -> int:
    return max(1, math.ceil(number / POSTS_PER_PAGE))


#: Texts of a roll (kept under their former names; see :mod:`campaigns.reads`).
_plain_detail = plain_detail
_odds_text = odds_text
