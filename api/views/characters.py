"""Characters: list, create, detail (ETag), sheet and profile edits (If-Match),
review, history, export/import and change requests (a system's own routes come from its plug-in).

Writes call :mod:`characters.services`; visibility comes from
:mod:`characters.access` (404 for what a user may not see).

Optimistic concurrency: a character's representation carries ``version`` and
an ``ETag`` header (``"<id>.<version>"``). Every write of the sheet or the
profile needs ``If-Match`` (or a ``version`` field): a stale one answers 412
``precondition_failed`` and nothing is saved; none at all answers 428.
"""

from __future__ import annotations

import re
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import get_language
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.exceptions import PreconditionFailed, PreconditionRequired
from api.pagination import PagePagination
from api.serializers import (
    ChangeCommentSerializer,
    ChangeRequestCreateSerializer,
    ChangeRequestSerializer,
    CharacterCreateSerializer,
    CharacterExportSerializer,
    CharacterImportSerializer,
    CharacterProfileSerializer,
    CharacterSerializer,
    CharacterStatusSerializer,
    PortraitSerializer,
    RejectSerializer,
    ReviewSerializer,
    SheetVersionSerializer,
    SheetWriteSerializer,
    UserRefSerializer,
)
from api.views.common import CAMPAIGN, id_param
from campaigns import access as campaign_access
from campaigns import play as campaign_play
from characters import access, services
from characters.models import ChangeRequest, Character
from characters.read import can_see_full, character_read, visible_characters

CHARACTER = id_param("character_id")
CHANGE = id_param("change_id")
AUCTION = id_param("auction_id")
IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description='The ETag you read ("<id>.<version>"); or send `version` in the body.',
)
ETAG_RE = re.compile(r'^\s*(?:W/)?"?(\d+)\.(\d+)"?\s*$')


def etag(character: Character) -> str:
    return f'"{character.pk}.{character.version}"'


def expected_version(request: Request, character: Character, body_version: int | None) -> int:
    """The version the client edited: ``If-Match`` wins over the body's ``version``."""
    header = request.headers.get("If-Match")
    if header:
        if header.strip() == "*":
            return character.version
        match = ETAG_RE.match(header)
        if match is None or int(match.group(1)) != character.pk:
            raise PreconditionFailed()
        return int(match.group(2))
    if body_version is not None:
        return int(body_version)
    raise PreconditionRequired()


_MISSING = object()


def merge_client_sheet(user: Any, character: Character, client: dict[str, Any]) -> dict[str, Any]:
    """The sheet to save, built like the HTML form builds it: the declared fields
    ``user`` may edit come from the client, the rest keeps its stored value
    (:func:`characters.sheetform.keep_locked`; services enforce it again)."""
    from characters.sheetform import keep_locked

    locked = tuple(access.locked_paths(user, character))
    return keep_locked(character.rule_system.sheet_fields(), character.current_sheet(), client, locked)


def character_data(request: Request, character: Character) -> dict[str, Any]:
    """The representation ``request.user`` may see (see :class:`CharacterSerializer`): the
    character read model (:func:`characters.read.character_read`), as the sheet page renders it."""
    data = character_read(request.user, character).as_json(get_language() or "fr")
    data["owner"] = UserRefSerializer(character.owner).data if character.owner and not character.is_npc else None
    data["portrait"] = request.build_absolute_uri(character.portrait.url) if character.portrait else None
    return data


def character_response(request: Request, character: Character, code: int = status.HTTP_200_OK) -> Response:
    response = Response(character_data(request, character), status=code)
    if can_see_full(request.user, character):
        response["ETag"] = etag(character)
    return response


# ---------------------------------------------------------------------------
# List, create, import
# ---------------------------------------------------------------------------
@extend_schema(parameters=[CAMPAIGN], tags=["characters"])
class CharacterListView(generics.ListAPIView):
    """Characters of a campaign (public part, full for yours and for GMs); POST creates a draft."""

    permission_classes = [AllowAny]
    serializer_class = CharacterSerializer
    pagination_class = PagePagination

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_queryset(self) -> QuerySet[Character]:
        campaign = campaign_access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        return visible_characters(self.request.user, campaign)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([character_data(request, c) for c in page])

    @extend_schema(
        request=CharacterCreateSerializer, responses={201: CharacterSerializer}, operation_id="characters_create"
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = campaign_access.get_campaign_for_user(request.user, campaign)
        serializer = CharacterCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        character = services.create_character(request.user, obj, **serializer.validated_data)
        return character_response(request, character, status.HTTP_201_CREATED)


class CharacterImportView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CAMPAIGN],
        request=CharacterImportSerializer,
        responses={201: CharacterSerializer},
        operation_id="characters_import",
        tags=["characters"],
        description="A JSON export becomes a new draft in this campaign (same rule system).",
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = campaign_access.get_campaign_for_user(request.user, campaign)
        serializer = CharacterImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        from api.views.common import rename_fields

        character = rename_fields(
            lambda: services.import_character(request.user, obj, data=serializer.validated_data["data"]),
            lambda field: "data" if field == "file" else (f"data.sheet.{field}" if field else field),
        )
        return character_response(request, character, status.HTTP_201_CREATED)


