"""Experience and karma: ledger, balances, session awards, purchases.

Reads use :mod:`progression.services` access helpers (ledger and balances:
owner, GM and co-GMs; award sheets: GMs); writes call its services
(``confirm_session_awards``, ``reopen_session_awards``, ``request_purchase``,
``decide_purchase``).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.pagination import PagePagination
from api.serializers import (
    AwardConfirmSerializer,
    BalancesSerializer,
    LedgerEntrySerializer,
    PurchaseCreateSerializer,
    PurchaseDecisionSerializer,
    PurchaseSerializer,
    RecalculationRunSerializer,
    SessionAwardsSerializer,
    SessionRecapSerializer,
)
from api.views.common import get_or_404, id_param
from characters.ledger import balances
from progression import services
from progression.models import CharacterBalance, PurchaseRequest, RecalculationRun, SessionReview
from rules.base import is_digits

CHARACTER = id_param("character_id")
SESSION = id_param("session_id")
PURCHASE = id_param("purchase_id")


@extend_schema(parameters=[CHARACTER], tags=["progression"])
class LedgerView(generics.ListAPIView):
    """The append-only experience/karma ledger of a character, newest first (owner and GMs)."""

    permission_classes = [IsAuthenticated]
    serializer_class = LedgerEntrySerializer
    pagination_class = PagePagination

    def get_queryset(self) -> Any:
        character = services.get_character_for_user(self.request.user, self.kwargs["character_id"])
        return character.ledger.order_by("-id")


class BalancesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[CHARACTER], responses=BalancesSerializer, operation_id="balances", tags=["progression"])
    def get(self, request: Request, character_id: int) -> Response:
        character = services.get_character_for_user(request.user, character_id)
        computed = CharacterBalance.objects.filter(character=character).first()
        return Response(
            {
                "character": character.pk,
                "balances": balances(character),
                "computed": {
                    "balances": computed.balances,
                    "flags": computed.flags,
                    "notes": computed.notes,
                    "computed_at": computed.computed_at.isoformat(),
                }
                if computed
                else None,
            }
        )


def _run(run: RecalculationRun) -> dict[str, Any]:
    return RecalculationRunSerializer(run).data


def awards_data(session: Any) -> dict[str, Any]:
    review = SessionReview.objects.filter(session=session).first()
    rows = []
    for row in services.award_rows(session):
        rows.append(
            {
                "character": {"id": row.character.pk, "name": row.character.name},
                "present": row.present,
                "facts": row.facts,
                "suggestions": [
                    {
                        "code": s.code,
                        "currency": s.currency,
                        "amount": s.amount,
                        "kind": s.kind,
                        "note": s.note,
                        "data": s.data,
                    }
                    for s in row.suggestions
                ],
                "amounts": row.amounts,
                "current": row.current,
                "extra": row.extra,
                "extra_note": row.extra_note,
                "errors": row.errors,
            }
        )
    runs = RecalculationRun.objects.filter(session=session).order_by("-id")[:10]
    return {
        "session": session.pk,
        "review_status": review.status if review else None,
        "revision": review.revision if review else 0,
        "rows": rows,
        "runs": [_run(r) for r in runs],
    }


class SessionAwardsView(APIView):
    """The award sheet of a closed session (GMs): suggestions from the rules, then confirmation."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[SESSION], responses=SessionAwardsSerializer, operation_id="awards_retrieve", tags=["progression"]
    )
    def get(self, request: Request, session_id: int) -> Response:
        session = services.get_session_for_user(request.user, session_id, gm=True)
        return Response(awards_data(session))

    @extend_schema(
        parameters=[SESSION],
        request=AwardConfirmSerializer,
        responses={202: RecalculationRunSerializer},
        operation_id="awards_confirm",
        tags=["progression"],
        description="Confirm (or correct) the awards; the recalculation job is queued (202).",
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = services.get_session_for_user(request.user, session_id, gm=True)
        serializer = AwardConfirmSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entries: dict[int, dict[str, Any]] = {}
        for key, value in serializer.validated_data["entries"].items():
            if not is_digits(str(key)):
                raise ValidationError({f"entries.{key}": [_("Unknown character.")]})
            entries[int(key)] = value
        run = services.confirm_session_awards(request.user, session, entries=entries)
        return Response(_run(run), status=status.HTTP_202_ACCEPTED)


class SessionAwardsReopenView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[SESSION],
        request=None,
        responses=SessionAwardsSerializer,
        operation_id="awards_reopen",
        tags=["progression"],
        description="Reopen confirmed awards for corrections (GMs).",
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = services.get_session_for_user(request.user, session_id, gm=True)
        services.reopen_session_awards(request.user, session)
        return Response(awards_data(session))


@extend_schema(parameters=[CHARACTER], tags=["progression"])
class PurchaseListView(generics.ListAPIView):
    """Purchase requests of a character (owner and GMs); POST asks to spend experience/karma."""

    permission_classes = [IsAuthenticated]
    serializer_class = PurchaseSerializer
    pagination_class = PagePagination

    def get_queryset(self) -> Any:
        character = services.get_character_for_user(self.request.user, self.kwargs["character_id"])
        return PurchaseRequest.objects.filter(character=character).order_by("-id")

    @extend_schema(
        request=PurchaseCreateSerializer, responses={201: PurchaseSerializer}, operation_id="purchases_create"
    )
    def post(self, request: Request, character_id: int) -> Response:
        character = services.get_character_for_user(request.user, character_id)
        serializer = PurchaseCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        purchase = services.request_purchase(request.user, character, request=serializer.validated_data["request"])
        return Response(PurchaseSerializer(purchase).data, status=status.HTTP_201_CREATED)


class PurchaseDecisionView(APIView):
    permission_classes = [IsAuthenticated]
    approve = True

    def post(self, request: Request, purchase_id: int) -> Response:
        purchase = get_or_404(PurchaseRequest, purchase_id)
        if not services.can_see_ledger(request.user, purchase.character):
            raise Http404
        serializer = PurchaseDecisionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        decided = services.decide_purchase(
            request.user, purchase, approve=self.approve, comment=serializer.validated_data["comment"]
        )
        return Response(PurchaseSerializer(decided).data)


def purchase_decision_view(approve: bool) -> Any:
    def post(self: PurchaseDecisionView, request: Request, purchase_id: int) -> Response:
        return PurchaseDecisionView.post(self, request, purchase_id)

    name = "approve" if approve else "reject"
    documented = extend_schema(
        parameters=[PURCHASE],
        request=PurchaseDecisionSerializer,
        responses=PurchaseSerializer,
        operation_id=f"purchases_{name}",
        tags=["progression"],
        description="A GM approves (sheet and ledger in one transaction) or rejects a purchase.",
    )(post)
    return type(
        f"Purchase{name.title()}View", (PurchaseDecisionView,), {"approve": approve, "post": documented}
    ).as_view()


class RecalculateView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[SESSION],
        request=None,
        responses={202: RecalculationRunSerializer},
        operation_id="sessions_recalculate",
        tags=["progression"],
        description="Relaunch the experience/karma job for this session (GMs), e.g. after approving purchases.",
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = services.get_session_for_user(request.user, session_id)
        run = services.launch_recalculation(request.user, session)
        return Response(_run(run), status=status.HTTP_202_ACCEPTED)


class SessionRecapView(APIView):
    """What a closed session brought (*récapitulatif*): your characters' results, or everyone's for GMs."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[SESSION], responses=SessionRecapSerializer, operation_id="sessions_recap", tags=["progression"]
    )
    def get(self, request: Request, session_id: int) -> Response:
        session = services.get_session_for_user(request.user, session_id)
        data = services.recap(session, request.user)

        def ref(character: Any) -> dict[str, Any]:
            return {"id": character.pk, "name": character.name}

        review = data.get("review")
        return Response(
            {
                "session": session.pk,
                "review_status": review.status if review else None,
                "results": [
                    {
                        "character": ref(r.character),
                        "before": r.before,
                        "after": r.after,
                        "flags": r.flags,
                        "notes": r.notes,
                    }
                    for r in data["results"]
                ],
                "awards": [
                    {
                        "character": ref(a.character),
                        "code": a.code,
                        "currency": a.currency,
                        "amount": a.amount,
                        "kind": a.kind,
                        "note": a.note,
                        "revision": a.revision,
                    }
                    for a in data["awards"]
                ],
                "purchases": LedgerEntrySerializer(data["purchases"], many=True).data,
                "runs": [_run(r) for r in data["runs"]],
            }
        )
