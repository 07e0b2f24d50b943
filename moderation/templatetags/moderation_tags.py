"""Template helpers: links to reported things that tolerate missing routes."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse

from campaigns.access import is_moderator as _is_moderator

register = template.Library()

#: Route names tried in order for each kind of target (the campaigns app owns them).
_ROUTES: dict[str, tuple[str, ...]] = {
    "campaign": ("campaigns:detail", "campaigns:campaign"),
    "thread": ("campaigns:thread", "campaigns:thread_detail"),
    "character": ("characters:detail",),
}


def _reverse_first(names: tuple[str, ...], *candidates: tuple[Any, ...]) -> str:
    for name in names:
        for args in candidates:
            try:
                return reverse(name, args=args)
            except NoReverseMatch:
                continue
    return ""


@register.simple_tag
def target_url(obj: Any) -> str:
    """A link to a campaign, thread, post or character, or ``""`` when no route exists."""
    if obj is None:
        return ""
    if hasattr(obj, "get_absolute_url"):
        try:
            return obj.get_absolute_url()
        except (NoReverseMatch, AttributeError):
            pass
    model = obj._meta.model_name
    if model == "campaign":
        return _reverse_first(_ROUTES["campaign"], (obj.slug,), (obj.pk,))
    if model == "thread":
        return _reverse_first(_ROUTES["thread"], (obj.pk,), (obj.campaign.slug, obj.pk))
    if model == "post":
        url = _reverse_first(("campaigns:post",), (obj.pk,))
        if url:
            return url
        url = target_url(obj.thread)
        return f"{url}#post-{obj.number}" if url else ""
    if model == "character":
        return _reverse_first(_ROUTES["character"], (obj.pk,))
    return ""


@register.filter
def is_moderator(user: Any) -> bool:
    return _is_moderator(user)
