"""A matrix's cells: load shapes per family, variant or endpoint; settings per form and
variant; the variable that carries the number of workers; CPU pinning; goal filters."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from servelab.bench.load import Load
from servelab.bench.matrix import WORKERS_ENV, MatrixError, parse_matrix
from servelab.bench.ratios import GoalSpec, Side

RAW: dict[str, Any] = {
    "family": "demo",
    "write_up": "loadtests/reference/demo.toml",
    "workers_env": "WORKERS",
    "settings": {"quick": {"WAITING_TIME": 0.5}},
    "load": {"quick": {"vus": 50, "duration_s": 2, "warmup_s": 1}},
    "shapes": {
        "hey": {"quick": {"vus": 1000, "iterations": 1, "max_duration_s": 60}},
        "client": {"quick": {"vus": 10, "iterations": 1, "max_duration_s": 30}},
    },
    "variants": {
        "plain": {"profile": "p", "service": "s", "endpoints": "mixed", "workers": {"quick": [1]}},
        "bursty": {
            "profile": "p",
            "service": "s",
            "endpoints": "mixed",
            "workers": {"quick": [1, 2]},
            "shape": "hey",
            "env": {"THREADPOOL_SIZE": 1000, "WAITING_TIME": "0.2"},
            "workers_env": "PROCESSES",
            "pin": False,
        },
    },
    "endpoints": {
        "mixed": [
            {"key": "a", "script": "wait.js"},
            {"key": "b", "script": "wait.js", "shape": "client", "env": {"ENDPOINT": "/b"}},
        ]
    },
    "ratios": [
        {
            "name": "rounds",
            "metric": "elapsed_s",
            "numerator": {},
            "denominator": {"setting": "WAITING_TIME"},
        },
        {"name": "errors", "metric": "error_count", "numerator": {"endpoint": "a"}},
    ],
    "goals": [
        {
            "goal": "bursts within 1.3x",
            "ratio": "rounds",
            "variants": ["bursty"],
            "endpoint": "a",
            "workers": [1],
            "max": 1.3,
        },
        {"goal": "no errors", "ratio": "errors", "max": 0},
        {"goal": "fastest", "ratio": "rounds", "best": True, "min": 0.7},
    ],
}


def _cells(raw: dict[str, Any]) -> dict[tuple[str, int, str], Any]:
    return {
        (c.variant.name, c.workers, c.endpoint.key): c for c in parse_matrix(raw).cells("quick")
    }


def test_an_endpoints_shape_wins_over_its_variants_and_the_default() -> None:
    cells = _cells(RAW)
    assert cells["plain", 1, "a"].load == Load(vus=50, duration_s=2.0, warmup_s=1.0)
    assert cells["plain", 1, "b"].load.shape == "client"
    assert cells["bursty", 1, "a"].load == Load(
        vus=1000, shape="hey", iterations=1, max_duration_s=60.0
    )
    assert cells["bursty", 2, "b"].load.shape == "client"


def test_a_cells_server_gets_the_forms_settings_the_variants_env_and_its_workers() -> None:
    cells = _cells(RAW)
    assert cells["plain", 1, "a"].server_env == {"WAITING_TIME": "0.5", "WORKERS": "1"}
    assert cells["bursty", 2, "a"].server_env == {
        "WAITING_TIME": "0.2",
        "THREADPOOL_SIZE": "1000",
        "PROCESSES": "2",
    }


def test_the_workers_variable_defaults_to_web_concurrency() -> None:
    raw = copy.deepcopy(RAW)
    del raw["workers_env"]
    cells = _cells(raw)
    assert cells["plain", 1, "a"].server_env[WORKERS_ENV] == "1"
    assert WORKERS_ENV == "WEB_CONCURRENCY"


def test_pinning_is_on_unless_the_matrix_or_the_variant_turns_it_off() -> None:
    matrix = parse_matrix(RAW)
    assert [(v.name, v.pin) for v in matrix.variants] == [("plain", True), ("bursty", False)]
    raw = copy.deepcopy(RAW)
    raw["pin"] = False
    assert not any(v.pin for v in parse_matrix(raw).variants)


def test_a_matrix_without_a_payload_has_none() -> None:
    assert parse_matrix(RAW).payload is None


def test_ratios_name_a_metric_and_may_divide_by_a_setting_or_by_nothing() -> None:
    rounds, errors = parse_matrix(RAW).ratios
    assert (rounds.metric, rounds.denominator) == ("elapsed_s", Side(setting="WAITING_TIME"))
    assert rounds.per_cell and not rounds.plain
    assert errors.plain and errors.numerator == Side(endpoint="a")


def test_goals_carry_their_bounds_and_filters() -> None:
    goals = parse_matrix(RAW).goals
    assert goals[0] == GoalSpec(
        "bursts within 1.3x", "rounds", None, 1.3, ("bursty",), "a", (1,), False
    )
    assert (goals[1].minimum, goals[1].maximum) == (None, 0.0)
    assert goals[2].best


def test_the_report_notes_come_from_the_matrix() -> None:
    raw = copy.deepcopy(RAW)
    raw["report"] = {"notes": "\n**Why.** Because.\n"}
    assert parse_matrix(raw).notes == "**Why.** Because."


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw["endpoints"]["mixed"][1].update(shape="ab"), r"no \[shapes\.ab\.quick\]"),
        (lambda raw: raw["variants"]["bursty"].update(shape="nope"), r"shapes\.nope\.quick"),
        (lambda raw: raw["shapes"]["hey"]["quick"].pop("iterations"), "missing `iterations`"),
        (lambda raw: raw["shapes"]["hey"].update(soon={}), r"unknown form\(s\) \['soon'\]"),
        (lambda raw: raw["ratios"][0].update(metric="speed"), "unknown metric 'speed'"),
        (lambda raw: raw["goals"][1].pop("max"), "needs `min`, `max` or both"),
        (lambda raw: raw["goals"][0].update(variants=["x"]), "names unknown variants"),
    ],
)
def test_mistakes_are_named(change: Any, message: str) -> None:
    raw = copy.deepcopy(RAW)
    change(raw)
    with pytest.raises(MatrixError, match=message):
        parse_matrix(raw)
