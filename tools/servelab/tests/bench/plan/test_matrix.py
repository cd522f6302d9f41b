from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args

import pytest

from servelab.bench import cli as bench_cli
from servelab.bench.measure.summary import CPU_US, MEMORY_MIB, Measurement
from servelab.bench.plan.matrix import MatrixError, load_matrix, parse_matrix
from servelab.cli import main as servelab
from servelab.project import Project
from servelab.spec import matrix as spec
from servelab.spec.family import families
from servelab.spec.matrix import OTHER_PARTS, Part, Side


def _ratio(raw: dict[str, Any], name: str) -> dict[str, Any]:
    ratio: dict[str, Any] = next(item for item in raw["ratios"] if item["name"] == name)
    return ratio


def _raw(project_root: Path) -> dict[str, Any]:
    with (project_root / "loadtests" / "families" / "files.toml").open("rb") as file:
        return tomllib.load(file)


def test_files_quick_form_covers_the_write_up_and_the_production_api(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    cells = matrix.cells("quick")
    by_variant: dict[str, list[str]] = {}
    for cell in cells:
        assert cell.workers == 1
        by_variant.setdefault(cell.variant.name, []).append(cell.endpoint.key)
    # The bare function's cell shares its key with the service's: it comes in turn beside it.
    assert list(by_variant) == [
        "uvicorn",
        "gunicorn",
        "bare-uvicorn",
        "granian",
        "nginx",
        "reference",
        "empty-uvicorn",
        "empty-gunicorn",
        "empty-granian",
    ]
    api = ["POST /files raw", "POST /files multipart", "GET /files/{id}"]
    steady = [f"{key} @100/s" for key in api]
    # The 13 strategies and the 3 API endpoints, each under 100 connections and at 100/s.
    assert len(by_variant["uvicorn"]) == len(by_variant["gunicorn"]) == 2 * (13 + 3)
    assert by_variant["granian"] == api + steady
    assert by_variant["nginx"] == ["GET /files/{id}", "GET /files/{id} @100/s"]
    assert by_variant["reference"] == [
        "reference/ingest",
        "reference/discard",
        "reference/sendfile",
        "reference/ingest @100/s",
        "reference/sendfile @100/s",
    ]
    for server in ("uvicorn", "gunicorn", "granian"):
        assert by_variant[f"empty-{server}"] == [
            "empty/upload",
            "empty/get",
            "empty/upload @100/s",
            "empty/get @100/s",
        ]
    bare = "upload/stream/async_read_and_disk_write"
    assert by_variant["bare-uvicorn"] == [bare, f"{bare} @100/s"]
    assert len(cells) == 91
    # Every cell once under 100 connections; the steady ones, which the CPU ratios read, in
    # six rounds.
    assert {cell.load.rounds for cell in cells if not cell.load.arrival} == {1}
    assert {cell.load.rounds for cell in cells if cell.load.arrival} == {6}


def test_files_cpu_floors_are_read_at_one_steady_rate(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    for cell in matrix.cells("quick"):
        steady = cell.endpoint.key.endswith(" @100/s")
        assert (cell.load.shape, cell.load.rate) == (("vegeta", 100) if steady else ("wrk", 0))
        assert not (steady and cell.tools)
    ratios = {ratio.name: ratio for ratio in matrix.ratios}
    for name in (
        "API upload CPU / floor",
        "API download CPU / floor",
        "X-Accel download CPU / floor",
    ):
        ratio, floor = ratios[name], ratios[name].denominator
        assert floor is not None
        named = [*ratio.numerator.tops, *(part.endpoint for part in floor.sum)]
        assert all(str(key).endswith(" @100/s") for key in named), name


def test_variants_take_turns_endpoint_by_endpoint(project_root: Path) -> None:
    cells = load_matrix(Project(project_root), "files").cells("quick")
    assert [(c.variant.name, c.endpoint.key) for c in cells[:3]] == [
        ("uvicorn", "upload/stream/async_read_and_memory_write"),
        ("gunicorn", "upload/stream/async_read_and_memory_write"),
        ("uvicorn", "upload/stream/async_read_and_disk_write"),
    ]
    accel = [c.variant.name for c in cells if c.endpoint.key == "GET /files/{id}"]
    assert accel == ["uvicorn", "gunicorn", "granian", "nginx"]


def test_full_form_runs_one_worker_before_two(project_root: Path) -> None:
    workers = [cell.workers for cell in load_matrix(Project(project_root), "files").cells("full")]
    assert workers == sorted(workers)


def test_files_full_form_adds_granian_and_two_workers(project_root: Path) -> None:
    cells = load_matrix(Project(project_root), "files").cells("full")
    assert {(c.variant.name, c.workers) for c in cells} == {
        (variant, workers)
        for variant in (
            "uvicorn",
            "gunicorn",
            "granian",
            "nginx",
            "reference",
            "empty-uvicorn",
            "empty-gunicorn",
            "empty-granian",
            "bare-uvicorn",
        )
        for workers in (1, 2)
    }
    # Per worker count: 13 + 13 strategy and 3 + 3 API cells on three servers, 2 X-Accel
    # cells, 5 nginx floors, 4 empty-app floors on three servers and 2 bare-function cells.
    assert len(cells) == 2 * (3 * 32 + 2 + 5 + 3 * 4 + 2)


def test_every_endpoint_names_an_existing_script_and_an_endpoint(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    for cell in matrix.cells("full"):
        assert (project_root / "loadtests" / cell.endpoint.script).is_file()
        assert cell.endpoint.env["ENDPOINT"].startswith("/")


def test_write_up_endpoints_are_keyed_by_their_write_up_name(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    with (project_root / matrix.write_up).open("rb") as file:
        published = set(tomllib.load(file)["endpoints"])
    uvicorn = next(v for v in matrix.variants if v.name == "uvicorn")
    keys = {endpoint.key for endpoint in matrix.endpoints(uvicorn, "quick")}
    assert published <= keys
    for endpoint in matrix.endpoints(uvicorn, "quick"):
        if endpoint.key in published:
            assert endpoint.env["ENDPOINT"] == f"/files/{endpoint.key}"


def test_ratio_sides_and_goals_are_parsed(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    ratios = {ratio.name: ratio for ratio in matrix.ratios}
    steady = ("* @100/s",)
    assert ratios["gunicorn/uvicorn"].numerator == Side(variants=("gunicorn",), skip=steady)
    assert ratios["gunicorn/uvicorn CPU"].numerator == Side(variants=("gunicorn",), only=steady)
    assert ratios["multipart/raw"].denominator == Side(endpoint="POST /files raw")
    floor = ratios["API upload CPU / floor"].denominator
    assert floor == Side(
        sum=(
            Part(variant="empty-{variant}", endpoint="empty/upload @100/s"),
            Part(variant="reference", endpoint="reference/ingest @100/s"),
        )
    )
    maximums = {goal.ratio: goal.maximum for goal in matrix.goals}
    assert maximums == {
        "API upload CPU / floor": 1.5,
        "API download CPU / floor": 1.5,
        "X-Accel download CPU / floor": 1.2,
        "raw-body strategies CPU / floor": 1.5,
        "multipart strategies CPU / floor": 1.5,
        "base64 CPU / floor": 1.5,
        "download strategies CPU / floor": 1.5,
        "layers CPU / bare function": 1.15,
    }
    assert all(goal.best for goal in matrix.goals if "strateg" in goal.ratio)


def test_load_shapes(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    assert matrix.load("full").duration_s == 10
    assert matrix.load("full").vus == matrix.load("quick").vus == 100
    assert matrix.load("quick").seconds < matrix.load("full").seconds
    with pytest.raises(MatrixError, match=r"load\.huge"):
        matrix.load("huge")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda raw: raw["variants"]["uvicorn"].pop("profile"),
            r"^files: variants\.uvicorn\.profile: Field required$",
        ),
        (
            lambda raw: raw["variants"]["uvicorn"].update(endpoints="nope"),
            "uvicorn: no endpoint group 'nope'",
        ),
        (
            lambda raw: raw["variants"]["uvicorn"].update(workers={"soon": [1]}),
            r"workers\.soon\.\[key\]: String should match pattern",
        ),
        (lambda raw: raw["goals"][0].update(ratio="nope"), "names no ratio"),
        (lambda raw: raw["ratios"][0]["numerator"].update(variants=["x"]), "unknown variants"),
        # A sum's part names a server the matrix does not run once "{variant}" is written out.
        (
            lambda raw: _ratio(raw, "API upload CPU / floor")["numerator"].update(
                variants=["nginx"]
            ),
            r"unknown variants \['empty-nginx'\]",
        ),
        (
            lambda raw: _ratio(raw, "API upload CPU / floor")["numerator"].pop("variants"),
            r"a part naming \{variant\} needs numerator variants",
        ),
        (
            lambda raw: _ratio(raw, "API upload CPU / floor").update(metric="ok_rps"),
            "ok_rps does not add up",
        ),
        (
            lambda raw: _ratio(raw, "API upload CPU / floor")["denominator"]["sum"][0].pop(
                "endpoint"
            ),
            r"denominator\.sum\.0\.endpoint: Field required",
        ),
        (
            lambda raw: _ratio(raw, "API upload CPU / floor")["denominator"].update(
                variants=["reference"]
            ),
            "nothing beside it",
        ),
        (
            lambda raw: _ratio(raw, "base64 CPU / floor")["numerator"].pop("endpoint"),
            "names its numerator's endpoint",
        ),
        (
            lambda raw: _ratio(raw, "gunicorn/uvicorn")["numerator"].update(
                endpoint="GET /files/{id}"
            ),
            "names no endpoint picks some",
        ),
        (
            lambda raw: raw["variants"]["uvicorn"].update(tools=["hey"]),
            r"uvicorn\.tools\.quick\.0: Input should be 'wrk' or 'ab'",
        ),
        (lambda raw: raw.update(tools="siege"), r"^files: tools\.quick\.0: Input"),
        (lambda raw: raw.update(tools=["ab"]), r"uvicorn \(quick\): ab needs a counted shape"),
    ],
)
def test_mistakes_in_the_matrix_are_named(project_root: Path, change: Any, message: str) -> None:
    raw = _raw(project_root)
    change(raw)
    with pytest.raises(MatrixError, match=message):
        parse_matrix(raw)


def test_unknown_family_lists_the_known_ones(project_root: Path) -> None:
    with pytest.raises(MatrixError, match=r"known: .*files"):
        load_matrix(Project(project_root), "nope")


def test_cli_reports_an_unknown_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert servelab(["report", "nope"]) == 2
    assert "no family 'nope'" in capsys.readouterr().err


def test_cli_re_renders_every_family_with_saved_results(
    project_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[str] = []

    def render(project: Project, family: str) -> Path:
        rendered.append(family)
        return project_root / f"{family}.md"

    monkeypatch.setattr(bench_cli, "render_report", render)
    monkeypatch.chdir(project_root)
    assert servelab(["report"]) == 0
    saved = sorted(path.stem for path in (project_root / "docs/results").glob("*.json"))
    assert rendered == [family for family in saved if family in families(Project(project_root))]
    assert "files" in rendered


def test_a_variant_can_run_other_endpoints_in_each_form(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "files")
    granian = next(v for v in matrix.variants if v.name == "granian")
    quick = {endpoint.key for endpoint in matrix.endpoints(granian, "quick")}
    full = {endpoint.key for endpoint in matrix.endpoints(granian, "full")}
    api = {"POST /files raw", "POST /files multipart", "GET /files/{id}"}
    assert quick == api | {f"{key} @100/s" for key in api}
    assert quick < full
    assert "upload/single" in full


def test_tools_run_on_a_variant_or_on_every_variant(project_root: Path) -> None:
    raw = _raw(project_root)
    del raw["tools"]
    for variant in raw["variants"].values():
        variant.pop("tools", None)
    raw["variants"]["uvicorn"]["tools"] = ["wrk", "wrk"]
    matrix = parse_matrix(raw)
    tools = {(c.variant.name, c.tools) for c in matrix.cells("quick")}
    assert {variant for variant, named in tools if named == ("wrk",)} == {"uvicorn"}
    assert ("gunicorn", ()) in tools
    raw["tools"] = "wrk"
    # But for the steady-rate cells, whose endpoints name no tools (`tools = []`).
    tools = {
        (c.endpoint.key.endswith(" @100/s"), c.tools) for c in parse_matrix(raw).cells("quick")
    }
    assert tools == {(False, ("wrk",)), (True, ())}


def test_an_endpoint_may_name_its_own_tools(project_root: Path) -> None:
    hello = load_matrix(Project(project_root), "hello")
    tools = {(c.endpoint.key, c.tools) for c in hello.cells("quick")}
    assert tools == {("GET /hello", ("wrk",)), ("GET /hello @400/s", ())}
    raw = _raw(project_root)
    raw["endpoints"]["app"][0]["tools"] = ["siege"]
    with pytest.raises(MatrixError, match=r"endpoints\.app\.0\.tools\.0: Input should be"):
        parse_matrix(raw)


def test_tools_can_run_in_one_form_only(project_root: Path) -> None:
    raw = _raw(project_root)
    raw["tools"] = {"full": ["wrk"]}
    for variant in raw["variants"].values():
        variant.pop("tools", None)
    matrix = parse_matrix(raw)
    assert {c.tools for c in matrix.cells("quick")} == {()}
    saturated = [c for c in matrix.cells("full") if c.load.shape == "wrk"]
    assert {c.tools for c in saturated} == {("wrk",)}
    raw["tools"] = {"nightly": ["wrk"]}
    with pytest.raises(MatrixError, match=r"tools\.nightly\.\[key\]: String should match"):
        parse_matrix(raw)


def test_workers_override_every_variant_but_those_that_fix_their_own(project_root: Path) -> None:
    matrix = load_matrix(Project(project_root), "hello").with_workers((1, 2, 4))
    workers = {cell.variant.name: set() for cell in matrix.cells("quick")}
    for cell in matrix.cells("quick"):
        workers[cell.variant.name].add(cell.workers)
    assert workers["gunicorn-sync"] == workers["granian"] == {1, 2, 4}
    assert workers["tornado"] == {1}
    assert {cell.workers for cell in matrix.cells("full")} == {1, 2, 4}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw.update(rounds=3), r"^files: rounds: Extra inputs are not permitted$"),
        (
            lambda raw: raw["variants"]["uvicorn"].update(profiles="uvicorn"),
            r"^files: variants\.uvicorn\.profiles: Extra inputs are not permitted$",
        ),
        (
            lambda raw: raw["load"]["quick"].update(duration=1),
            r"^files: load\.quick\.duration: Extra inputs are not permitted$",
        ),
        (
            lambda raw: raw["variants"]["granian"].update(endpoints={"full": ["app", "nope"]}),
            r"^files: variants: granian: no endpoint group 'nope'$",
        ),
        (lambda raw: raw.pop("write_up"), r"^files: write_up: Field required$"),
        (
            lambda raw: raw["endpoints"]["app"][0].pop("script"),
            r"^files: endpoints\.app\.0\.script: Field required$",
        ),
    ],
)
def test_a_mistake_is_one_line_naming_the_family_and_the_key(
    project_root: Path, change: Any, message: str
) -> None:
    raw = _raw(project_root)
    change(raw)
    with pytest.raises(MatrixError, match=message):
        parse_matrix(raw)


def test_the_other_parts_of_a_spec_are_left_to_their_models(project_root: Path) -> None:
    raw = {**_raw(project_root), **{part: {"anything": 1} for part in OTHER_PARTS}}
    assert parse_matrix(raw).cells("quick") == load_matrix(Project(project_root), "files").cells(
        "quick"
    )


@pytest.mark.parametrize("metric", get_args(spec.Metric))
def test_every_metric_a_ratio_names_is_one_a_cell_gives(metric: str) -> None:
    figures = {field.name for field in fields(Measurement)}
    readable = metric in figures or isinstance(getattr(Measurement, metric, None), property)
    assert readable or metric in (CPU_US, MEMORY_MIB)
