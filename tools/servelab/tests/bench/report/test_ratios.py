from __future__ import annotations

import math

import pytest

from servelab.bench.report.ratios import goal_results, ratio_values
from servelab.spec.matrix import Goal, Part, Ratio, Side

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
    spec = Ratio(name="b/a", numerator=Side(endpoint="b"), denominator=Side(endpoint="a"))
    values = ratio_values(spec, RATES, VARIANTS)
    assert [(v.variant, v.workers, v.value, v.pairs) for v in values] == [
        ("uvicorn", 1, 0.5, 1),
        ("gunicorn", 1, 1.0, 1),
    ]


def test_variant_ratio_is_the_geometric_mean_over_shared_endpoints() -> None:
    spec = Ratio(
        name="g/u", numerator=Side(variants=("gunicorn",)), denominator=Side(variants=("uvicorn",))
    )
    [value] = ratio_values(spec, RATES, VARIANTS)
    assert value.pairs == 2
    assert value.value == pytest.approx(math.sqrt(2.0 * 4.0))
    assert (value.variant, value.workers) == ("gunicorn", 1)


def test_skipped_endpoints_are_left_out_of_the_mean() -> None:
    skipping = Side(variants=("gunicorn",), skip=("b",))
    spec = Ratio(name="g/u", numerator=skipping, denominator=Side(variants=("uvicorn",)))
    [value] = ratio_values(spec, RATES, VARIANTS)
    assert (value.pairs, value.value) == (1, pytest.approx(2.0))


def test_only_and_skip_pick_endpoints_by_glob() -> None:
    """`only = ["* @100/s"]` keeps the steady cells, `skip` the same glob leaves them out; a
    key without glob characters matches itself alone."""
    rates = {
        ("uvicorn", 1, "a"): 100.0,
        ("uvicorn", 1, "a @100/s"): 100.0,
        ("uvicorn", 1, "b @100/s"): 100.0,
        ("gunicorn", 1, "a"): 300.0,
        ("gunicorn", 1, "a @100/s"): 200.0,
        ("gunicorn", 1, "b @100/s"): 800.0,
    }
    uvicorn = Side(variants=("uvicorn",))

    def mean(side: Side) -> tuple[int, float]:
        [value] = ratio_values(
            Ratio(name="g/u", numerator=side, denominator=uvicorn), rates, VARIANTS
        )
        return value.pairs, value.value

    assert mean(Side(variants=("gunicorn",), only=("* @100/s",))) == (2, pytest.approx(4.0))
    assert mean(Side(variants=("gunicorn",), skip=("* @100/s",))) == (1, pytest.approx(3.0))
    assert mean(Side(variants=("gunicorn",), only=("* @100/s",), skip=("b*",))) == (
        1,
        pytest.approx(2.0),
    )
    assert mean(Side(variants=("gunicorn",), skip=("a",))) == (2, pytest.approx(4.0))


def test_fixed_denominator_variant_serves_every_numerator_variant() -> None:
    spec = Ratio(
        name="a / limit",
        numerator=Side(variants=("uvicorn", "gunicorn"), endpoint="a"),
        denominator=Side(variants=("reference",), endpoint="limit"),
    )
    values = ratio_values(spec, RATES, VARIANTS)
    assert [(v.variant, v.workers, v.value) for v in values] == [
        ("uvicorn", 1, 0.25),
        ("gunicorn", 1, 0.5),
    ]


def test_missing_or_zero_sides_give_no_value() -> None:
    spec = Ratio(name="c/a", numerator=Side(endpoint="c"), denominator=Side(endpoint="zero"))
    assert ratio_values(spec, {**RATES, ("uvicorn", 1, "zero"): 0.0}, VARIANTS) == []


def test_goals_are_met_per_value_and_unmeasured_goals_are_not_met() -> None:
    spec = Ratio(name="b/a", numerator=Side(endpoint="b"), denominator=Side(endpoint="a"))
    values = ratio_values(spec, RATES, VARIANTS)
    results = goal_results(
        [
            Goal(goal="b at least 0.8 a", ratio="b/a", min=0.8),
            Goal(goal="never run", ratio="x/y", min=1.0),
        ],
        values,
    )
    assert [(r.goal.goal, r.value.variant if r.value else None, r.met) for r in results] == [
        ("b at least 0.8 a", "uvicorn", False),
        ("b at least 0.8 a", "gunicorn", True),
        ("never run", None, False),
    ]


