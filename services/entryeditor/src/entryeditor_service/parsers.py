"""The JSON parser of every endpoint: DRF's, with the nesting of a body bounded before it is
decoded. Python's json decoder recurses once per level, so `[[[[...]]]]` 1,000 deep (a 2 KB
body) raised RecursionError, a 500; deeper than MAX_DEPTH is now a 400 parse_error."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# No entry, command or init body nests deeper than a few levels.
MAX_DEPTH = 32
# A string (skipped whole, escapes and all) or a bracket.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings aside)."""
    deepest = level = 0
    for token in _TOKENS.finditer(body):
        bracket = token[0]
        if bracket in (b"[", b"{"):
            level += 1
            deepest = max(deepest, level)
        elif bracket in (b"]", b"}"):
            level -= 1
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        body = stream.read() if stream is not None else b""
        if depth(body) > MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
        return super().parse(io.BytesIO(body), media_type, parser_context)
