"""files_service.transfer.ranges: the Range header as RFC 9110 14.1-14.2 reads it."""

from __future__ import annotations

import pytest

from files_service.transfer.ranges import MAX_RANGES, Unsatisfiable, parse_ranges

SIZE = 1000


@pytest.mark.parametrize(
    ("header", "ranges"),
    [
        ("bytes=0-99", [(0, 100)]),
        ("bytes=10-10", [(10, 11)]),
        ("bytes=990-", [(990, 1000)]),
        ("bytes=-5", [(995, 1000)]),
        ("bytes=-5000", [(0, 1000)]),  # a suffix longer than the file is all of it
        ("bytes=900-5000", [(900, 1000)]),  # a last position past the end is cut there
        ("Bytes = 0-0", [(0, 1)]),  # the unit is case-insensitive
        ("bytes=0-9, 20-29", [(0, 10), (20, 30)]),
        ("bytes=20-29,0-9", [(0, 10), (20, 30)]),  # several: sorted
        ("bytes=0-9,5-19,20-29", [(0, 30)]),  # overlapping and adjacent: merged
        ("bytes=0-9, 2000-", [(0, 10)]),  # the unsatisfiable one is left out
        ("bytes=0-9,", [(0, 10)]),  # an empty element is allowed (RFC 9110 5.6.1)
    ],
)
def test_satisfiable_ranges(header: str, ranges: list[tuple[int, int]]) -> None:
    assert parse_ranges(header, SIZE) == ranges


@pytest.mark.parametrize(
    "header",
    [
        "lines=1-2",  # another unit
        "bytes",
        "bytes=",
        "bytes=-",
        "bytes=a-b",
        "bytes=5-1",  # last before first
        "bytes=1-2-3",
        "bytes=\u0661-\u0662",  # digits, but not ASCII ones
        "bytes=--5",
        "bytes=0-1,x",  # one bad element spoils the header
        "bytes=" + ",".join(f"{2 * i}-{2 * i}" for i in range(MAX_RANGES + 1)),
    ],
)
def test_what_is_not_understood_is_ignored(header: str) -> None:
    assert parse_ranges(header, SIZE) is None


@pytest.mark.parametrize(
    "header", ["bytes=1000-", "bytes=5000-6000", "bytes=-0", "bytes=1000-,2000-"]
)
def test_no_range_inside_the_file_is_unsatisfiable(header: str) -> None:
    with pytest.raises(Unsatisfiable) as raised:
        parse_ranges(header, SIZE)
    assert raised.value.size == SIZE


def test_an_empty_file_satisfies_no_range() -> None:
    with pytest.raises(Unsatisfiable):
        parse_ranges("bytes=0-", 0)
    with pytest.raises(Unsatisfiable):
        parse_ranges("bytes=-1", 0)
