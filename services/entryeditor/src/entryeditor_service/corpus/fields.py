"""The word and the POS tag as DRF fields: judged by corpus.patterns' checks, and described
in the OpenAPI schema (/api/schema/) by the same rules, a pattern and a length, so that a
client, or a fuzzer, knows which strings are taken."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from entryeditor_service.corpus.patterns import PatternError, check_pos, check_word
from entryeditor_service.corpus.source import MAX_POS, MAX_WORD

# check_word refuses what str.isspace() calls whitespace: the schema's \s (ECMA-262's)
# and the separators \x1c-\x1f and \x85 that Python counts too.
WORD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_WORD,
    "pattern": r"^[^\s\x00\x1c-\x1f\x85]+$",
}
_POS = rf"[A-Za-z]{{1,{MAX_POS}}}"
POS_SCHEMA: dict[str, Any] = {"type": "string", "maxLength": MAX_POS, "pattern": f"^{_POS}$"}


def checked(check: Callable[[str], str], value: str) -> str:
    """`value` through one of corpus.patterns' checks, its PatternError a field's 400."""
    try:
        return check(value)
    except PatternError as exc:
        raise serializers.ValidationError(str(exc)) from None


class _StrictText(serializers.CharField):
    """A string, and only a string (a CharField would take 5 as "5"), not trimmed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(WORD_SCHEMA)
class WordField(_StrictText):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=MAX_WORD, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        return checked(check_word, super().to_internal_value(data))


@extend_schema_field(POS_SCHEMA)
class PosField(_StrictText):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=MAX_POS, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        return checked(check_pos, super().to_internal_value(data))


class BlankablePosField(PosField):
    """A POS tag, or "" for none (a CharField answers "" before to_internal_value; the
    schema says so with drf-spectacular's own alternative for a blank string)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_blank=True, **kwargs)
