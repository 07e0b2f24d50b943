"""Rule systems: list, description (sheet schema), odds of a test."""

from __future__ import annotations

import logging

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import rules
from api.serializers import OddsRequestSerializer, OddsSerializer, SystemDescriptionSerializer, SystemSummarySerializer
from rules.base import RulesError, error, validate_fields

logger = logging.getLogger(__name__)

SLUG = OpenApiParameter(
    "slug", str, OpenApiParameter.PATH, enum=list(rules.SYSTEM_MODULES), description="Rule system slug."
)


def get_system_or_404(slug: str) -> rules.base.RuleSystem:
    try:
        return rules.get_system(slug)
    except rules.UnknownSystem as exc:
        raise Http404 from exc


class SystemListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=SystemSummarySerializer(many=True), operation_id="systems_list", tags=["systems"])
    def get(self, request: Request) -> Response:
        return Response(SystemSummarySerializer(rules.available_systems(), many=True).data)


class SystemDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SLUG], responses=SystemDescriptionSerializer, operation_id="systems_describe", tags=["systems"]
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(get_system_or_404(slug).describe())


class SystemOddsView(APIView):
    """Exact odds of a test before rolling it (nothing is rolled or stored).

    The request is checked against the system's declared test kinds first
    (types, ranges, choices), then given to ``RuleSystem.odds``.
    """

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SLUG],
        request=OddsRequestSerializer,
        responses=OddsSerializer,
        operation_id="systems_odds",
        tags=["systems"],
    )
    def post(self, request: Request, slug: str) -> Response:
        system = get_system_or_404(slug)
        serializer = OddsRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        test = serializer.validated_data["request"]
        campaign_settings = serializer.validated_data.get("settings") or {}
        kinds = system.test_kinds()
        kind = test.get("kind")
        if kind not in kinds:
            raise RulesError(
                [error("request.kind", "invalid_choice", "Test inconnu : {v}.", "Unknown test: {v}.", v=kind)]
            )
        problems = validate_fields(test, kinds[kind], prefix="request.")
        problems += validate_fields(campaign_settings, system.campaign_settings_fields(), prefix="settings.")
        if problems:
            raise RulesError(problems)
        try:
            odds = system.odds(test, campaign_settings or None)
        except RulesError as exc:
            raise RulesError(
                [type(e)(f"request.{e.path}" if e.path else "request", e.code, e.message) for e in exc.errors]
            ) from exc
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
            # The request passed the declared checks but the system could not use
            # it: answer a field error rather than a server error, and log it.
            logger.warning("odds(%s, %r) failed: %r", slug, test, exc)
            raise RulesError(
                [error("request", "invalid_request", "Demande de test invalide.", "Invalid test request.")]
            ) from exc
        return Response({"system": system.slug, "kind": kind, "odds": odds})