ELAPSED = {
    ("uvicorn", 1, "hey /sync"): 25.4,
    ("uvicorn", 1, "hey /async"): 1.3,
    ("pool", 1, "hey /sync"): 1.8,
    ("cpu", 1, "client /async"): 2.0,
}
SETTINGS = {
    ("uvicorn", 1, "hey /sync"): {"WAITING_TIME": "1"},
    ("uvicorn", 1, "hey /async"): {"WAITING_TIME": "1"},
    ("pool", 1, "hey /sync"): {"WAITING_TIME": "1", "THREADPOOL_SIZE": "1000"},
    ("cpu", 1, "client /async"): {"WAITING_TIME": "0.2"},
}
ROUNDS = Ratio(
    name="rounds", numerator=Side(), denominator=Side(setting="WAITING_TIME"), metric="elapsed_s"
)


def test_a_metric_over_a_setting_is_one_value_per_cell() -> None:
    values = ratio_values(ROUNDS, ELAPSED, ["uvicorn", "pool", "cpu"], SETTINGS)
    assert [(v.where, v.value) for v in values] == [
        ("uvicorn (hey /sync)", 25.4),
        ("uvicorn (hey /async)", 1.3),
        ("pool (hey /sync)", 1.8),
        ("cpu (client /async)", 10.0),
    ]


def test_a_cell_without_the_setting_gives_no_value() -> None:
    values = ratio_values(ROUNDS, ELAPSED, ["uvicorn"], {})
    assert values == []


def test_a_plain_metric_of_one_endpoint_names_only_the_variant() -> None:
    spec = Ratio(name="errors", numerator=Side(endpoint="hey /sync"), metric="error_count")
    values = ratio_values(spec, {**ELAPSED, ("uvicorn", 1, "hey /sync"): 0.0}, ["uvicorn", "pool"])
    assert [(v.where, v.value) for v in values] == [("uvicorn", 0.0), ("pool", 1.8)]


def test_several_denominator_variants_mean_the_fastest_of_them() -> None:
    rates = {**RATES, ("empty", 1, "limit"): 500.0}
    spec = Ratio(
        name="a / limit",
        numerator=Side(variants=("uvicorn",), endpoint="a"),
        denominator=Side(variants=("reference", "empty"), endpoint="limit"),
    )
    [value] = ratio_values(spec, rates, [*VARIANTS, "empty"])
    assert value.value == pytest.approx(100.0 / 500.0)


def test_goals_bound_from_above_and_filter_the_values_they_judge() -> None:
    values = ratio_values(ROUNDS, ELAPSED, ["uvicorn", "pool", "cpu"], SETTINGS)
    goal = Goal(goal="async within 1.3x", ratio="rounds", max=1.3, endpoint="hey /async")
    [result] = goal_results([goal], values)
    assert result.value is not None and result.value.variant == "uvicorn"
    assert result.met
    sized = Goal(goal="sized pool within 1.5x", ratio="rounds", max=1.5, variants=("pool",))
    assert [r.met for r in goal_results([sized], values)] == [False]
    band = Goal(
        goal="about 25 rounds", ratio="rounds", min=20, max=30, variants=("uvicorn",), workers=(1,)
    )
    assert [r.met for r in goal_results([band], values)] == [True, False]
    other_workers = Goal(goal="two workers", ratio="rounds", max=1.0, workers=(2,))
    assert [r.value for r in goal_results([other_workers], values)] == [None]


def test_a_best_goal_judges_only_the_highest_value_per_worker_count() -> None:
    spec = Ratio(
        name="a / limit",
        numerator=Side(endpoint="a"),
        denominator=Side(variants=("reference",), endpoint="limit"),
    )
    values = ratio_values(spec, RATES, VARIANTS)
    [result] = goal_results([Goal(goal="fastest", ratio="a / limit", min=0.4, best=True)], values)
    assert result.value is not None
    assert (result.value.variant, result.value.workers, result.met) == ("gunicorn", 1, True)