# ---------------------------------------------------------------------------
# Detail, profile, sheet
# ---------------------------------------------------------------------------
class CharacterDetailView(APIView):
    permission_classes = [AllowAny]
    extra_error_codes = (412, 428)

    @extend_schema(
        parameters=[CHARACTER], responses=CharacterSerializer, operation_id="characters_retrieve", tags=["characters"]
    )
    def get(self, request: Request, character_id: int) -> Response:
        return character_response(request, access.get_character_for_user(request.user, character_id))

    @extend_schema(
        parameters=[CHARACTER, IF_MATCH],
        request=CharacterProfileSerializer,
        responses=CharacterSerializer,
        operation_id="characters_update_profile",
        tags=["characters"],
        description="Name and texts (owner and GMs). Needs If-Match or `version`.",
    )
    def patch(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        serializer = CharacterProfileSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = expected_version(request, character, data.get("version"))
        updated = services.update_profile(
            request.user,
            character,
            name=data.get("name", character.name),
            public_description=data.get("public_description", character.public_description),
            private_background=data.get("private_background", character.private_background),
            expected_version=version,
        )
        return character_response(request, updated)


class CharacterSheetView(APIView):
    permission_classes = [IsAuthenticated]
    extra_error_codes = (412, 428)

    @extend_schema(
        parameters=[CHARACTER, IF_MATCH],
        request=SheetWriteSerializer,
        responses=CharacterSerializer,
        operation_id="characters_save_sheet",
        tags=["characters"],
        description=(
            "Save the sheet: the owner's draft, or a GM's edit (recorded). An approved sheet's owner "
            "uses change requests instead. Needs If-Match or `version`; rule errors come back per field. "
            "Only the fields the system declares and you may edit are taken (like the sheet form): omitted "
            "and locked fields (GM-set values, auction results) keep their stored value."
        ),
    )
    def put(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        serializer = SheetWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = expected_version(request, character, data.get("version"))
        sheet = merge_client_sheet(request.user, character, data["sheet"])
        updated = services.save_sheet(
            request.user, character, sheet=sheet, expected_version=version, reason=data["reason"]
        )
        return character_response(request, updated)


class CharacterSheetTestsView(APIView):
    """What you can roll from this character's sheet (the same list as the sheet page and the post form)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CHARACTER],
        responses={200: dict},
        operation_id="characters_sheet_tests",
        tags=["characters"],
        description=(
            "The tests the rules build from the sheet: `key` (send it as `sheet_test.test` in a post's "
            "`roll_requests`, with `character_id`), label and group in the system's words, the values it reads "
            "(`reads`: sheet path, label, value), the inputs it declares (`declared`, each with its `audience`: "
            "a player may set only `player` ones) and `impossible` (why it cannot be rolled now). Only for "
            "whoever may roll for the character (its player once approved, the GMs); others get 404."
        ),
    )
    def get(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id)
        if not campaign_play.can_roll_for(request.user, character):
            raise Http404
        return Response(
            {
                "character": character.pk,
                "version": character.version,
                "tests": [t.to_dict() for t in campaign_play.sheet_tests_of(character)],
            }
        )


class CharacterActionView(APIView):
    """Review actions: ``submit`` (owner), ``approve``/``return`` (GMs), ``status`` (GMs)."""

    permission_classes = [IsAuthenticated]
    action = "submit"

    def post(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        if self.action == "submit":
            updated = services.submit_character(request.user, character)
        elif self.action == "approve":
            serializer = ReviewSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            updated = services.approve_character(request.user, character, **serializer.validated_data)
        elif self.action == "return":
            serializer = RejectSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            updated = services.return_character(request.user, character, **serializer.validated_data)
        else:
            serializer = CharacterStatusSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            updated = services.set_status(request.user, character, **serializer.validated_data)
        return character_response(request, updated)


def _action_view(action: str, request_serializer: Any, description: str) -> Any:
    def post(self: CharacterActionView, request: Request, character_id: int) -> Response:
        return CharacterActionView.post(self, request, character_id)

    documented = extend_schema(
        parameters=[CHARACTER],
        request=request_serializer,
        responses=CharacterSerializer,
        operation_id=f"characters_{action}",
        tags=["characters"],
        description=description,
    )(post)
    return type(f"Character{action.title()}View", (CharacterActionView,), {"action": action, "post": documented})


submit_view = _action_view("submit", None, "The owner submits a complete, valid draft to the GMs.")
approve_view = _action_view("approve", ReviewSerializer, "A GM approves a submitted sheet (creation ledger written).")
return_view = _action_view("return", RejectSerializer, "A GM sends a submitted sheet back to draft, with a comment.")
status_view = _action_view("status", CharacterStatusSerializer, "A GM retires a character, declares it dead, or back.")


@extend_schema(parameters=[CHARACTER], tags=["characters"])
class CharacterHistoryView(generics.ListAPIView):
    """Every saved version of the sheet, newest first (owner and GMs)."""

    permission_classes = [IsAuthenticated]
    serializer_class = SheetVersionSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> Any:
        character = access.get_character_for_user(self.request.user, self.kwargs["character_id"], write=True)
        return character.versions.select_related("author__profile").order_by("-version")


class CharacterExportView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CHARACTER],
        responses=CharacterExportSerializer,
        operation_id="characters_export",
        tags=["characters"],
    )
    def get(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        return Response(services.export_character(request.user, character))


# ---------------------------------------------------------------------------
# Change requests
# ---------------------------------------------------------------------------
def change_data(change: ChangeRequest) -> dict[str, Any]:
    return ChangeRequestSerializer(change).data


@extend_schema(parameters=[CHARACTER], tags=["characters"])
class ChangeRequestListView(generics.ListAPIView):
    """Change requests of a character (owner and GMs); POST proposes one (owner of an approved sheet)."""

    permission_classes = [IsAuthenticated]
    serializer_class = ChangeRequestSerializer
    pagination_class = PagePagination
    extra_error_codes = (412, 428)

    def get_queryset(self) -> Any:
        character = access.get_character_for_user(self.request.user, self.kwargs["character_id"], write=True)
        return character.change_requests.select_related("author__profile", "decided_by__profile").prefetch_related(
            "comments__author__profile"
        )

    @extend_schema(
        parameters=[IF_MATCH],
        request=ChangeRequestCreateSerializer,
        responses={201: ChangeRequestSerializer},
        operation_id="change_requests_create",
    )
    def post(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        serializer = ChangeRequestCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        version = expected_version(request, character, data.get("version"))
        change = services.request_change(
            request.user,
            character,
            sheet=merge_client_sheet(request.user, character, data["sheet"]),
            expected_version=version,
            reason=data["reason"],
            name=data.get("name"),
        )
        return Response(change_data(change), status=status.HTTP_201_CREATED)


class ChangeRequestDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CHANGE],
        responses=ChangeRequestSerializer,
        operation_id="change_requests_retrieve",
        tags=["characters"],
    )
    def get(self, request: Request, change_id: int) -> Response:
        return Response(change_data(access.get_change_request_for_user(request.user, change_id)))


class ChangeRequestActionView(APIView):
    permission_classes = [IsAuthenticated]
    action = "approve"
    extra_error_codes = (412,)

    def post(self, request: Request, change_id: int) -> Response:
        change = access.get_change_request_for_user(request.user, change_id)
        if self.action == "approve":
            serializer = ReviewSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            services.approve_change(request.user, change, **serializer.validated_data)
        elif self.action == "reject":
            serializer = RejectSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            services.reject_change(request.user, change, **serializer.validated_data)
        elif self.action == "withdraw":
            services.withdraw_change(request.user, change)
        else:
            serializer = ChangeCommentSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            services.comment_change(request.user, change, body=serializer.validated_data["body"])
        return Response(change_data(access.get_change_request_for_user(request.user, change_id)))


def _change_view(action: str, request_serializer: Any, description: str) -> Any:
    def post(self: ChangeRequestActionView, request: Request, change_id: int) -> Response:
        return ChangeRequestActionView.post(self, request, change_id)

    documented = extend_schema(
        parameters=[CHANGE],
        request=request_serializer,
        responses=ChangeRequestSerializer,
        operation_id=f"change_requests_{action}",
        tags=["characters"],
        description=description,
    )(post)
    return type(f"Change{action.title()}View", (ChangeRequestActionView,), {"action": action, "post": documented})


change_approve_view = _change_view("approve", ReviewSerializer, "A GM applies the change and its ledger entries.")
change_reject_view = _change_view("reject", RejectSerializer, "A GM rejects the change, saying why.")
change_withdraw_view = _change_view("withdraw", None, "Its author withdraws a pending change.")
change_comment_view = _change_view("comment", ChangeCommentSerializer, "Add a message to the discussion.")


# ---------------------------------------------------------------------------
# The portrait
# ---------------------------------------------------------------------------
class PortraitView(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(
        parameters=[CHARACTER],
        request={"multipart/form-data": PortraitSerializer},
        responses=CharacterSerializer,
        operation_id="characters_portrait",
        tags=["characters"],
        description="Upload a portrait (owner and GMs): multipart field `portrait`.",
    )
    def put(self, request: Request, character_id: int) -> Response:
        character = access.get_character_for_user(request.user, character_id, write=True)
        upload = request.FILES.get("portrait")
        updated = services.set_portrait(request.user, character, upload=upload)
        return character_response(request, updated)
