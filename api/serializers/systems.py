"""API serializers: rule systems: descriptions and odds."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

import rules
from api.serializers.common import LocalizedTextSerializer


class SystemSummarySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = LocalizedTextSerializer()
    diceless = serializers.BooleanField()
    schema_version = serializers.IntegerField()
    currencies = serializers.ListField(child=serializers.CharField())

    def to_representation(self, system: rules.base.RuleSystem) -> dict[str, Any]:
        return {
            "slug": system.slug,
            "name": system.name.to_dict(),
            "diceless": system.diceless,
            "schema_version": system.schema_version,
            "currencies": list(system.currencies),
        }


class FieldSpecSerializer(serializers.Serializer):
    """One declared field (``rules.base.Field.to_dict()``)."""

    path = serializers.CharField()
    kind = serializers.CharField()
    label = LocalizedTextSerializer()
    default = serializers.JSONField(allow_null=True)
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    choices = serializers.ListField(child=serializers.ListField(), help_text="[value, {fr, en}] pairs.")
    item_fields = serializers.ListField(child=serializers.DictField(), help_text="Fields of each item (same shape).")
    max_items = serializers.IntegerField(allow_null=True)
    max_length = serializers.IntegerField(allow_null=True)
    required = serializers.BooleanField()
    group = serializers.CharField(allow_blank=True)
    step = serializers.CharField(allow_blank=True)
    help = LocalizedTextSerializer(allow_null=True)
    secret = serializers.BooleanField()
    audience = serializers.CharField()
    item_of = serializers.CharField(allow_blank=True)
    key_field = serializers.DictField(
        allow_null=True, help_text="A keyed map's key (same shape): the value is ``{key: value}``."
    )
    value_field = serializers.DictField(
        allow_null=True, help_text="A keyed map's value, or each value of a list of plain values (same shape)."
    )
    example = serializers.JSONField(allow_null=True, help_text="A value a client may offer to fill in.")


class StepSpecSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = LocalizedTextSerializer()
    paths = serializers.ListField(child=serializers.CharField())
    help = LocalizedTextSerializer(allow_null=True)


class DerivedSpecSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = LocalizedTextSerializer()
    group = serializers.CharField(allow_blank=True)
    secret = serializers.BooleanField()


class SystemDescriptionSerializer(serializers.Serializer):
    """``RuleSystem.describe()``: the sheet schema and every declared request."""

    slug = serializers.CharField()
    name = LocalizedTextSerializer()
    schema_version = serializers.IntegerField()
    diceless = serializers.BooleanField()
    currencies = serializers.ListField(child=serializers.CharField())
    sheet_fields = FieldSpecSerializer(many=True)
    creation_steps = StepSpecSerializer(many=True)
    derived = DerivedSpecSerializer(many=True)
    campaign_settings = FieldSpecSerializer(many=True)
    test_kinds = serializers.DictField(child=FieldSpecSerializer(many=True))
    action_fields = FieldSpecSerializer(many=True)
    purchase_kinds = serializers.DictField(child=FieldSpecSerializer(many=True))

    def to_representation(self, data: dict[str, Any]) -> dict[str, Any]:
        return data


class OddsRequestSerializer(serializers.Serializer):
    request = serializers.DictField(
        help_text='A test request as in `test_kinds`, e.g. {"kind": "action", ...}.', allow_empty=False
    )
    settings = serializers.DictField(required=False, help_text="Campaign options (defaults if omitted).")


@extend_schema_field({"type": "object", "nullable": True, "additionalProperties": True})
class NullableObjectField(serializers.JSONField):
    pass


class OddsSerializer(serializers.Serializer):
    system = serializers.CharField()
    kind = serializers.CharField()
    odds = NullableObjectField(help_text="Exact odds, or null when the system defines none for this test.")
