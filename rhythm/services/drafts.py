"""Drafts of a post, kept per member and thread."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import Thread
from rhythm.models import (
    Draft,
)

MAX_DRAFT_LENGTH = 40000


def save_draft(user: Any, thread: Thread, *, body: str) -> Draft | None:
    """Keep what the member is typing (debounced by the browser); an empty text deletes the draft."""
    if not access.can_read_forum(user, thread.campaign) or not access.can_post(user, thread.campaign):
        raise Http404
    body = body or ""
    if len(body) > MAX_DRAFT_LENGTH:
        raise ValidationError({"body": [_("This draft is too long to be kept.")]})
    if not body.strip():
        Draft.objects.filter(user=user, thread=thread).delete()
        return None
    draft, _created = Draft.objects.update_or_create(user=user, thread=thread, defaults={"body": body})
    return draft


def get_draft(user: Any, thread: Thread) -> str:
    if not user.is_authenticated:
        return ""
    return Draft.objects.filter(user=user, thread=thread).values_list("body", flat=True).first() or ""
