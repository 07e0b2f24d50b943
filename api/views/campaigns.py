"""Campaigns: directory, detail, create/update, members, invitations, join
requests, play sessions. Writes call :mod:`campaigns.services`."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import rules
from api.pagination import PagePagination
from api.serializers import (
    CampaignSerializer,
    CampaignWriteSerializer,
    CountSerializer,
    HandOverSerializer,
    InvitationCreateSerializer,
    InvitationSerializer,
    InviteLinkSerializer,
    JoinDecisionSerializer,
    JoinRequestCreateSerializer,
    JoinRequestSerializer,
    MemberRoleSerializer,
    MembershipSerializer,
    NotificationReadSerializer,
    NotificationSerializer,
    PlaySessionSerializer,
)
from api.views.common import CAMPAIGN, get_or_404, id_param, rename_fields, system_settings_field
from campaigns import access, services
from campaigns.models import Campaign, Invitation, JoinRequest, Membership, Notification, PlaySession
from rules.base import is_digits

User = get_user_model()


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


def _campaign_data(request: Request, campaign: Campaign) -> dict[str, Any]:
    return CampaignSerializer(campaign, context={"request": request}).data


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
    """The campaign directory (*annuaire des tables*): what you may see. POST creates a campaign (you are its GM)."""

    permission_classes = [AllowAny]
    serializer_class = CampaignSerializer
    pagination_class = PagePagination

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

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
        gms = Prefetch(
            "memberships",
            queryset=Membership.objects.filter(role="gm").select_related("user__profile"),
            to_attr="gm_memberships",
        )
        queryset = queryset.annotate(member_count=Count("memberships", distinct=True)).prefetch_related(gms)
        if self.request.user.is_authenticated:
            mine = Membership.objects.filter(campaign=OuterRef("pk"), user=self.request.user).values("role")[:1]
            queryset = queryset.annotate(viewer_role=Subquery(mine))
        return queryset.order_by("-created", "-id")

    @extend_schema(
        request=CampaignWriteSerializer, responses={201: CampaignSerializer}, operation_id="campaigns_create"
    )
    def post(self, request: Request) -> Response:
        serializer = CampaignWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        campaign = rename_fields(
            lambda: services.create_campaign(request.user, **serializer.validated_data), system_settings_field
        )
        return Response(_campaign_data(request, campaign), status=status.HTTP_201_CREATED)


class CampaignDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[CAMPAIGN], responses=CampaignSerializer, operation_id="campaigns_retrieve", tags=["campaigns"]
    )
    def get(self, request: Request, campaign: str) -> Response:
        return Response(_campaign_data(request, access.get_campaign_for_user(request.user, campaign)))

    @extend_schema(
        parameters=[CAMPAIGN],
        request=CampaignWriteSerializer(partial=True),
        responses=CampaignSerializer,
        operation_id="campaigns_update",
        tags=["campaigns"],
        description="GM and co-GMs. The rule system cannot change.",
    )
    def patch(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        serializer = CampaignWriteSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        data.pop("system", None)
        values = {
            "title": obj.title,
            "pitch": obj.pitch,
            "is_public": obj.is_public,
            "recruiting": obj.recruiting,
            "language": obj.language,
        }
        values.update(data)
        updated = rename_fields(lambda: services.update_campaign(request.user, obj, **values), system_settings_field)
        return Response(_campaign_data(request, updated))


@extend_schema(parameters=[CAMPAIGN], tags=["campaigns"])
class MembershipListView(generics.ListAPIView):
    """Members of a campaign and their roles: whoever sees the campaign."""

    permission_classes = [AllowAny]
    serializer_class = MembershipSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[Membership]:
        obj = access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        return obj.memberships.select_related("user", "user__profile").order_by("joined", "id")


MEMBER = id_param("user_id", description="The member's user id.")


class MembershipDetailView(APIView):
    """Change a member's role (GM) or remove a member (GM, co-GM; yourself: leave)."""

    permission_classes = [IsAuthenticated]

    def _member(self, campaign: Campaign, user_id: int) -> Any:
        membership = Membership.objects.filter(campaign=campaign, user_id=user_id).select_related("user").first()
        if membership is None:
            raise Http404
        return membership.user

    @extend_schema(
        parameters=[CAMPAIGN, MEMBER],
        request=MemberRoleSerializer,
        responses=MembershipSerializer,
        operation_id="campaigns_members_update",
        tags=["campaigns"],
    )
    def patch(self, request: Request, campaign: str, user_id: int) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        member = self._member(obj, user_id)
        serializer = MemberRoleSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.set_member_role(request.user, obj, member, role=serializer.validated_data["role"])
        return Response(MembershipSerializer(membership).data)

    @extend_schema(
        parameters=[CAMPAIGN, MEMBER],
        responses={204: None},
        operation_id="campaigns_members_remove",
        tags=["campaigns"],
    )
    def delete(self, request: Request, campaign: str, user_id: int) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        member = self._member(obj, user_id)
        if member.pk == request.user.pk:
            services.leave_campaign(request.user, obj)
        else:
            services.remove_member(request.user, obj, member)
        return Response(status=status.HTTP_204_NO_CONTENT)


