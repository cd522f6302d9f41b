"""A value's range decides which side of 1 it lies on; one measurement gets the noise."""

from __future__ import annotations

import pytest

from servelab.bench.findings.spread import Spread, geometric
from servelab.project import Noise

NOISE = Noise().once


def test_rounds_give_their_median_and_range() -> None:
    spread = Spread.of([1.2, 1.1, 1.4], NOISE)
    assert (spread.value, spread.low, spread.high, spread.count) == (1.2, 1.1, 1.4, 3)
    assert spread.side() == 1


def test_one_measurement_is_given_the_noise_either_side() -> None:
    spread = Spread.of([1.05], NOISE)
    assert spread.low == pytest.approx(1.05 / (1 + NOISE))
    assert spread.high == pytest.approx(1.05 * (1 + NOISE))
    # 1.05 measured once cannot be told from 1; 0.8 can.
    assert spread.side() == 0
    assert Spread.of([0.8], NOISE).side() == -1


def test_two_runs_merge_into_one_wider_range() -> None:
    merged = Spread.of([0.9, 0.95], NOISE).merge(Spread.of([1.02, 1.04], NOISE))
    assert (merged.low, merged.high, merged.count) == (0.9, 1.04, 4)
    assert merged.side() == 0


def test_a_geometric_mean_keeps_the_bounds() -> None:
    mean = geometric([Spread(0.5, 0.4, 0.6, 3), Spread(2.0, 1.6, 2.4, 3)])
    assert mean.value == pytest.approx(1.0)
    assert mean.low == pytest.approx((0.4 * 1.6) ** 0.5)
    assert mean.shown() == "1.00× (0.80–1.20)"
