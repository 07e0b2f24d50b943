"""The rhythm of play through the API: what waits on me, a scene's turn, drafts, absences.

Same services and read models as the pages (``rhythm.services``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.views.common import get_or_404, id_param
from campaigns import access
from campaigns.templatetags.campaigns_tags import member_name
from rhythm import services
from rhythm.models import Absence, DeadlineAction, SceneMode


class MemberRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


def _ref(user: Any) -> dict[str, Any]:
    return {"id": user.pk, "name": member_name(user)}


class WaitingItemSerializer(serializers.Serializer):
    kind = serializers.CharField()
    label = serializers.CharField()
    campaign = serializers.CharField(source="campaign.slug")
    campaign_title = serializers.CharField(source="campaign.title")
    url = serializers.CharField()
    since = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)


class SceneSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=SceneMode.choices)
    mode_label = serializers.CharField(read_only=True)
    round = serializers.IntegerField(read_only=True)
    waiting_on = MemberRefSerializer(many=True, read_only=True)
    posted = MemberRefSerializer(many=True, read_only=True)
    absent = MemberRefSerializer(many=True, read_only=True)
    my_turn = serializers.BooleanField(read_only=True)
    deadline_at = serializers.DateTimeField(read_only=True, allow_null=True)
    order = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False, write_only=True)
    use_initiative = serializers.BooleanField(required=False, write_only=True)
    deadline_hours = serializers.IntegerField(required=False, allow_null=True, min_value=1, write_only=True)
    on_deadline = serializers.ChoiceField(choices=DeadlineAction.choices, required=False, write_only=True)


class NudgeSerializer(serializers.Serializer):
    user = serializers.IntegerField(min_value=1)


class DraftSerializer(serializers.Serializer):
    body = serializers.CharField(allow_blank=True, max_length=services.MAX_DRAFT_LENGTH, trim_whitespace=False)


class AbsenceSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    starts = serializers.DateField()
    ends = serializers.DateField()
    campaign = serializers.CharField(required=False, allow_blank=True, allow_null=True, source="campaign.slug")
    message = serializers.CharField(required=False, allow_blank=True, max_length=300)


def _scene_data(request: Request, thread: Any) -> dict[str, Any]:
    view = services.scene_view(request.user, thread)
    return {
        "mode": view.mode,
        "mode_label": view.mode_label,
        "round": view.round,
        "waiting_on": [_ref(u) for u in view.waiting_on],
        "posted": [_ref(u) for u in view.posted],
        "absent": [_ref(u) for u in view.absent],
        "my_turn": view.my_turn,
        "deadline_at": view.deadline_at,
    }


class WaitingView(APIView):
    """Everything across my campaigns that waits on me (*ce qui vous attend*), oldest first."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=WaitingItemSerializer(many=True), operation_id="me_waiting", tags=["me"])
    def get(self, request: Request) -> Response:
        return Response(WaitingItemSerializer(services.waiting_on_you(request.user), many=True).data)


class SceneView(APIView):
    """A scene's posting order and whose turn it is; the GM sets the mode and deadline."""

    @extend_schema(
        parameters=[id_param("thread_id")], responses=SceneSerializer, operation_id="scene_retrieve", tags=["forum"]
    )
    def get(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        return Response(SceneSerializer(_scene_data(request, thread)).data)

    @extend_schema(
        parameters=[id_param("thread_id")],
        request=SceneSerializer,
        responses=SceneSerializer,
        operation_id="scene_update",
        tags=["forum"],
    )
    def put(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        serializer = SceneSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        services.set_scene_rhythm(
            request.user,
            thread,
            mode=data["mode"],
            order=data.get("order") or [],
            use_initiative=data.get("use_initiative", False),
            deadline_hours=data.get("deadline_hours"),
            on_deadline=data.get("on_deadline", DeadlineAction.WAIT),
        )
        return Response(SceneSerializer(_scene_data(request, thread)).data)


class CloseRoundView(APIView):
    @extend_schema(
        parameters=[id_param("thread_id")],
        request=None,
        responses=SceneSerializer,
        operation_id="scene_close_round",
        tags=["forum"],
    )
    def post(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        services.close_round(request.user, thread)
        return Response(SceneSerializer(_scene_data(request, thread)).data)


class NudgeView(APIView):
    @extend_schema(
        parameters=[id_param("thread_id")],
        request=NudgeSerializer,
        responses={204: None},
        operation_id="scene_nudge",
        tags=["forum"],
    )
    def post(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        serializer = NudgeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.nudge(request.user, thread, serializer.validated_data["user"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class DraftView(APIView):
    """My draft of a post in this thread, kept on the server and restored on any device."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[id_param("thread_id")], responses=DraftSerializer, operation_id="draft_retrieve", tags=["forum"]
    )
    def get(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        return Response({"body": services.get_draft(request.user, thread)})

    @extend_schema(
        parameters=[id_param("thread_id")],
        request=DraftSerializer,
        responses=DraftSerializer,
        operation_id="draft_update",
        tags=["forum"],
    )
    def put(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        serializer = DraftSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.save_draft(request.user, thread, body=serializer.validated_data["body"])
        return Response({"body": services.get_draft(request.user, thread)})


def _absence_data(absence: Absence) -> dict[str, Any]:
    return {
        "id": absence.pk,
        "starts": absence.starts,
        "ends": absence.ends,
        "campaign": {"slug": absence.campaign.slug} if absence.campaign_id else {"slug": None},
        "message": absence.message,
    }


class AbsenceListView(APIView):
    """My declared absences (*absences*), for one campaign or the whole site."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=AbsenceSerializer(many=True), operation_id="absences_list", tags=["me"])
    def get(self, request: Request) -> Response:
        items = [_absence_data(a) for a in services.current_absences(request.user)]
        return Response(AbsenceSerializer(items, many=True).data)

    @extend_schema(
        request=AbsenceSerializer, responses={201: AbsenceSerializer}, operation_id="absences_create", tags=["me"]
    )
    def post(self, request: Request) -> Response:
        serializer = AbsenceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        slug = (data.get("campaign") or {}).get("slug")
        campaign = access.get_campaign_for_user(request.user, slug) if slug else None
        absence = services.declare_absence(
            request.user, starts=data["starts"], ends=data["ends"], campaign=campaign, message=data.get("message", "")
        )
        return Response(AbsenceSerializer(_absence_data(absence)).data, status=status.HTTP_201_CREATED)


class AbsenceDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[id_param("absence_id")], responses={204: None}, operation_id="absences_destroy", tags=["me"]
    )
    def delete(self, request: Request, absence_id: int) -> Response:
        absence = get_or_404(Absence, absence_id, user=request.user)
        services.cancel_absence(request.user, absence)
        return Response(status=status.HTTP_204_NO_CONTENT)