class HandOverView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CAMPAIGN],
        request=HandOverSerializer,
        responses=CampaignSerializer,
        operation_id="campaigns_hand_over",
        tags=["campaigns"],
        description="The GM hands the campaign over to another member and becomes co-GM.",
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        serializer = HandOverSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        new_gm = User.objects.filter(pk=serializer.validated_data["user_id"]).first()
        if new_gm is None:
            raise ValidationError({"user_id": ["Choose another member of the campaign."]}, code="invalid")
        services.hand_over(request.user, obj, new_gm)
        return Response(_campaign_data(request, obj))


# ---------------------------------------------------------------------------
# Invitations
# ---------------------------------------------------------------------------
@extend_schema(parameters=[CAMPAIGN], tags=["campaigns"])
class CampaignInvitationListView(generics.ListAPIView):
    """Pending invitations of a campaign (GM, co-GM); POST invites a member by username."""

    permission_classes = [IsAuthenticated]
    serializer_class = InvitationSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[Invitation]:
        obj = access.get_campaign_for_user(self.request.user, self.kwargs["campaign"], write=True)
        return obj.invitations.filter(status=Invitation.Status.PENDING).select_related("user", "invited_by", "campaign")

    @extend_schema(
        request=InvitationCreateSerializer,
        responses={201: InvitationSerializer},
        operation_id="campaigns_invitations_create",
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        serializer = InvitationCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitation = services.invite_member(request.user, obj, **serializer.validated_data)
        return Response(InvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["me"])
class MyInvitationListView(generics.ListAPIView):
    """Your pending invitations."""

    permission_classes = [IsAuthenticated]
    serializer_class = InvitationSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[Invitation]:
        return Invitation.objects.filter(user=self.request.user, status=Invitation.Status.PENDING).select_related(
            "user", "invited_by", "campaign"
        )


INVITATION = id_param("invitation_id")


class InvitationAnswerView(APIView):
    """Accept or decline an invitation (the invitee); cancel it (GM, co-GM)."""

    permission_classes = [IsAuthenticated]
    action = "accept"

    @extend_schema(parameters=[INVITATION], request=None, responses=InvitationSerializer, tags=["campaigns"])
    def post(self, request: Request, invitation_id: int) -> Response:
        invitation = get_or_404(Invitation, invitation_id)
        if self.action == "cancel":
            services.cancel_invitation(request.user, invitation)
        else:
            services.answer_invitation(request.user, invitation, accept=self.action == "accept")
        invitation.refresh_from_db()
        return Response(InvitationSerializer(invitation).data)


# ---------------------------------------------------------------------------
# Join requests
# ---------------------------------------------------------------------------
@extend_schema(parameters=[CAMPAIGN], tags=["campaigns"])
class JoinRequestListView(generics.ListAPIView):
    """Pending join requests: all of them for GMs, your own otherwise. POST asks to join."""

    permission_classes = [IsAuthenticated]
    serializer_class = JoinRequestSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[JoinRequest]:
        obj = access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        queryset = obj.join_requests.filter(status=JoinRequest.Status.PENDING).select_related("user")
        if not access.is_gm(self.request.user, obj):
            queryset = queryset.filter(user=self.request.user)
        return queryset

    @extend_schema(
        request=JoinRequestCreateSerializer,
        responses={201: JoinRequestSerializer},
        operation_id="campaigns_join_requests_create",
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        serializer = JoinRequestCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        join = services.request_to_join(request.user, obj, message=serializer.validated_data["message"])
        return Response(JoinRequestSerializer(join).data, status=status.HTTP_201_CREATED)


JOIN = id_param("join_request_id")


class JoinDecisionView(APIView):
    """The GM or a co-GM accepts (as player or spectator) or refuses a join request."""

    permission_classes = [IsAuthenticated]
    accept = True

    @extend_schema(
        parameters=[JOIN], request=JoinDecisionSerializer, responses=JoinRequestSerializer, tags=["campaigns"]
    )
    def post(self, request: Request, join_request_id: int) -> Response:
        join = get_or_404(JoinRequest, join_request_id)
        if not (access.is_gm(request.user, join.campaign) or join.user_id == request.user.pk):
            raise Http404
        serializer = JoinDecisionSerializer(data=request.data or {})
        serializer.is_valid(raise_exception=True)
        services.decide_join_request(request.user, join, accept=self.accept, role=serializer.validated_data["role"])
        join.refresh_from_db()
        return Response(JoinRequestSerializer(join).data)


# ---------------------------------------------------------------------------
# Play sessions
# ---------------------------------------------------------------------------
@extend_schema(parameters=[CAMPAIGN], tags=["sessions"])
class SessionListView(generics.ListAPIView):
    """Play sessions (*séances*) of a campaign; POST opens one (GM, co-GM)."""

    permission_classes = [AllowAny]
    serializer_class = PlaySessionSerializer
    pagination_class = PagePagination

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_queryset(self) -> QuerySet[PlaySession]:
        obj = access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        return obj.play_sessions.order_by("-number")

    @extend_schema(request=PlaySessionSerializer, responses={201: PlaySessionSerializer}, operation_id="sessions_open")
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        serializer = PlaySessionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        session = services.open_session(request.user, obj, title=serializer.validated_data["title"])
        return Response(PlaySessionSerializer(session).data, status=status.HTTP_201_CREATED)


SESSION = id_param("session_id")


def get_session_for_user(user: Any, session_id: int) -> PlaySession:
    session = get_or_404(PlaySession, session_id)
    if not access.can_view_campaign(user, session.campaign):
        raise Http404
    return session


class SessionDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SESSION], responses=PlaySessionSerializer, operation_id="sessions_retrieve", tags=["sessions"]
    )
    def get(self, request: Request, session_id: int) -> Response:
        return Response(PlaySessionSerializer(get_session_for_user(request.user, session_id)).data)


