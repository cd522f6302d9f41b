"""Query parameters of the statistics endpoints, validated (400 JSON on bad input)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from entryeditor_service.corpus.fields import PosField, WordField


class WordParams(serializers.Serializer[dict[str, Any]]):
    word = WordField()
    pos = PosField(required=False)


class InstanceParams(WordParams):
    limit = serializers.IntegerField(min_value=1, max_value=100, default=20)
    offset = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0)


class PmiParams(WordParams):
    window = serializers.IntegerField(min_value=1, max_value=10, default=5)
    min_count = serializers.IntegerField(min_value=1, max_value=1000, default=3)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=20)


def parse(params: type[serializers.Serializer[dict[str, Any]]], query: Any) -> dict[str, Any]:
    """Validated query parameters; unknown ones are refused too (a typo is not ignored)."""
    # DRF reads `limit=` as no limit at all, and `limit=1&limit=2` as the last: both are
    # refused, as a typo is.
    empty = sorted(name for name, value in query.items() if value == "")
    if empty:
        raise serializers.ValidationError({name: ["may not be empty"] for name in empty})
    repeated = sorted(name for name in query if len(query.getlist(name)) > 1)
    if repeated:
        raise serializers.ValidationError({name: ["given more than once"] for name in repeated})
    serializer = params(data=query)
    serializer.is_valid(raise_exception=True)
    unknown = sorted(set(query) - set(serializer.fields))
    if unknown:
        raise serializers.ValidationError({name: ["unknown parameter"] for name in unknown})
    data = dict(serializer.validated_data)
    data.setdefault("pos", None)
    return data
