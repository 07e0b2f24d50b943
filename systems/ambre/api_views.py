"""The attribute auction through the API (``/api/v1/``, routes in :mod:`systems.ambre.api_urls`).

Writes call :mod:`systems.ambre.services`; members see an auction, the rules'
``view()`` decides what each of them sees of it (GMs: everything).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.pagination import PagePagination
from api.serializers.common import MAX_ID
from api.serializers.forum import CharacterRefSerializer
from api.views.common import CAMPAIGN, id_param
from campaigns import access as campaign_access
from characters.access import is_owner
from characters.models import Character
from rules.ambre import auction as rules_auction
from rules.base import is_digits
from systems.ambre import services
from systems.ambre.access import get_auction_for_user
from systems.ambre.models import Auction

AUCTION = id_param("auction_id")


class AuctionSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    campaign = serializers.IntegerField(read_only=True)
    status = serializers.CharField(read_only=True)
    timeout_seconds = serializers.IntegerField(read_only=True, allow_null=True)
    deadline = serializers.DateTimeField(read_only=True, allow_null=True)
    characters = CharacterRefSerializer(many=True, read_only=True)
    view = serializers.DictField(
        read_only=True, help_text="The rules engine's view of the auction for you (rules.ambre.auction.view)."
    )


class AuctionActSerializer(serializers.Serializer):
    character = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Your character taking part.")
    type = serializers.ChoiceField(choices=["bid", "pass", "downgrade", "cancel_downgrade", "buy_up"])
    attribute = serializers.CharField(max_length=40, required=False)
    amount = serializers.IntegerField(required=False, min_value=-1000, max_value=1000)
    rank = serializers.IntegerField(required=False, min_value=0, max_value=1000)


class AuctionControlSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["pause", "resume", "timeout", "close", "comparison"])
    seconds = serializers.IntegerField(required=False, min_value=0, max_value=7 * 24 * 3600)
    attribute = serializers.CharField(max_length=40, required=False)
    players = serializers.ListField(child=serializers.CharField(max_length=20), required=False, max_length=2)


class AuctionOpenSerializer(serializers.Serializer):
    characters = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), min_length=1, max_length=50
    )
    mode = serializers.ChoiceField(choices=["open", "blind"], default="open")
    timeout_seconds = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=7 * 24 * 3600)


def auction_data(request: Request, auction: Auction, as_character: int | None = None) -> dict[str, Any]:
    auction = services.check_auction_timeout(auction)
    characters = list(Character.objects.filter(pk__in=auction.character_ids()).order_by("pk"))
    mine = [c for c in characters if is_owner(request.user, c)]
    me = next((c for c in mine if c.pk == as_character), mine[0] if mine else None)
    gm = campaign_access.is_gm(request.user, auction.campaign)
    return {
        "id": auction.pk,
        "campaign": auction.campaign_id,
        "status": auction.status,
        "timeout_seconds": auction.timeout_seconds,
        "deadline": auction.deadline.isoformat().replace("+00:00", "Z") if auction.deadline else None,
        "characters": [{"id": c.pk, "name": c.name} for c in characters],
        "view": rules_auction.view(auction.state, viewer=str(me.pk) if me else None, gm=gm),
    }


@extend_schema(parameters=[CAMPAIGN], tags=["auction"])
class AuctionListView(generics.ListAPIView):
    """Ambre attribute auctions of a campaign (members); POST opens one (GMs)."""

    permission_classes = [IsAuthenticated]
    serializer_class = AuctionSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> Any:
        campaign = campaign_access.get_campaign_for_user(self.request.user, self.kwargs["campaign"])
        if not campaign_access.is_member(self.request.user, campaign):
            raise Http404
        return campaign.auctions.order_by("-created", "-id")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([auction_data(request, a) for a in page])

    @extend_schema(request=AuctionOpenSerializer, responses={201: AuctionSerializer}, operation_id="auctions_open")
    def post(self, request: Request, campaign: str) -> Response:
        obj = campaign_access.get_campaign_for_user(request.user, campaign)
        serializer = AuctionOpenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        chosen = list(Character.objects.filter(pk__in=data["characters"], campaign=obj))
        auction = services.open_auction(
            request.user, obj, characters=chosen, mode=data["mode"], timeout_seconds=data.get("timeout_seconds")
        )
        return Response(auction_data(request, auction), status=status.HTTP_201_CREATED)


class AuctionDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[
            AUCTION,
            OpenApiParameter("as", int, description="Which of your characters to see the auction as."),
        ],
        responses=AuctionSerializer,
        operation_id="auctions_retrieve",
        tags=["auction"],
    )
    def get(self, request: Request, auction_id: int) -> Response:
        auction = get_auction_for_user(request.user, auction_id)
        raw = request.query_params.get("as", "")
        return Response(auction_data(request, auction, int(raw) if is_digits(raw) else None))


class AuctionActView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[AUCTION],
        request=AuctionActSerializer,
        responses=AuctionSerializer,
        operation_id="auctions_act",
        tags=["auction"],
        description="A player bids, passes, downgrades (or cancels it) or buys up, for one of their characters.",
    )
    def post(self, request: Request, auction_id: int) -> Response:
        auction = get_auction_for_user(request.user, auction_id)
        serializer = AuctionActSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        event = dict(serializer.validated_data)
        character = Character.objects.filter(pk=event.pop("character"), campaign=auction.campaign).first()
        if character is None:
            raise ValidationError({"character": [_("Choose one of your characters in this auction.")]})
        updated = services.auction_act(request.user, auction, character=character, event=event)
        return Response(auction_data(request, updated, character.pk))


class AuctionControlView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[AUCTION],
        request=AuctionControlSerializer,
        responses=AuctionSerializer,
        operation_id="auctions_control",
        tags=["auction"],
        description="GM controls: pause, resume, timeout (seconds), close (current attribute), comparison.",
    )
    def post(self, request: Request, auction_id: int) -> Response:
        auction = get_auction_for_user(request.user, auction_id)
        serializer = AuctionControlSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        action = data.pop("action")
        updated = services.auction_gm(request.user, auction, action=action, **data)
        return Response(auction_data(request, updated))
