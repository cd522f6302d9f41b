"""Entry representations and the validation of what clients send."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from entryeditor_service.corpus.fields import BlankablePosField, WordField
from entryeditor_service.entries.models import CONTENT_FIELDS, Entry

# The largest value of an IntegerField column (MySQL's INT): a larger one would reach the
# database and fail there (a 500), so it is a 400 here.
INT_MAX = 2**31 - 1


class StrictCharField(serializers.CharField):
    """A string, and only a string (DRF's CharField would take 5 as "5")."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(
    {"oneOf": [{"type": "boolean"}, {"type": "string", "enum": ["true", "false"]}]}
)
class FlagField(serializers.BooleanField):
    """true or false, as JSON or as the strings "true" and "false" (the write-up's client
    sends those); a BooleanField would also take 0, "no" and "off"."""

    def to_internal_value(self, data: Any) -> bool:
        if data in ("true", "false"):
            return str(data) == "true"
        if isinstance(data, bool):
            return data
        self.fail("invalid", input=data)


class WholeItem(serializers.Serializer[dict[str, Any]]):
    """An item of a list field. A PATCH replaces the list whole, so each item's required
    fields stay required (DRF skips every required field under a partial update, and an
    example without its text was stored)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, dict):
            missing = [n for n, field in self.fields.items() if field.required and n not in data]
            if missing:
                raise serializers.ValidationError({n: ["This field is required."] for n in missing})
        item: dict[str, Any] = super().to_internal_value(data)
        return item


class SenseSerializer(WholeItem):
    pos = StrictCharField(max_length=8, allow_blank=True, required=False, default="")
    definition = StrictCharField(max_length=2000, allow_blank=True)
    examples = serializers.ListField(
        child=StrictCharField(max_length=2000), max_length=50, default=list
    )


class ExampleSerializer(WholeItem):
    sentence_id = serializers.IntegerField(min_value=1, required=False)
    text = StrictCharField(max_length=5000)


class StrictFloatField(serializers.FloatField):
    """A JSON number, not a boolean (a FloatField takes false as 0.0)."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool):
            self.fail("invalid")
        return super().to_internal_value(data)


class CollocateSerializer(WholeItem):
    word = StrictCharField(max_length=64)
    pos = StrictCharField(max_length=8)
    count = serializers.IntegerField(min_value=0)
    freq = serializers.IntegerField(min_value=0, required=False)
    pmi = StrictFloatField(required=False)


class EntrySerializer(serializers.ModelSerializer[Entry]):
    # max_length: DRF (3.15+) hands it to the ListSerializer of many=True; drf-stubs'
    # BaseSerializer.__init__ does not list it (a library's missing types).
    senses = SenseSerializer(many=True, required=False, max_length=100)  # type: ignore[call-arg]
    examples = ExampleSerializer(many=True, required=False, max_length=100)  # type: ignore[call-arg]
    collocates = CollocateSerializer(many=True, required=False, max_length=200)  # type: ignore[call-arg]
    pos_distribution = serializers.DictField(
        child=serializers.IntegerField(min_value=0), required=False
    )
    frequency = serializers.IntegerField(min_value=0, max_value=INT_MAX, required=False)
    word = WordField()
    pos = BlankablePosField(required=False)

    class Meta:
        model = Entry
        read_only_fields = ("id", "version", "created_at", "updated_at")
        fields = ("id", *CONTENT_FIELDS, "version", "created_at", "updated_at")

    def to_representation(self, instance: Entry) -> dict[str, Any]:
        # The JSON fields are stored validated; hand them back as they are.
        data = {name: getattr(instance, name) for name in self.Meta.fields}
        data["created_at"] = instance.created_at.isoformat()
        data["updated_at"] = instance.updated_at.isoformat()
        return data


class ListSearch(serializers.Serializer[dict[str, Any]]):
    """The list's `?word=`: entries whose word starts with it (the editors' search box)."""

    word = WordField()


class EntryUpdateSerializer(EntrySerializer):
    """A PUT or PATCH: the entry's fields and the version the change was based on."""

    version = serializers.IntegerField(min_value=1, max_value=INT_MAX)


class EntrySummarySerializer(serializers.ModelSerializer[Entry]):
    class Meta:
        model = Entry
        fields = ("id", "word", "pos", "frequency", "version", "updated_at")


SUMMARY_FIELDS = EntrySummarySerializer.Meta.fields


class VersionSerializer(serializers.Serializer[dict[str, Any]]):
    """The version an update was based on (409 when it is no longer the current one)."""

    version = serializers.IntegerField(min_value=1, max_value=INT_MAX)


class InitSerializer(serializers.Serializer[dict[str, Any]]):
    word = WordField()
    empty = FlagField(default=False)
    version = serializers.IntegerField(min_value=1, max_value=INT_MAX, required=False)


class CommandSerializer(serializers.Serializer[dict[str, Any]]):
    command = StrictCharField(max_length=1000, trim_whitespace=False)
