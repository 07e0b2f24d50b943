"""Encounters, participants, declarations, resolution steps and the combat log.

Writes call :mod:`combat.services`. What a viewer sees is the combat app's one
read model, ``combat.presenters.encounter_view`` (the page renders it too): GMs see everything; others see a
participant's state only when its stats are visible (PCs; NPCs when the GM
shows them), their own declarations, the others' once revealed (without
numeric fields), and the public part of the log (cursor-paginated by
``sequence``: follow ``next`` to keep up with a fight).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.pagination import LogCursorPagination, PagePagination
from api.serializers import (
    AdjustSerializer,
    DeclarationResultSerializer,
    DeclarationSerializer,
    DefenceSerializer,
    EncounterCreateSerializer,
    EncounterSerializer,
    EncounterSummarySerializer,
    EndRoundSerializer,
    GmNotesSerializer,
    LogEntrySerializer,
    ParticipantCreateSerializer,
    ParticipantSerializer,
    RemoveSerializer,
    SideSerializer,
    StepSerializer,
    VisibilitySerializer,
)
from api.views.common import get_or_404, id_param
from campaigns import access as campaign_access
from characters.models import Character
from combat import services
from combat.models import Declaration, Encounter, LogEntry, Participant
from combat.presenters import declaration_view, encounter_view

ENCOUNTER = id_param("encounter_id")
PARTICIPANT = id_param("participant_id")
THREAD = id_param("thread_id")


def participant_for_user(user: Any, participant_id: int) -> Participant:
    participant = get_or_404(Participant, participant_id)
    services.get_encounter_for_user(user, participant.encounter_id)
    return participant


def encounter_data(user: Any, encounter: Encounter) -> dict[str, Any]:
    """The encounter as ``user`` may see it: the combat app's one read model
    (:func:`combat.presenters.encounter_view`), the same the page renders; the log
    has its own, paginated endpoint."""
    data = encounter_view(user, encounter)
    data.pop("log", None)
    data.pop("is_gm", None)
    return data


def encounter_response(request: Request, encounter: Encounter, code: int = status.HTTP_200_OK) -> Response:
    fresh = Encounter.objects.select_related("campaign", "thread").get(pk=encounter.pk)
    return Response(encounter_data(request.user, fresh), status=code)


@extend_schema(parameters=[THREAD], tags=["combat"])
class EncounterListView(generics.ListAPIView):
    """Encounters of a thread (whoever reads it); POST opens one (GMs)."""

    permission_classes = [AllowAny]
    serializer_class = EncounterSummarySerializer
    pagination_class = PagePagination

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_queryset(self) -> Any:
        thread = campaign_access.get_thread_for_user(self.request.user, self.kwargs["thread_id"])
        return thread.encounters.order_by("-created", "-id")

    @extend_schema(
        request=EncounterCreateSerializer, responses={201: EncounterSerializer}, operation_id="encounters_create"
    )
    def post(self, request: Request, thread_id: int) -> Response:
        thread = campaign_access.get_thread_for_user(request.user, thread_id)
        serializer = EncounterCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        encounter = services.create_encounter(request.user, thread, **serializer.validated_data)
        return encounter_response(request, encounter, status.HTTP_201_CREATED)


class EncounterDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[ENCOUNTER], responses=EncounterSerializer, operation_id="encounters_retrieve", tags=["combat"]
    )
    def get(self, request: Request, encounter_id: int) -> Response:
        return encounter_response(request, services.get_encounter_for_user(request.user, encounter_id))


class EncounterActionView(APIView):
    """GM steps of a fight: start, reveal, resolve-next, resolve-round, skip, undo, end-round, end, notes."""

    permission_classes = [IsAuthenticated]
    action = "start"

    def post(self, request: Request, encounter_id: int) -> Response:
        encounter = services.get_encounter_for_user(request.user, encounter_id)
        user = request.user
        if self.action == "start":
            services.start_encounter(user, encounter)
        elif self.action == "reveal":
            services.reveal_declarations(user, encounter)
        elif self.action in ("resolve-next", "skip"):
            serializer = StepSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            if self.action == "skip":
                services.skip_step(user, encounter, expected_step=data.get("expected_step"), reason=data["reason"])
            else:
                services.resolve_next_step(user, encounter, expected_step=data.get("expected_step"))
        elif self.action == "resolve-round":
            services.resolve_round(user, encounter)
        elif self.action == "undo":
            services.undo_last_step(user, encounter)
        elif self.action == "end-round":
            serializer = EndRoundSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            services.end_round(user, encounter, expected_round=serializer.validated_data.get("expected_round"))
        elif self.action == "end":
            services.end_encounter(user, encounter)
        else:
            serializer = GmNotesSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            services.set_gm_notes(user, encounter, notes=serializer.validated_data["notes"])
        return encounter_response(request, encounter)


ACTIONS = {
    "start": (None, "The GM starts the fight: round 1 opens for declarations."),
    "reveal": (None, "The GM reveals the declarations; the rules compute initiative."),
    "resolve-next": (StepSerializer, "Resolve the next action in initiative order (GMs)."),
    "resolve-round": (None, "Resolve every remaining action (GMs)."),
    "skip": (StepSerializer, "Pass over the next action (GMs)."),
    "undo": (None, "Undo the latest step, skip or adjustment with a correcting log entry (GMs)."),
    "end-round": (EndRoundSerializer, "End the round; a summary is posted in the thread (GMs)."),
    "end": (None, "End the fight (GMs)."),
    "notes": (GmNotesSerializer, "GM-only notes on the encounter."),
}


def encounter_action_view(action: str) -> Any:
    request_serializer, description = ACTIONS[action]

    def post(self: EncounterActionView, request: Request, encounter_id: int) -> Response:
        return EncounterActionView.post(self, request, encounter_id)

    documented = extend_schema(
        parameters=[ENCOUNTER],
        request=request_serializer,
        responses=EncounterSerializer,
        operation_id="encounters_" + action.replace("-", "_"),
        tags=["combat"],
        description=description,
    )(post)
    name = "Encounter" + action.title().replace("-", "") + "View"
    return type(name, (EncounterActionView,), {"action": action, "post": documented}).as_view()


class ParticipantListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[ENCOUNTER],
        request=ParticipantCreateSerializer,
        responses={201: ParticipantSerializer(many=True)},
        operation_id="participants_add",
        tags=["combat"],
        description="Add a character of the campaign, or `count` quick NPCs (GMs).",
    )
    def post(self, request: Request, encounter_id: int) -> Response:
        encounter = services.get_encounter_for_user(request.user, encounter_id)
        serializer = ParticipantCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        for key in ("character", "template"):
            if data.get(key) is not None:
                found = Character.objects.filter(pk=data[key], campaign_id=encounter.campaign_id).first()
                if found is None:
                    raise ValidationError({key: [_("Choose a character of this campaign.")]})
                data[key] = found
        created = services.add_participant(request.user, encounter, **data)
        view = {p["id"]: p for p in encounter_data(request.user, encounter)["participants"]}
        return Response([view[p.pk] for p in created if p.pk in view], status=status.HTTP_201_CREATED)


class DeclarationView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[PARTICIPANT],
        request=DeclarationSerializer,
        responses=DeclarationResultSerializer,
        operation_id="participants_declare",
        tags=["combat"],
        description="Its controller (or a GM) declares or changes the participant's action for the round.",
    )
    def post(self, request: Request, participant_id: int) -> Response:
        participant = participant_for_user(request.user, participant_id)
        serializer = DeclarationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        target = None
        if serializer.validated_data.get("target"):
            target = Participant.objects.filter(
                pk=serializer.validated_data["target"], encounter_id=participant.encounter_id
            ).first()
            if target is None:
                raise ValidationError({"target": [_("Choose a participant of this encounter.")]})
        declaration = services.declare_action(
            request.user, participant, data=serializer.validated_data["data"], target=target
        )
        return Response(declaration_view(request.user, declaration))


class ParticipantAdjustView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[PARTICIPANT],
        request=AdjustSerializer,
        responses=LogEntrySerializer,
        operation_id="participants_adjust",
        tags=["combat"],
        description="The GM sets a state value with a reason (recorded in the log, undoable).",
    )
    def post(self, request: Request, participant_id: int) -> Response:
        participant = participant_for_user(request.user, participant_id)
        serializer = AdjustSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = services.adjust_value(request.user, participant, **serializer.validated_data)
        return Response(LogEntrySerializer(entry, context={"gm": True}).data)


class ParticipantVisibilityView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[PARTICIPANT],
        request=VisibilitySerializer,
        responses=ParticipantSerializer,
        operation_id="participants_visibility",
        tags=["combat"],
        description="Show (or hide) an NPC's state and step details to the players (GMs).",
    )
    def post(self, request: Request, participant_id: int) -> Response:
        participant = participant_for_user(request.user, participant_id)
        serializer = VisibilitySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.set_stats_visible(request.user, participant, visible=serializer.validated_data["visible"])
        encounter = Encounter.objects.select_related("campaign").get(pk=participant.encounter_id)
        view = {p["id"]: p for p in encounter_data(request.user, encounter)["participants"]}
        if participant.pk not in view:
            raise Http404
        return Response(view[participant.pk])


@extend_schema(parameters=[ENCOUNTER], tags=["combat"])
class CombatLogView(generics.ListAPIView):
    """The combat log in order (cursor: follow ``next``; poll it again to get new entries).

    Players get each entry's public part; GMs the full record.
    """

    permission_classes = [AllowAny]
    serializer_class = LogEntrySerializer
    pagination_class = LogCursorPagination

    def get_queryset(self) -> Any:
        encounter = services.get_encounter_for_user(self.request.user, self.kwargs["encounter_id"])
        self.gm = campaign_access.is_gm(self.request.user, encounter.campaign)
        queryset = LogEntry.objects.filter(encounter=encounter).select_related("encounter__campaign", "roll")
        if not self.gm:
            queryset = queryset.filter(gm_only=False)
        return queryset

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        context["gm"] = getattr(self, "gm", False)
        return context


class ParticipantSideView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[PARTICIPANT],
        request=SideSerializer,
        responses=ParticipantSerializer,
        operation_id="participants_side",
        tags=["combat"],
        description="The GM moves a participant to another side (recorded in the log).",
    )
    def post(self, request: Request, participant_id: int) -> Response:
        participant = participant_for_user(request.user, participant_id)
        serializer = SideSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.set_side(request.user, participant, side=serializer.validated_data["side"])
        return _participant_response(request, participant)


class ParticipantRemoveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[PARTICIPANT],
        request=RemoveSerializer,
        responses=ParticipantSerializer,
        operation_id="participants_remove",
        tags=["combat"],
        description="The GM takes a participant out of the fight (recorded; add the character again to bring it back).",
    )
    def post(self, request: Request, participant_id: int) -> Response:
        participant = participant_for_user(request.user, participant_id)
        serializer = RemoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.remove_participant(request.user, participant, reason=serializer.validated_data["reason"])
        return _participant_response(request, participant)


def _participant_response(request: Request, participant: Participant) -> Response:
    encounter = Encounter.objects.select_related("campaign", "thread").get(pk=participant.encounter_id)
    view = {p["id"]: p for p in encounter_data(request.user, encounter)["participants"]}
    return Response(view[participant.pk])


class DefenceView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[id_param("declaration_id")],
        request=DefenceSerializer,
        responses=DeclarationResultSerializer,
        operation_id="declarations_defence",
        tags=["combat"],
        description=(
            "The target's controller chooses its defence against a declared action (the system's "
            "`defence_fields`, e.g. parry or dodge); a GM may decide once the delay has passed."
        ),
    )
    def post(self, request: Request, declaration_id: int) -> Response:
        declaration = get_or_404(Declaration, declaration_id)
        services.get_encounter_for_user(request.user, declaration.round.encounter_id)
        serializer = DefenceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        declaration = services.choose_defence(request.user, declaration, data=serializer.validated_data["data"])
        return Response(declaration_view(request.user, declaration))
