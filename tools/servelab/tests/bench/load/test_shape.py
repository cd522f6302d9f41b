from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pytest

from servelab.bench.load.k6 import k6_binary
from servelab.bench.load.shape import SHAPES, Load, parse_load
from servelab.spec.family import SpecError
from servelab.spec.matrix import Shape

Options = Callable[[str, dict[str, str]], dict[str, Any]]


@pytest.fixture
def options(project_root: Path) -> Options:
    """The options lib/options.js gives k6 for loadtests/<script> under `env` (`k6
    inspect`: no load is sent)."""

    def inspect(script: str, env: dict[str, str]) -> dict[str, Any]:
        argv = [k6_binary(), "inspect"]
        for key, value in env.items():
            argv += ["-e", f"{key}={value}"]
        result = subprocess.run(
            [*argv, str(project_root / "loadtests" / script)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        found: dict[str, Any] = json.loads(result.stdout)
        return found

    return inspect


def test_a_timed_load_measures_its_duration() -> None:
    load = parse_load({"vus": 400, "duration_s": 3, "warmup_s": 1}, "load.quick")
    assert load == Load(vus=400, duration_s=3.0, warmup_s=1.0, shape="wrk")
    assert not load.counted
    assert load.seconds == 4.0
    assert load.k6_env() == {"SHAPE": "wrk", "VUS": "400", "DURATION": "3s", "WARMUP": "1s"}
    assert load.describe().startswith("wrk: 400 VUs (connections), 1 s warm-up + 3 s measured")


def test_a_counted_load_runs_until_its_limit() -> None:
    raw = {"shape": "hey", "vus": 1000, "iterations": 1, "max_duration_s": 90}
    load = parse_load(raw, "load.quick")
    assert load.counted
    assert load.seconds == 90.0
    assert load.k6_env() == {
        "SHAPE": "hey",
        "VUS": "1000",
        "ITERATIONS": "1",
        "MAX_DURATION": "90s",
    }
    assert "1000 VUs at once, 1 request(s) each" in load.describe()


def test_an_ab_load_shares_its_requests_among_its_vus() -> None:
    raw = {"shape": "ab", "vus": 20, "iterations": 200, "max_duration_s": 300}
    load = parse_load(raw, "load.quick")
    assert load == Load(vus=20, shape="ab", iterations=200, max_duration_s=300.0)
    assert load.counted
    assert load.seconds == 300.0
    assert load.k6_env() == {
        "SHAPE": "ab",
        "VUS": "20",
        "ITERATIONS": "200",
        "MAX_DURATION": "300s",
    }
    assert load.describe().startswith("ab: 20 VUs sharing 200 requests, each on a new connection")
    with pytest.raises(SpecError, match="ab is counted, duration_s does not apply"):
        parse_load({**raw, "duration_s": 5}, "load.quick")


def test_the_ab_shape_opens_a_connection_per_request_like_ab_without_keep_alive(
    options: Options,
) -> None:
    found = options("wait.js", {"SHAPE": "ab", "VUS": "3", "ITERATIONS": "9"})
    assert found["noConnectionReuse"] is True
    assert _picked(found["scenarios"]["ab"], "executor", "vus", "iterations") == (
        "shared-iterations",
        3,
        9,
    )
    assert options("wait.js", {"SHAPE": "hey"})["noConnectionReuse"] is False


def test_a_named_shape_is_the_default_of_its_table() -> None:
    load = parse_load({"vus": 10, "iterations": 1, "max_duration_s": 60}, "shapes.client", "client")
    assert (load.shape, load.vus, load.counted) == ("client", 10, True)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"shape": "siege", "vus": 1, "duration_s": 1}, "shape: Input should be 'wrk', 'hey'"),
        ({"vus": 1}, "missing `duration_s`"),
        ({"duration_s": 1}, "missing `vus`"),
        ({"shape": "hey", "vus": 1, "max_duration_s": 9}, "missing `iterations`"),
        (
            {"shape": "hey", "vus": 1, "iterations": 1, "max_duration_s": 9, "warmup_s": 1},
            "hey is counted, warmup_s does not apply",
        ),
        (
            {"shape": "vegeta", "vus": 1, "rate": 100, "duration_s": 0.5},
            "duration_s 0.5 is shorter than the 1 s k6 runs a constant-arrival-rate",
        ),
        ({"vus": 1, "duration_s": 0.5}, "shorter than the 1 s k6 runs a constant-vus"),
    ],
)
def test_mistakes_in_a_load_are_named(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_load(raw, "load.quick")


@pytest.mark.parametrize("shape", get_args(Shape))
def test_every_shape_means_the_same_executor_in_k6(options: Options, shape: str) -> None:
    scenarios = options("wait.js", {"SHAPE": shape})["scenarios"]
    assert scenarios[shape]["executor"] == SHAPES[shape]


def _picked(scenario: dict[str, Any], *keys: str) -> tuple[Any, ...]:
    return tuple(scenario[key] for key in keys)


def test_a_loads_environment_sets_k6s_scenario(options: Options) -> None:
    counted = Load(vus=7, shape="client", iterations=3, max_duration_s=20)
    scenario = options("wait.js", counted.k6_env())["scenarios"]["client"]
    assert _picked(scenario, "executor", "vus", "iterations", "maxDuration") == (
        "per-vu-iterations",
        7,
        3,
        "20s",
    )
    timed = Load(vus=5, duration_s=2, warmup_s=1)
    scenario = options("hello.js", timed.k6_env())["scenarios"]["wrk"]
    assert _picked(scenario, "executor", "vus", "duration") == ("constant-vus", 5, "3s")


@pytest.mark.parametrize(
    ("script", "name", "expected"),
    [
        ("wait.js", "hey", {"vus": 1000, "iterations": 1}),
        ("hello.js", "wrk", {"vus": 400, "duration": "30s"}),
        ("upload.js", "wrk", {"vus": 100, "duration": "10s"}),
    ],
)
def test_each_script_defaults_to_its_write_ups_shape(
    options: Options, script: str, name: str, expected: dict[str, Any]
) -> None:
    scenario = options(script, {})["scenarios"][name]
    assert {key: scenario[key] for key in expected} == expected


def test_a_script_default_gives_way_to_another_shape(options: Options) -> None:
    """hello.js's 400 VUs are its wrk default; SHAPE=hey takes hey's own 1000."""
    assert options("hello.js", {"SHAPE": "hey"})["scenarios"]["hey"]["vus"] == 1000


def test_the_warm_up_is_a_run_of_its_own_and_the_measured_run_has_none() -> None:
    warmup, measured = Load(vus=10, duration_s=3, warmup_s=0.5).phases()
    assert warmup == Load(vus=10, duration_s=1.0)  # k6's shortest timed scenario
    assert measured == Load(vus=10, duration_s=3)
    counted = Load(vus=20, shape="ab", iterations=200, max_duration_s=60)
    assert counted.phases() == (None, counted)
    assert Load(vus=4, duration_s=2).phases() == (None, Load(vus=4, duration_s=2))
