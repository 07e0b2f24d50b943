"""Campaigns: directory, detail, members."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import rules
from api.pagination import PagePagination
from api.serializers import CampaignSerializer, MembershipSerializer
from campaigns import access
from campaigns.models import Campaign, Membership

CAMPAIGN = OpenApiParameter(
    "campaign", str, OpenApiParameter.PATH, description="Campaign id or slug."
)


def visible_campaigns(user: Any) -> QuerySet[Campaign]:
    """Public campaigns, the member's own, and everything for moderators."""
    queryset = Campaign.objects.all()
    if access.is_moderator(user):
        return queryset
    condition = Q(is_public=True)
    if user.is_authenticated:
        condition |= Q(memberships__user=user)
    return queryset.filter(condition).distinct()


def _bool(value: str | None) -> bool | None:
    if value is None or value == "":
        return None
    return value.strip().lower() in {"1", "true", "yes", "on"}


@extend_schema(
    tags=["campaigns"],
    parameters=[
        OpenApiParameter("system", str, enum=list(rules.SYSTEM_MODULES), description="Only this rule system."),
        OpenApiParameter("recruiting", bool, description="Only campaigns looking for players."),
        OpenApiParameter("mine", bool, description="Only campaigns you are a member of."),
        OpenApiParameter("q", str, description="Words in the title."),
    ],
)
class CampaignListView(generics.ListAPIView):
    """The campaign directory (*annuaire des tables*): what you may see."""

    permission_classes = [AllowAny]
    serializer_class = CampaignSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[Campaign]:
        params = self.request.query_params
        queryset = visible_campaigns(self.request.user)
        if params.get("system"):
            queryset = queryset.filter(system=params["system"])
        recruiting = _bool(params.get("recruiting"))
        if recruiting is not None:
            queryset = queryset.filter(recruiting=recruiting)
        if _bool(params.get("mine")):
            if not self.request.user.is_authenticated:
                return queryset.none()
            queryset = queryset.filter(memberships__user=self.request.user)
        if params.get("q"):
            queryset = queryset.filter(title__icontains=params["q"][:100])
        return (
            queryset.annotate(member_count=Count("memberships", distinct=True))
            .select_related("created_by")
            .order_by("-created", "-id")
        )


class CampaignDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[CAMPAIGN], responses=CampaignSerializer, operation_id="campaigns_retrieve", tags=["campaigns"]
    )
    def get(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        obj.member_count = obj.memberships.count()
        return Response(CampaignSerializer(obj, context={"request": request}).data)


@extend_schema(parameters=[CAMPAIGN], tags=["campaigns"])
class MembershipListView(generics.ListAPIView):
    """Members of a campaign and their roles: whoever sees the campaign."""

    permission_classes = [AllowAny]
    serializer_class = MembershipSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[Membership]:
        obj = access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        return obj.memberships.select_related("user", "user__profile").order_by("joined", "id")
