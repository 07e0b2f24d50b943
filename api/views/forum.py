"""Boards, threads, posts (with rolls), rolls and the roll chain.

Reads use the visibility helpers of :mod:`campaigns.access`; writes call
:mod:`campaigns.services` (``create_thread``, ``create_post`` with roll
requests, ``edit_post``, ``hide_post``...).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.pagination import PagePagination, PostCursorPagination
from api.serializers import (
    BoardMoveSerializer,
    BoardRenameSerializer,
    BoardSerializer,
    CountSerializer,
    PostCreateSerializer,
    PostEditSerializer,
    PostHideSerializer,
    PostSerializer,
    ReadMarkSerializer,
    RollSerializer,
    ThreadCreateSerializer,
    ThreadSerializer,
    ThreadUpdateSerializer,
)
from api.throttles import AnonThrottle, IPThrottle, PostingThrottle, UserThrottle
from api.views.common import CAMPAIGN, get_or_404, id_param
from campaigns import access, checkpoints, dice, services
from campaigns.models import Board, Post, Roll, Thread
from campaigns.reads import reader_for, thread_posts
from characters.roll_spending import lower_roll_die
from moderation import services as moderation

BOARD = id_param("board_id")
THREAD = id_param("thread_id")
POST = id_param("post_id")
ROLL = id_param("roll_id")


def get_board_for_user(user: Any, board_id: int) -> Board:
    board = get_or_404(Board, board_id)
    if not access.can_read_forum(user, board.campaign):
        raise Http404
    return board


def _post_queryset(user: Any, thread: Thread) -> QuerySet[Post]:
    """The posts of ``thread`` whose place ``user`` sees, with what their read model reads
    (:func:`campaigns.reads.thread_posts`, as the thread page)."""
    return thread_posts(user, thread, rollers=True).select_related("thread__campaign")


def _one_post(user: Any, post: Post) -> Post:
    return _post_queryset(user, post.thread).get(pk=post.pk)


class _PostingMixin:
    """Creating content also counts against the stricter ``posting`` rate."""

    def get_throttles(self) -> list[Any]:
        return [UserThrottle(), AnonThrottle(), IPThrottle(), PostingThrottle()]


# ---------------------------------------------------------------------------
# Boards
# ---------------------------------------------------------------------------
@extend_schema(parameters=[CAMPAIGN], tags=["forum"])
class BoardListView(generics.ListAPIView):
    """Boards (*sections*) of a campaign; POST adds one (GM, co-GM)."""

    permission_classes = [AllowAny]
    serializer_class = BoardSerializer
    pagination_class = None

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_queryset(self) -> QuerySet[Board]:
        campaign = access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        return campaign.boards.order_by("position", "id")

    @extend_schema(request=BoardSerializer, responses={201: BoardSerializer}, operation_id="boards_create")
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        serializer = BoardSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        board = services.add_board(request.user, obj, **serializer.validated_data)
        return Response(BoardSerializer(board).data, status=status.HTTP_201_CREATED)


class BoardDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[BOARD], responses=BoardSerializer, operation_id="boards_retrieve", tags=["forum"])
    def get(self, request: Request, board_id: int) -> Response:
        return Response(BoardSerializer(get_board_for_user(request.user, board_id)).data)

    @extend_schema(
        parameters=[BOARD],
        request=BoardRenameSerializer,
        responses=BoardSerializer,
        operation_id="boards_rename",
        tags=["forum"],
    )
    def patch(self, request: Request, board_id: int) -> Response:
        board = get_board_for_user(request.user, board_id)
        serializer = BoardRenameSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(BoardSerializer(services.rename_board(request.user, board, **serializer.validated_data)).data)


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------
def _create_kwargs(data: dict[str, Any]) -> dict[str, Any]:
    """``create_post`` keyword arguments from a validated post payload."""
    return {
        "body": data["body"],
        "character": data.get("character"),
        "visibility": data["visibility"],
        "recipients": data.get("recipients") or [],
        "roll_requests": [{k: v for k, v in r.items() if v is not None} for r in data.get("roll_requests") or []],
        "client_nonce": data.get("client_nonce") or None,
    }


@extend_schema(parameters=[BOARD], tags=["forum"])
class ThreadListView(_PostingMixin, generics.ListAPIView):
    """Threads (*sujets*) of a board, sticky first then by last post; POST opens one with its first post."""

    permission_classes = [AllowAny]
    serializer_class = ThreadSerializer
    pagination_class = PagePagination

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_queryset(self) -> QuerySet[Thread]:
        board = get_board_for_user(self.request.user, self.kwargs["board_id"])
        return board.threads.select_related("created_by__profile").order_by("-sticky", "-last_post_at", "-id")

    @extend_schema(request=ThreadCreateSerializer, responses={201: ThreadSerializer}, operation_id="threads_create")
    def post(self, request: Request, board_id: int) -> Response:
        board = get_board_for_user(request.user, board_id)
        serializer = ThreadCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        kwargs = _create_kwargs(data)
        thread = services.create_thread(
            request.user, board, title=data["title"], sticky=data["sticky"], locked=data["locked"], **kwargs
        )
        return Response(ThreadSerializer(thread).data, status=status.HTTP_201_CREATED)


class ThreadDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[THREAD], responses=ThreadSerializer, operation_id="threads_retrieve", tags=["forum"])
    def get(self, request: Request, thread_id: int) -> Response:
        return Response(ThreadSerializer(access.get_thread_for_user(request.user, thread_id)).data)

    @extend_schema(
        parameters=[THREAD],
        request=ThreadUpdateSerializer,
        responses=ThreadSerializer,
        operation_id="threads_update",
        tags=["forum"],
        description="GM and co-GMs: rename, pin, lock or move to another board of the campaign.",
    )
    def patch(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        serializer = ThreadUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        if "board" in data:
            board = Board.objects.filter(pk=data["board"], campaign_id=thread.campaign_id).first()
            if board is None:
                raise ValidationError({"board": [_("Choose a board of this campaign.")]}, code="invalid")
            data["board"] = board
        return Response(ThreadSerializer(services.update_thread(request.user, thread, **data)).data)


# ---------------------------------------------------------------------------
# Posts
# ---------------------------------------------------------------------------
@extend_schema(parameters=[THREAD], tags=["forum"])
class PostListView(_PostingMixin, generics.ListAPIView):
    """Posts of a thread you may see, in order, with their rolls (cursor pagination: follow ``next``).

    POST writes a post; ``roll_requests`` are rolled from the committed seed with ``client_nonce`` and chained.
    """

    permission_classes = [AllowAny]
    serializer_class = PostSerializer
    pagination_class = PostCursorPagination

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def get_queryset(self) -> QuerySet[Post]:
        self.thread = access.get_thread_for_user(self.request.user, self.kwargs["thread_id"])
        return _post_queryset(self.request.user, self.thread)

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        thread = getattr(self, "thread", None)
        if thread is not None:
            context["reader"] = reader_for(self.request.user, thread.campaign)
        return context

    @extend_schema(request=PostCreateSerializer, responses={201: PostSerializer}, operation_id="posts_create")
    def post(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        serializer = PostCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        reply_to = None
        if data.get("reply_to"):
            reply_to = Post.objects.filter(pk=data["reply_to"], thread=thread).first()
            if reply_to is None:
                raise ValidationError({"reply_to": [_("You can only reply to a post of this thread.")]}, code="invalid")
        post = services.create_post(request.user, thread, reply_to=reply_to, **_create_kwargs(data))
        post = _one_post(request.user, post)
        return Response(PostSerializer(post, context={"request": request}).data, status=status.HTTP_201_CREATED)


class PostDetailView(APIView):
    permission_classes = [AllowAny]

    def _get(self, request: Request, post_id: int) -> Post:
        return _one_post(request.user, access.get_post_for_user(request.user, post_id))

    @extend_schema(parameters=[POST], responses=PostSerializer, operation_id="posts_retrieve", tags=["forum"])
    def get(self, request: Request, post_id: int) -> Response:
        return Response(PostSerializer(self._get(request, post_id), context={"request": request}).data)

    @extend_schema(
        parameters=[POST],
        request=PostEditSerializer,
        responses=PostSerializer,
        operation_id="posts_edit",
        tags=["forum"],
        description="The author edits (previous texts are kept); rolls never change.",
    )
    def patch(self, request: Request, post_id: int) -> Response:
        post = self._get(request, post_id)
        serializer = PostEditSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.edit_post(request.user, post, body=serializer.validated_data["body"])
        return Response(PostSerializer(self._get(request, post_id), context={"request": request}).data)


class PostHideView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[POST],
        request=PostHideSerializer,
        responses=PostSerializer,
        operation_id="posts_hide",
        tags=["forum"],
        description=(
            "GM, co-GM or moderator hides a post (or shows it again with hidden=false), like the page: "
            "a reason is required to hide, the moderation log records it, open reports on the post are "
            "closed. A post a moderator hid can only be shown again by a moderator."
        ),
    )
    def post(self, request: Request, post_id: int) -> Response:
        post = access.get_post_for_user(request.user, post_id)
        serializer = PostHideSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data["hidden"]:
            moderation.hide_post(request.user, post, reason=data["reason"])
        else:
            moderation.restore_post(request.user, post, reason=data["reason"])
        fresh = _one_post(request.user, post)
        return Response(PostSerializer(fresh, context={"request": request}).data)


# ---------------------------------------------------------------------------
# Rolls and the chain
# ---------------------------------------------------------------------------
class RollDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[ROLL], responses=RollSerializer, operation_id="rolls_retrieve", tags=["rolls"])
    def get(self, request: Request, roll_id: int) -> Response:
        roll = get_or_404(Roll, roll_id)
        if not access.can_read_forum(request.user, roll.campaign) or not access.can_see_roll(request.user, roll):
            raise Http404
        return Response(RollSerializer(roll).data)


class ChainRowSerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    prev_hash = serializers.CharField()
    hash = serializers.CharField()
    content = serializers.DictField(required=False, help_text="The hashed content (rolls you may see).")
    salt = serializers.CharField(required=False)
    canonical = serializers.CharField(required=False, help_text="The exact text hashed (rolls you may see).")
    body_digest = serializers.CharField(required=False, help_text="Only the digest (rolls you may not see).")
    fair = serializers.DictField(
        required=False, help_text="The fairness proof (secret rolls: once the seed is revealed)."
    )
    proof_digest = serializers.CharField(required=False, help_text="Digest of a secret roll's proof before reveal.")


class ChainVerificationSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    count = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())


class RollChainView(APIView):
    """The campaign's roll chain, verifiable offline: content of the rolls you may see, digests of the others."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[CAMPAIGN], responses=ChainRowSerializer(many=True), operation_id="rolls_chain", tags=["rolls"]
    )
    def get(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        rows = dice.export_chain(obj, can_see=lambda roll: access.can_see_roll(request.user, roll))
        return Response(rows)


class RollExportView(APIView):
    """The export the stand-alone verifier takes: chain rows, every seed (revealed ones in clear), a checkpoint."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[CAMPAIGN], responses=OpenApiTypes.OBJECT, operation_id="rolls_export", tags=["rolls"])
    def get(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        return Response(checkpoints.export_document(request.user, obj))


class RollCheckpointView(APIView):
    """A checkpoint of the chain head signed with the site's Ed25519 key (``/.well-known/tablee-rolls-key``)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[CAMPAIGN], responses=OpenApiTypes.OBJECT, operation_id="rolls_checkpoint", tags=["rolls"]
    )
    def get(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        return Response(checkpoints.checkpoint(obj))


class RollSeedRotateView(APIView):
    """The GM reveals the current dice seed; the next seed's commitment is published at the same moment."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CAMPAIGN], request=None, responses=OpenApiTypes.OBJECT, operation_id="rolls_rotate", tags=["rolls"]
    )
    def post(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        revealed, current = services.rotate_roll_seed(request.user, obj)
        return Response(
            {
                "revealed": {"index": revealed.index, "commitment": revealed.commitment, "seed": revealed.seed},
                "current": {"index": current.index, "commitment": current.commitment},
            }
        )


class RollVerifyView(APIView):
    """Recompute the campaign's chain and every die from its committed seed: is anything missing or altered?"""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[CAMPAIGN],
        responses=ChainVerificationSerializer,
        operation_id="rolls_verify",
        tags=["rolls"],
    )
    def get(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        ok, problems = dice.verify_chain(obj)
        return Response({"ok": ok, "count": Roll.objects.filter(campaign=obj).count(), "problems": problems})


class BoardMoveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[BOARD],
        request=BoardMoveSerializer,
        responses=BoardSerializer(many=True),
        operation_id="boards_move",
        tags=["forum"],
        description="Move a board up or down in the campaign's order (GMs).",
    )
    def post(self, request: Request, board_id: int) -> Response:
        board = get_board_for_user(request.user, board_id)
        serializer = BoardMoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        boards = services.move_board(request.user, board, offset=serializer.validated_data["offset"])
        return Response(BoardSerializer(boards, many=True).data)


