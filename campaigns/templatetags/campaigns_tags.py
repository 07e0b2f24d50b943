"""Template helpers of the campaigns app."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from accounts.models import display_name
from campaigns.access import is_moderator
from campaigns.models import Notification
from campaigns.post_html import render_posts, render_reply_form, url_id

register = template.Library()


@register.simple_tag(takes_context=True)
def unread_notifications(context: dict[str, Any]) -> int:
    """Number of unread notifications of the current user (one cached query per request)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return 0
    cached = getattr(request, "_tablee_unread_notifications", None)
    if cached is None:
        cached = getattr(user, "tablee_unread", None)  # annotated by config.auth.load_user
    if cached is None:
        cached = Notification.objects.filter(user=user, read_at__isnull=True).count()
        request._tablee_unread_notifications = cached
    return cached


@register.filter(name="is_moderator")
def is_moderator_filter(user: Any) -> bool:
    """Site staff (moderators and admins); no query for the request's user."""
    return is_moderator(user)


@register.filter
def member_name(user: Any) -> str:
    return display_name(user)


@register.filter
def percent(value: Any) -> str:
    try:
        return f"{round(100 * float(value))} %"
    except (TypeError, ValueError):
        return ""


@register.filter(name="url_id")
def url_id_filter(value: Any, name: str) -> str:
    """``{{ post.pk|url_id:"campaigns:post_edit" }}``: the URL of a route taking one id (reversed once)."""
    return url_id(value, name)


@register.simple_tag(takes_context=True)
def post_items(context: Any, views: Any) -> SafeString:
    """The ``<li>`` of each :class:`campaigns.reads.PostView` (see :mod:`campaigns.post_html`)."""
    request = context.get("request")
    return render_posts(
        views, csrf_token=context.get("csrf_token"), full_path=request.get_full_path() if request is not None else ""
    )


@register.simple_tag(takes_context=True)
def reply_form(context: Any) -> SafeString:
    """The thread page's reply form (see :func:`campaigns.post_html.render_reply_form`)."""
    return render_reply_form(context)