def test_a_denominator_can_fix_its_number_of_workers() -> None:
    """Tornado in N processes over Tornado in one, whatever N the column has."""
    spec = Ratio(
        name="multi/single",
        numerator=Side(variants=("uvicorn",), endpoint="a"),
        denominator=Side(variants=("uvicorn",), endpoint="a", workers=1),
    )
    values = ratio_values(spec, RATES, VARIANTS)
    assert [(v.workers, v.value) for v in values] == [(1, 1.0), (2, 1.8)]


# Server CPU µs per request: two servers, their empty apps, and nginx doing the job.
COSTS = {
    ("uvicorn", 1, "upload"): 300.0,
    ("uvicorn", 1, "stream"): 240.0,
    ("gunicorn", 1, "upload"): 330.0,
    ("empty-uvicorn", 1, "empty/upload"): 100.0,
    ("empty-gunicorn", 1, "empty/upload"): 120.0,
    ("reference", 1, "ingest"): 100.0,
    ("empty-wsgi", 1, "hello"): 50.0,
    ("empty-asgi", 1, "hello"): 40.0,
}
FLOOR = Side(
    sum=(
        Part(variant="empty-{variant}", endpoint="empty/upload"),
        Part(variant="reference", endpoint="ingest"),
    )
)


def test_a_sum_floor_adds_the_empty_app_on_the_same_server_to_nginx() -> None:
    spec = Ratio(
        name="upload / floor",
        numerator=Side(variants=("uvicorn", "gunicorn"), endpoint="upload"),
        denominator=FLOOR,
        metric="cpu_us",
    )
    values = ratio_values(spec, COSTS, VARIANTS)
    # uvicorn: 300 / (100 + 100); gunicorn: 330 / (120 + 100).
    assert [(v.variant, v.value) for v in values] == [("uvicorn", 1.5), ("gunicorn", 1.5)]


def test_a_sum_with_a_part_missing_gives_no_value() -> None:
    spec = Ratio(
        name="s",
        numerator=Side(variants=("uvicorn",), endpoint="upload"),
        denominator=FLOOR,
        metric="cpu_us",
    )
    assert ratio_values(spec, {**COSTS, ("reference", 1, "ingest"): 0.0}, VARIANTS) == []
    del_ingest = {k: v for k, v in COSTS.items() if k != ("reference", 1, "ingest")}
    assert ratio_values(spec, del_ingest, VARIANTS) == []


def test_listed_numerator_endpoints_each_get_a_value_named_by_endpoint() -> None:
    spec = Ratio(
        name="strategies / floor",
        numerator=Side(variants=("uvicorn",), endpoints=("upload", "stream")),
        denominator=FLOOR,
        metric="cpu_us",
    )
    values = ratio_values(spec, COSTS, VARIANTS)
    assert [(v.where, v.value) for v in values] == [
        ("uvicorn (upload)", 1.5),
        ("uvicorn (stream)", 1.2),
    ]
    # `best` of a cost is the lowest value: the cheapest strategy.
    goal = Goal(goal="cheapest ≤ 1.3×", ratio="strategies / floor", max=1.3, best=True)
    [result] = goal_results([goal], values, {spec.name: spec})
    assert result.value is not None
    assert (result.value.endpoint, result.met) == ("stream", True)


def test_the_limit_of_a_cost_is_the_cheapest_denominator() -> None:
    spec = Ratio(
        name="hello / empty",
        numerator=Side(variants=("uvicorn",), endpoint="upload"),
        denominator=Side(variants=("empty-wsgi", "empty-asgi"), endpoint="hello"),
        metric="cpu_us",
    )
    [value] = ratio_values(spec, COSTS, VARIANTS)
    # 300 µs over the cheaper empty app's 40 µs, not the other's 50.
    assert value.value == pytest.approx(7.5)
    # For requests/s the limit stays the fastest denominator: the least ratio.
    rates = Ratio(name="r", numerator=spec.numerator, denominator=spec.denominator)
    [rate] = ratio_values(rates, COSTS, VARIANTS)
    assert rate.value == pytest.approx(6.0)
