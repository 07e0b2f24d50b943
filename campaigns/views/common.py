"""Helpers shared by the campaign pages: the campaign header context, page numbers, texts of rolls."""

from __future__ import annotations

import math
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from campaigns import access, dice
from campaigns.models import (
    Campaign,
    Role,
    Thread,
    ThreadRead,
)

User = get_user_model()


POSTS_PER_PAGE = 20


THREADS_PER_PAGE = 50


SEARCH_LIMIT = 50


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
