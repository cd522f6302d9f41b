"""The Range request header (RFC 9110 14.1-14.2) for byte ranges of a file of known size.

    parse_ranges("bytes=0-99, -50", 1000) == [(0, 100), (950, 1000)]

Each range is (start, end) with `end` exclusive, in the order the client asked. A header
this does not understand (another unit, a malformed spec) is ignored, as RFC 9110 14.2
says a server may: the answer is then the whole file (None). A header whose every range
lies past the end of the file raises Unsatisfiable (416). Overlapping or adjacent ranges
are merged (14.2: a server may coalesce them), which also bounds the work one request can
ask for; at most MAX_RANGES ranges are answered, more are ignored as a denial of service.
"""

from __future__ import annotations

MAX_RANGES = 100


class Unsatisfiable(ValueError):
    """No range of the header overlaps the file (answer 416, Content-Range: bytes */size)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"range not satisfiable for {size} bytes")
        self.size = size


def parse_ranges(header: str, size: int) -> list[tuple[int, int]] | None:
    """The satisfiable ranges of `header`, merged and sorted when there are several;
    None to ignore the header; Unsatisfiable when none overlaps the file."""
    unit, equals, specs = header.partition("=")
    if not equals or unit.strip().lower() != "bytes":
        return None
    parsed = [_parse_spec(spec.strip()) for spec in specs.split(",") if spec.strip()]
    if not parsed or any(spec is None for spec in parsed) or len(parsed) > MAX_RANGES:
        return None
    ranges = [r for spec in parsed if spec is not None and (r := _resolve(spec, size))]
    if not ranges:
        raise Unsatisfiable(size)
    return ranges if len(ranges) == 1 else _merge(ranges)


def _parse_spec(spec: str) -> tuple[int | None, int | None] | None:
    """`first-last`, `first-` or `-suffix` as (first, last) / (None, suffix); None if malformed."""
    first, dash, last = spec.partition("-")
    if not dash or not _digits(first, allow_empty=True) or not _digits(last, allow_empty=True):
        return None
    if first == "":
        return None if last == "" else (None, int(last))
    start = int(first)
    if last != "" and int(last) < start:
        return None
    return start, int(last) if last != "" else None


def _digits(text: str, *, allow_empty: bool) -> bool:
    """RFC 9110's 1*DIGIT: ASCII digits only (str.isdigit also takes other scripts')."""
    return (allow_empty and text == "") or (text.isascii() and text.isdigit())


def _resolve(spec: tuple[int | None, int | None], size: int) -> tuple[int, int] | None:
    """The spec as (start, end exclusive) within the file, or None if it lies outside."""
    first, last = spec
    if first is None:
        assert last is not None
        return (max(size - last, 0), size) if last > 0 and size > 0 else None
    if first >= size:
        return None
    return first, size if last is None else min(last + 1, size)


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