class ThreadReadView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[THREAD],
        request=ReadMarkSerializer,
        responses=CountSerializer,
        operation_id="threads_mark_read",
        tags=["forum"],
        description="Remember how far you have read the thread (never goes back); answers the post count.",
    )
    def post(self, request: Request, thread_id: int) -> Response:
        thread = access.get_thread_for_user(request.user, thread_id)
        serializer = ReadMarkSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.mark_read(request.user, thread, serializer.validated_data["number"])
        return Response({"count": thread.post_count})


class RollLowerSerializer(serializers.Serializer):
    points = serializers.IntegerField(min_value=1, max_value=20, help_text="Experience points to spend (Altaride).")


class RollDifficultySerializer(serializers.Serializer):
    difficulty = serializers.IntegerField(min_value=-20, max_value=20, help_text="Difficulty level (Clefs de l'Aube).")


def _roll_in_post_for_user(user: Any, roll_id: int) -> Roll:
    roll = get_or_404(Roll, roll_id)
    if roll.post_id is None or not access.can_see_roll(user, roll):
        raise Http404
    return roll


class RollLowerView(APIView):
    """Altaride: spend experience to lower the die of one's own test (L217). The stored roll never
    changes: the result is a new roll of the chain, and the experience a ledger entry."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[ROLL],
        request=RollLowerSerializer,
        responses={201: RollSerializer},
        operation_id="rolls_lower_die",
        tags=["rolls"],
    )
    def post(self, request: Request, roll_id: int) -> Response:
        roll = _roll_in_post_for_user(request.user, roll_id)
        serializer = RollLowerSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        lowered = lower_roll_die(request.user, roll, points=serializer.validated_data["points"])
        return Response(RollSerializer(lowered).data, status=201)


class RollDifficultyView(APIView):
    """Clefs de l'Aube: the GM sets the difficulty after the roll (L903–L911); the stored draws are
    re-read without re-rolling into a new roll of the chain."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[ROLL],
        request=RollDifficultySerializer,
        responses={201: RollSerializer},
        operation_id="rolls_set_difficulty",
        tags=["rolls"],
    )
    def post(self, request: Request, roll_id: int) -> Response:
        roll = _roll_in_post_for_user(request.user, roll_id)
        serializer = RollDifficultySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        reread = services.set_roll_difficulty(request.user, roll, difficulty=serializer.validated_data["difficulty"])
        return Response(RollSerializer(reread).data, status=201)


