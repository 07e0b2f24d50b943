"""OpenAPI helpers: the error envelope documented on every operation.

:class:`TableeAutoSchema` (``DEFAULT_SCHEMA_CLASS``) adds the error
responses every route can give (400, 401, 403, 404, 429) with the one error
body of :mod:`api.exceptions`, so generated clients and schemathesis know
them.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class FieldErrorSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="Dotted path of the input ('' for the whole object).")
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. 'required', 'max_length'.")
    message = serializers.CharField(help_text="Message for people, in the member's language.")


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable code: invalid, not_found, permission_denied, throttled...")
    detail = serializers.CharField()
    errors = FieldErrorSerializer(many=True)


ERROR_DESCRIPTIONS = {
    "400": "Invalid input (field-level errors in `errors`).",
    "401": "Not authenticated, or invalid/revoked token.",
    "403": "Visible but forbidden.",
    "404": "Not found, or not visible to you.",
    "429": "Too many requests (see Retry-After).",
}
EXTRA_DESCRIPTIONS = {
    "409": "Conflict with the current state.",
    "412": "If-Match names an old version: fetch the object again.",
    "428": "This change needs If-Match (or a version field).",
}


class TableeAutoSchema(AutoSchema):
    """AutoSchema that documents the common error responses."""

    #: Error codes a view documents in addition to the common ones (e.g. 412).
    def _extra_error_codes(self) -> list[str]:
        return [str(c) for c in getattr(self.view, "extra_error_codes", ())]

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in [*ERROR_DESCRIPTIONS, *self._extra_error_codes()]:
            if code in responses:
                continue
            description = ERROR_DESCRIPTIONS.get(code) or EXTRA_DESCRIPTIONS.get(code, "Error.")
            responses[code] = self._get_response_for_code(
                OpenApiResponse(ErrorSerializer, description=description), code, direction=direction
            )
        return responses


class PersonalTokenScheme(OpenApiAuthenticationExtension):
    """Documents ``Authorization: Token <key>`` as an API key security scheme."""

    target_class = "api.authentication.PersonalTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "Personal token, as `Token <key>` (created on /api/tokens/).",
        }
