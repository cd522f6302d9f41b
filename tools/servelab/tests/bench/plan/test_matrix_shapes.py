"""A matrix's cells: load shapes per family, variant or endpoint; common tables with
per-form overrides; endpoint sweeps over rates and VUs; settings per form and variant; the
variable that carries the number of workers; CPU pinning; goal filters; report notes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from servelab.bench.load.shape import Load
from servelab.bench.plan.matrix import MatrixError, load_matrix, parse_matrix
from servelab.project import Project
from servelab.spec.matrix import WORKERS_ENV, Goal, Side

RAW: dict[str, Any] = {
    "family": "demo",
    "write_up": "loadtests/reference/demo.toml",
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
    assert cells["plain", 1, "a"].server_env == {"WAITING_TIME": "0.5", "WEB_CONCURRENCY": "1"}
    assert cells["bursty", 2, "a"].server_env == {
        "WAITING_TIME": "0.2",
        "THREADPOOL_SIZE": "1000",
        "WEB_CONCURRENCY": "2",
    }
    assert WORKERS_ENV == "WEB_CONCURRENCY"


def test_common_keys_hold_for_every_form_and_a_forms_own_table_overrides_them() -> None:
    raw = copy.deepcopy(RAW)
    raw["settings"] = {"WAITING_TIME": 1, "full": {"WAITING_TIME": 2}}
    raw["load"] = {"vus": 50, "warmup_s": 1, "quick": {"duration_s": 2}, "full": {"duration_s": 9}}
    raw["shapes"]["client"] = {"vus": 10, "iterations": 1, "max_duration_s": 30}
    raw["variants"]["plain"]["workers"] = {"quick": [1], "full": [1]}
    matrix = parse_matrix(raw)
    assert matrix.settings == {"quick": {"WAITING_TIME": "1"}, "full": {"WAITING_TIME": "2"}}
    assert matrix.load("quick") == Load(vus=50, duration_s=2.0, warmup_s=1.0)
    assert matrix.load("full") == Load(vus=50, duration_s=9.0, warmup_s=1.0)
    assert matrix.load("full", "client") == matrix.load("quick", "client")
    assert [cell.endpoint.key for cell in matrix.cells("full")] == ["a", "b"]


def test_the_matrix_names_the_workers_a_variant_does_not() -> None:
    raw = copy.deepcopy(RAW)
    raw["workers"] = {"quick": [3]}
    del raw["variants"]["plain"]["workers"]
    assert {(c.variant.name, c.workers) for c in parse_matrix(raw).cells("quick")} == {
        ("plain", 3),
        ("bursty", 1),
        ("bursty", 2),
    }
    del raw["workers"]
    with pytest.raises(MatrixError, match=r"^demo: variants\.plain\.workers: Field required$"):
        parse_matrix(raw)


SWEPT: dict[str, Any] = {
    "family": "sweep",
    "write_up": "loadtests/reference/demo.toml",
    "load": {
        "shape": "vegeta",
        "rate": 100,
        "vus_per_rate": 0.5,
        "min_vus": 10,
        "max_vus": 1000,
        "duration_s": 5,
    },
    "shapes": {"boom": {"vus": 10, "duration_s": 5}},
    "variants": {
        "v": {"profile": "p", "service": "s", "endpoints": "e", "workers": {"quick": [4]}}
    },
    "endpoints": {
        "e": [
            {"key": "list", "script": "x.js", "env": {"NAME": "list"}, "rates": [10, 200]},
            {"key": "diff", "script": "x.js", "shape": "boom", "vus": [1, 50]},
        ]
    },
}


def test_an_endpoint_runs_once_per_rate_and_per_number_of_vus() -> None:
    cells = parse_matrix(SWEPT).cells("quick")
    assert [(c.endpoint.key, c.load.rate, c.load.vus) for c in cells] == [
        ("list @10/s", 10, 10),  # rate / 2 VUs ready, but at least min_vus
        ("list @200/s", 200, 100),
        ("diff c1", 0, 1),
        ("diff c50", 0, 50),
    ]
    assert {c.load.shape for c in cells} == {"vegeta", "boom"}
    assert cells[1].load.max_vus == 1000 and cells[1].endpoint.env == {"NAME": "list"}
    assert parse_matrix(SWEPT).load("quick").vus == 50


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: e[1].update(shape="nope"), r"^sweep: endpoints: 'diff': no \[shapes\.nope\]$"),
        (lambda e: e[0].update(vus=[1]), "sweeps `rates` and `vus`; one at a time"),
    ],
)
def test_sweep_mistakes_are_named(change: Any, message: str) -> None:
    raw = copy.deepcopy(SWEPT)
    change(raw["endpoints"]["e"])
    with pytest.raises(MatrixError, match=message):
        parse_matrix(raw)


STEADY: dict[str, Any] = {
    "family": "demo",
    "write_up": "loadtests/reference/demo.toml",
    "load": {"vus": 100, "duration_s": 3},
    "shapes": {"steady": {"shape": "vegeta", "rate": 100, "vus": 20, "duration_s": 3}},
    "tools": ["wrk"],
    "variants": {
        "v": {"profile": "p", "service": "s", "endpoints": "e", "workers": {"quick": [1]}}
    },
    "endpoints": {
        "e": [
            {"key": "up", "script": "upload.js", "env": {"MODE": "raw"}, "steady": True},
            {"key": "down", "script": "download.js"},
            {"key": "get", "script": "download.js", "steady": True},
        ]
    },
}


def test_a_steady_endpoint_also_runs_at_the_steady_rate_without_extra_tools() -> None:
    cells = parse_matrix(STEADY).cells("quick")
    assert [(c.endpoint.key, c.load.shape, c.load.rate, c.tools) for c in cells] == [
        ("up", "wrk", 0, ("wrk",)),
        ("down", "wrk", 0, ("wrk",)),
        ("get", "wrk", 0, ("wrk",)),
        ("up @100/s", "vegeta", 100, ()),
        ("get @100/s", "vegeta", 100, ()),
    ]
    assert cells[3].endpoint.env == {"MODE": "raw"}
    assert cells[3].endpoint.script == "upload.js"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw["shapes"].pop("steady"), r"\[shapes.steady\] needs one `rate`"),
        (lambda raw: raw["shapes"]["steady"].pop("rate"), r"\[shapes.steady\] needs one `rate`"),
        (lambda raw: raw["endpoints"]["e"][0].update(rates=[10]), "cannot also sweep"),
        (
            lambda raw: raw["endpoints"]["e"][0].update(steady="yes"),
            "steady: Input should be a valid",
        ),
    ],
)
def test_steady_mistakes_are_named(change: Any, message: str) -> None:
    raw = copy.deepcopy(STEADY)
    change(raw)
    with pytest.raises(MatrixError, match=message):
        parse_matrix(raw)


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
    assert goals[0] == Goal(
        goal="bursts within 1.3x",
        ratio="rounds",
        min=None,
        max=1.3,
        variants=("bursty",),
        endpoint="a",
        workers=(1,),
        best=False,
    )
    assert (goals[1].minimum, goals[1].maximum) == (None, 0.0)
    assert goals[2].best


def test_a_goal_over_endpoints_is_one_goal_per_endpoint_at_its_rate() -> None:
    raw = copy.deepcopy(SWEPT)
    raw["ratios"] = [{"name": "success", "metric": "success_ratio", "numerator": {}}]
    raw["goals"] = [
        {
            "goal": "all served",
            "ratio": "success",
            "endpoints": ["list", "diff"],
            "rate": 200,
            "min": 1,
        }
    ]
    goals = parse_matrix(raw).goals
    assert [(g.goal, g.endpoint, g.minimum) for g in goals] == [
        ("all served: list", "list @200/s", 1.0),
        ("all served: diff", "diff @200/s", 1.0),
    ]


def test_the_report_notes_are_the_markdown_file_beside_the_matrix(tmp_path: Path) -> None:
    family = tmp_path / "loadtests" / "families"
    family.mkdir(parents=True)
    (family / "demo.toml").write_text(
        'family = "demo"\nwrite_up = "w.toml"\n[load]\nvus = 1\nduration_s = 1\n'
        '[variants.v]\nprofile = "p"\nservice = "s"\nendpoints = "e"\n'
        'workers = { quick = [1] }\n[[endpoints.e]]\nkey = "a"\nscript = "a.js"\n'
    )
    assert load_matrix(Project(tmp_path), "demo").notes == ""
    (family / "demo.md").write_text("\n**Why.** Because.\n")
    assert load_matrix(Project(tmp_path), "demo").notes == "**Why.** Because."


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw["endpoints"]["mixed"][1].update(shape="ab"), r"'b': no \[shapes\.ab\]"),
        (
            lambda raw: raw["variants"]["bursty"].update(shape="nope"),
            r"bursty: no \[shapes\.nope\]",
        ),
        (lambda raw: raw["shapes"]["hey"]["quick"].pop("iterations"), "missing `iterations`"),
        (
            lambda raw: raw["shapes"]["hey"].update(soon={}),
            r"shapes\.hey\.soon\.\[key\]: String should match pattern",
        ),
        (
            lambda raw: raw["ratios"][0].update(metric="speed"),
            r"ratios\.0\.metric: Input should be",
        ),
        (lambda raw: raw["goals"][1].pop("max"), "needs `min`, `max` or both"),
        (lambda raw: raw["goals"][0].update(variants=["x"]), "names unknown variants"),
    ],
)
def test_mistakes_are_named(change: Any, message: str) -> None:
    raw = copy.deepcopy(RAW)
    change(raw)
    with pytest.raises(MatrixError, match=message):
        parse_matrix(raw)