class RollGmInputsSerializer(serializers.Serializer):
    declared = serializers.DictField(
        help_text='GM-only inputs of the sheet test (its `gm_fields` in `request.from_sheet`), e.g. `{"nd": 5}`.'
    )


class RollGmInputsView(APIView):
    """The GM adds GM-only inputs (difficulty, modifier, opposition) to a test rolled from a sheet, after
    the roll: the test is built again from the sheet version it read and the same draws are re-read into
    a new roll of the chain."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[ROLL],
        request=RollGmInputsSerializer,
        responses={201: RollSerializer},
        operation_id="rolls_add_gm_inputs",
        tags=["rolls"],
    )
    def post(self, request: Request, roll_id: int) -> Response:
        roll = _roll_in_post_for_user(request.user, roll_id)
        serializer = RollGmInputsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        reread = services.add_gm_inputs(request.user, roll, declared=dict(serializer.validated_data["declared"]))
        return Response(RollSerializer(reread).data, status=201)


class GmAidsView(APIView):
    """GM-only help tables of the campaign's system (Clefs de l'Aube: combination names, difficulty
    levels). 404 for everyone else and for systems without aids."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[CAMPAIGN],
        responses=OpenApiTypes.OBJECT,
        operation_id="campaigns_gm_aids",
        tags=["campaigns"],
    )
    def get(self, request: Request, campaign: str) -> Response:
        obj = access.get_campaign_for_user(request.user, campaign)
        if not access.is_gm(request.user, obj):
            raise Http404
        aids = obj.rule_system.gm_aids()
        if aids is None:
            raise Http404
        return Response(aids)
