"""Rhythm fragments included by the forum's pages (thread header, GM overview, home)."""

from __future__ import annotations

from typing import Any

from django import template

from campaigns import access
from rhythm.services import get_draft, scene_view, sentence, waiting_in_campaign
from rhythm.services import waiting_on_you as items_for

register = template.Library()


@register.inclusion_tag("rhythm/partials/scene_header.html", takes_context=True)
def scene_header(context: dict[str, Any], thread: Any) -> dict[str, Any]:
    request = context["request"]
    return {
        "thread": thread,
        "scene": scene_view(request.user, thread),
        "is_gm": access.is_gm(request.user, thread.campaign),
        "request": request,
    }


@register.inclusion_tag("rhythm/partials/campaign_waiting.html", takes_context=True)
def campaign_waiting(context: dict[str, Any], campaign: Any) -> dict[str, Any]:
    request = context["request"]
    rows = waiting_in_campaign(campaign) if access.is_gm(request.user, campaign) else []
    return {"rows": rows, "campaign": campaign, "request": request}


@register.inclusion_tag("rhythm/partials/waiting_on_you.html", takes_context=True)
def waiting_on_you(context: dict[str, Any]) -> dict[str, Any]:
    request = context["request"]
    return {"items": items_for(request.user), "request": request}


@register.simple_tag(takes_context=True)
def post_draft(context: dict[str, Any], thread: Any) -> str:
    return get_draft(context["request"].user, thread)


@register.filter
def notification_sentence(item: Any) -> str:
    return sentence(item)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    try:
        return mapping.get(key)
    except AttributeError:
        return None
