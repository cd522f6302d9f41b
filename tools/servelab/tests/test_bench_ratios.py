from __future__ import annotations

import math

import pytest

from servelab.bench.ratios import GoalSpec, RatioSpec, Side, goal_results, ratio_values

RATES = {
    ("uvicorn", 1, "a"): 100.0,
    ("uvicorn", 1, "b"): 50.0,
    ("uvicorn", 1, "c"): 10.0,
    ("gunicorn", 1, "a"): 200.0,
    ("gunicorn", 1, "b"): 200.0,
    ("uvicorn", 2, "a"): 180.0,
    ("reference", 1, "limit"): 400.0,
}
VARIANTS = ["uvicorn", "gunicorn", "reference"]


def test_same_variant_endpoint_ratio_per_variant_and_workers() -> None:
    spec = RatioSpec("b/a", "", Side(endpoint="b"), Side(endpoint="a"))
    values = ratio_values(spec, RATES, VARIANTS)
    assert [(v.variant, v.workers, v.value, v.pairs) for v in values] == [
        ("uvicorn", 1, 0.5, 1),
        ("gunicorn", 1, 1.0, 1),
    ]


def test_variant_ratio_is_the_geometric_mean_over_shared_endpoints() -> None:
    spec = RatioSpec("g/u", "", Side(variants=("gunicorn",)), Side(variants=("uvicorn",)))
    [value] = ratio_values(spec, RATES, VARIANTS)
    assert value.pairs == 2
    assert value.value == pytest.approx(math.sqrt(2.0 * 4.0))
    assert (value.variant, value.workers) == ("gunicorn", 1)


def test_fixed_denominator_variant_serves_every_numerator_variant() -> None:
    spec = RatioSpec(
        "a / limit",
        "",
        Side(variants=("uvicorn", "gunicorn"), endpoint="a"),
        Side(variants=("reference",), endpoint="limit"),
    )
    values = ratio_values(spec, RATES, VARIANTS)
    assert [(v.variant, v.workers, v.value) for v in values] == [
        ("uvicorn", 1, 0.25),
        ("gunicorn", 1, 0.5),
    ]


def test_missing_or_zero_sides_give_no_value() -> None:
    spec = RatioSpec("c/a", "", Side(endpoint="c"), Side(endpoint="zero"))
    assert ratio_values(spec, {**RATES, ("uvicorn", 1, "zero"): 0.0}, VARIANTS) == []


def test_goals_are_met_per_value_and_unmeasured_goals_are_not_met() -> None:
    spec = RatioSpec("b/a", "", Side(endpoint="b"), Side(endpoint="a"))
    values = ratio_values(spec, RATES, VARIANTS)
    results = goal_results(
        [GoalSpec("b at least 0.8 a", "b/a", 0.8), GoalSpec("never run", "x/y", 1.0)], values
    )
    assert [(r.goal.goal, r.value.variant if r.value else None, r.met) for r in results] == [
        ("b at least 0.8 a", "uvicorn", False),
        ("b at least 0.8 a", "gunicorn", True),
        ("never run", None, False),
    ]
