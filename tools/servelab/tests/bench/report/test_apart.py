"""A judged figure never reads as its own bound: the decimals grow until they tell them apart."""

from __future__ import annotations

import pytest

from servelab.bench.report.markdown import apart


@pytest.mark.parametrize(
    ("value", "bound", "expected"),
    [
        (1.234, 1.5, "1.23"),
        (1.104, 1.1, "1.104"),
        (1.0996, 1.1, "1.0996"),
        (1.1, 1.1, "1.10"),
        (1.100001, 1.1, "1.1000"),
        (2.0, None, "2.00"),
    ],
)
def test_a_ratio_gets_the_decimals_that_tell_it_from_its_bound(
    value: float, bound: float | None, expected: str
) -> None:
    assert apart(value, bound, 2) == expected


@pytest.mark.parametrize(
    ("excess", "expected"),
    [(0.08, "+8%"), (0.104, "+10.4%"), (0.1, "+10%"), (-0.2, "-20%")],
)
def test_a_percentage_against_a_limit_of_ten_percent(excess: float, expected: str) -> None:
    assert apart(excess, 0.1, 0, percent=True) == expected