class SessionCloseView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[SESSION],
        request=None,
        responses=PlaySessionSerializer,
        operation_id="sessions_close",
        tags=["sessions"],
        description="The GM closes the session; experience and karma are then recomputed by a background job.",
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = get_session_for_user(request.user, session_id)
        return Response(PlaySessionSerializer(services.close_session(request.user, session)).data)


# ---------------------------------------------------------------------------
# Invitation link, notifications
# ---------------------------------------------------------------------------
class InviteLinkResetView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CAMPAIGN],
        request=None,
        responses=InviteLinkSerializer,
        operation_id="campaigns_invite_link_reset",
        tags=["campaigns"],
        description="A new invitation link token (GMs); the old one stops working.",
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        return Response({"token": services.reset_invite_link(request.user, obj)})


class JoinByLinkView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CAMPAIGN],
        request=InviteLinkSerializer,
        responses=MembershipSerializer,
        operation_id="campaigns_join_by_link",
        tags=["campaigns"],
        description="Join as a player with the campaign's invitation link token.",
    )
    def post(self, request: Request, campaign: str) -> Response:
        lookup = {"pk": campaign} if is_digits(str(campaign)) else {"slug": campaign}
        obj = Campaign.objects.filter(**lookup).first()
        if obj is None:
            raise Http404
        serializer = InviteLinkSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.join_by_link(request.user, obj, serializer.validated_data["token"])
        return Response(MembershipSerializer(membership).data)


@extend_schema(
    tags=["me"],
    parameters=[OpenApiParameter("unread", bool, description="Only unread notifications.")],
)
class NotificationListView(generics.ListAPIView):
    """Your notifications (mentions, replies, whispers, your turn...), newest first."""

    permission_classes = [IsAuthenticated]
    serializer_class = NotificationSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> QuerySet[Notification]:
        queryset = Notification.objects.filter(user=self.request.user)
        if _bool(self.request.query_params.get("unread")):
            queryset = queryset.filter(read_at__isnull=True)
        return queryset.order_by("-created", "-id")


class NotificationReadView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=NotificationReadSerializer,
        responses=CountSerializer,
        operation_id="notifications_mark_read",
        tags=["me"],
        description="Mark notifications read (all of them without `ids`); answers how many changed.",
    )
    def post(self, request: Request) -> Response:
        serializer = NotificationReadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        count = services.mark_notifications_read(request.user, serializer.validated_data.get("ids"))
        return Response({"count": count})
