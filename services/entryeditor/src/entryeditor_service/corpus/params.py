"""Query parameters of the statistics endpoints, validated (400 JSON on bad input)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework import serializers

from entryeditor_service.corpus.patterns import PatternError, check_pos, check_word


def checked(check: Callable[[str], str], value: str) -> str:
    """`value` through one of corpus.patterns' checks, its PatternError a field's 400."""
    try:
        return check(value)
    except PatternError as exc:
        raise serializers.ValidationError(str(exc)) from None


class WordParams(serializers.Serializer[dict[str, Any]]):
    word = serializers.CharField(max_length=64, trim_whitespace=True)
    pos = serializers.CharField(max_length=8, required=False)

    def validate_word(self, value: str) -> str:
        return checked(check_word, value)

    def validate_pos(self, value: str) -> str:
        return checked(check_pos, value)


class InstanceParams(WordParams):
    limit = serializers.IntegerField(min_value=1, max_value=100, default=20)
    offset = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0)


class PmiParams(WordParams):
    window = serializers.IntegerField(min_value=1, max_value=10, default=5)
    min_count = serializers.IntegerField(min_value=1, max_value=1000, default=3)
    limit = serializers.IntegerField(min_value=1, max_value=200, default=20)


def parse(params: type[serializers.Serializer[dict[str, Any]]], query: Any) -> dict[str, Any]:
    """Validated query parameters; unknown ones are refused too (a typo is not ignored)."""
    serializer = params(data=query)
    serializer.is_valid(raise_exception=True)
    unknown = sorted(set(query) - set(serializer.fields))
    if unknown:
        raise serializers.ValidationError({name: ["unknown parameter"] for name in unknown})
    data = dict(serializer.validated_data)
    data.setdefault("pos", None)
    return data
