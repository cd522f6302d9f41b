"""A value measured in rounds gets Student's t interval over the logarithms of its rounds:
wider with fewer rounds, none at all from one round; a ratio is taken round by round."""

from __future__ import annotations

from math import exp, log, sqrt

import pytest

from servelab.bench.findings.spread import Spread, summary, t975


def test_three_rounds_give_the_hand_computed_t_interval() -> None:
    # Logarithms 0.1, 0.2, 0.3: mean 0.2, standard deviation 0.1, and t at 97.5% with
    # 2 degrees of freedom 4.303 (any table of Student's t).
    spread = Spread.of([exp(0.1), exp(0.2), exp(0.3)])
    assert spread is not None
    half = 4.303 * 0.1 / sqrt(3)
    assert spread.value == pytest.approx(exp(0.2))
    assert spread.low == pytest.approx(exp(0.2 - half))
    assert spread.high == pytest.approx(exp(0.2 + half))
    assert (round(spread.low, 4), round(spread.high, 4)) == (0.9527, 1.5659)
    assert spread.count == 3
    # 1.22 over three rounds, yet 1 lies inside its interval: no side.
    assert spread.side() == 0


def test_two_rounds_give_the_geometric_mean_and_a_wide_interval() -> None:
    # 1 and 4: geometric mean 2; one degree of freedom, t = 12.706.
    spread = Spread.of([1.0, 4.0])
    assert spread is not None
    half = 12.706 * (log(4) / sqrt(2)) / sqrt(2)
    assert spread.value == pytest.approx(2.0)
    assert spread.low == pytest.approx(2.0 * exp(-half))
    assert spread.high == pytest.approx(2.0 * exp(half))


def test_past_thirty_degrees_of_freedom_t_is_the_normal_196() -> None:
    assert t975(1) == 12.706
    assert t975(30) == 2.042
    assert t975(31) == t975(200) == 1.96
    # 41 rounds alternating e^-0.1 and e^0.1 around e^0 (20 of one, 21 of the other).
    values = [exp(0.1 if i % 2 else -0.1) for i in range(41)]
    logs = [log(v) for v in values]
    mean = sum(logs) / 41
    sd = sqrt(sum((x - mean) ** 2 for x in logs) / 40)
    spread = Spread.of(values)
    assert spread is not None
    assert spread.high == pytest.approx(exp(mean + 1.96 * sd / sqrt(41)))


def test_the_same_scatter_over_fewer_rounds_gives_a_wider_interval() -> None:
    pattern = [1.10, 1.25]
    widths = []
    for repeats in (1, 2, 4):
        spread = Spread.of(pattern * repeats)
        assert spread is not None
        assert spread.low < spread.value < spread.high
        widths.append(spread.high / spread.low)
    assert widths[0] > widths[1] > widths[2]
    # Over 8 rounds 1.10 and 1.25 are above 1 for sure; over 2 rounds they are not.
    eight, two = Spread.of(pattern * 4), Spread.of(pattern)
    assert eight is not None and two is not None
    assert (eight.side(), two.side()) == (1, 0)


@pytest.mark.parametrize("values", [[], [1.3], [1.2, 0.0], [1.2, -1.0]])
def test_one_round_or_a_value_not_above_zero_gives_no_interval(values: list[float]) -> None:
    assert Spread.of(values) is None


def test_rounds_that_agree_exactly_give_an_interval_of_no_width() -> None:
    spread = Spread.of([1.05, 1.05, 1.05])
    assert spread is not None
    assert spread.low == pytest.approx(1.05)
    assert spread.high == pytest.approx(1.05)
    assert spread.side() == 1


def test_a_ratio_pairs_the_rounds_so_that_a_drift_of_both_sides_cancels() -> None:
    # Both sides triple over the rounds (a machine slowing down), their ratio stays 2.
    top, bottom = [100.0, 200.0, 300.0], [50.0, 100.0, 150.0]
    paired = Spread.ratio(top, bottom)
    assert paired is not None
    assert (paired.value, paired.count) == (pytest.approx(2.0), 3)
    assert paired.low == pytest.approx(2.0)
    assert paired.high == pytest.approx(2.0)
    assert paired.side() == 1
    # Each side alone is far too scattered to say as much.
    one, other = Spread.of(top), Spread.of(bottom)
    assert one is not None and other is not None
    assert one.low < other.high


def test_a_ratio_keeps_only_the_rounds_both_sides_measured() -> None:
    paired = Spread.ratio([100.0, None, 300.0, 220.0], [50.0, 80.0, None, 100.0])
    assert paired is not None
    assert paired.count == 2
    assert paired.value == pytest.approx(sqrt(2.0 * 2.2))
    assert Spread.ratio([100.0, None], [50.0, 80.0]) is None


def test_side_is_against_1_or_another_limit() -> None:
    spread = Spread(1.05, 1.02, 1.08, 4)
    assert spread.side() == 1
    assert spread.side(1.1) == -1
    assert spread.side(1.05) == 0
    assert Spread(0.9, 0.85, 0.95, 4).side() == -1


def test_a_summary_is_the_geometric_mean_within_the_widest_bounds() -> None:
    mean = summary([Spread(0.5, 0.4, 0.6, 3), Spread(2.0, 1.6, 2.4, 5)])
    assert mean.value == pytest.approx(1.0)
    assert (mean.low, mean.high, mean.count) == (0.4, 2.4, 3)
    assert mean.shown() == "1.00× (0.40–2.40)"
    assert Spread(312.4, 300.2, 330.9, 3).shown(0, " µs") == "312 µs (300–331)"
