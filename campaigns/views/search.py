"""Searching a campaign's posts."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from campaigns import access
from campaigns.forms import (
    SearchForm,
)
from campaigns.models import (
    Campaign,
    Post,
)
from campaigns.views.common import SEARCH_LIMIT, _campaign_context


def search_posts(user: Any, campaign: Campaign, query: str) -> list[Post]:
    """Posts of the campaign matching ``query`` that the user may see.

    PostgreSQL: full-text search over the stored French + English vector,
    ranked. SQLite (embedded default): a case-insensitive substring match.
    """
    query = (query or "").strip()
    if not query:
        return []
    base = access.visible_posts_in_campaign(user, campaign)
    if getattr(settings, "USING_POSTGRES", False):
        from django.contrib.postgres.search import SearchQuery, SearchRank

        search = SearchQuery(query, config="french", search_type="websearch") | SearchQuery(
            query, config="english", search_type="websearch"
        )
        qs = (
            base.filter(search_vector=search)
            .annotate(rank=SearchRank("search_vector", search))
            .order_by("-rank", "-created")
        )
    else:
        qs = base.filter(body__icontains=query).order_by("-created")
    return list(qs.select_related("thread", "author__profile", "character")[:SEARCH_LIMIT])


def search(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = access.get_campaign_for_user(request.user, slug)
    form = SearchForm(request.GET or None)
    results: list[Post] = []
    if form.is_valid():
        results = search_posts(request.user, campaign, form.cleaned_data["q"])
    ctx = _campaign_context(request, campaign, form=form, results=results, searched=bool(request.GET.get("q")))
    return render(request, "campaigns/search.html", ctx)
