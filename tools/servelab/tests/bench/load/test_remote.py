"""`servelab bench --target/--workers/--cpus/--label/--out`: what runs and where it goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.errors import BenchError
from servelab.bench.load.remote import check_url, default_label, target_matrix
from servelab.bench.plan.matrix import MatrixError, load_matrix
from servelab.bench.plan.options import BenchOptions
from servelab.project import Project

RESULTS = Path("docs/results")


def test_the_target_runs_the_first_variant_that_is_not_a_reference_row(
    project_root: Path,
) -> None:
    hello = target_matrix(Project(project_root), load_matrix(Project(project_root), "hello"), None)
    assert [variant.name for variant in hello.variants] == ["gunicorn-sync"]
    nginx = target_matrix(
        Project(project_root), load_matrix(Project(project_root), "hello"), "nginx"
    )
    assert {cell.endpoint.key for cell in nginx.cells("quick")} == {
        "GET /hello",
        "GET /hello @400/s",
    }


def test_a_variant_whose_server_holds_the_payload_is_refused_with_the_way_to_provide_it(
    project_root: Path,
) -> None:
    files = load_matrix(Project(project_root), "files")
    with pytest.raises(MatrixError, match=r"reference-nginx:/payload/health\.jpg.*--payload-on"):
        target_matrix(Project(project_root), files, "reference")
    assert target_matrix(Project(project_root), files, "reference", payload_on_target=True).variants
    # The app variants' downloads store the payload themselves (download.js's setup).
    assert target_matrix(Project(project_root), files, "uvicorn").variants[0].name == "uvicorn"


def test_an_unknown_variant_or_a_bad_url_is_named(project_root: Path) -> None:
    with pytest.raises(MatrixError, match=r"no variant 'nope' \(known: gunicorn-sync"):
        target_matrix(Project(project_root), load_matrix(Project(project_root), "hello"), "nope")
    with pytest.raises(MatrixError, match="expected http://HOST"):
        check_url("localhost:8000")
    assert check_url("http://10.0.0.5:8000/") == "http://10.0.0.5:8000"


def test_a_target_run_never_overwrites_the_local_results() -> None:
    assert BenchOptions().results_file(RESULTS, "hello") == RESULTS / "hello.json"
    remote = BenchOptions(target="http://bench.example:8080")
    assert default_label("http://bench.example:8080") == "bench.example-8080"
    assert remote.results_file(RESULTS, "hello") == RESULTS / "hello.bench.example-8080.json"
    labelled = BenchOptions(target="https://k8s.example", label="k8s", out=Path("elsewhere"))
    assert labelled.results_file(RESULTS, "files") == Path("elsewhere/files.k8s.json")


def test_the_options_are_recorded_as_given_and_the_cpus_as_used(project_root: Path) -> None:
    options = BenchOptions(workers="1,2", cpus="k6=0,server=1", target="http://h:1/")
    matrix = options.matrix(
        Project(project_root), load_matrix(Project(project_root), "hello"), [0, 1]
    )
    assert {cell.workers for cell in matrix.cells("quick")} == {1, 2}
    assert options.record(matrix, options.pinning([0, 1])) == {
        "target": "http://h:1",
        "workers": "1,2",
        "cpus": "k6=0,server=1",
        "variant": "gunicorn-sync",
        "cpus_k6": "0",
    }
    local = BenchOptions(cpus="server=1,k6=0")
    assert local.record(matrix, local.pinning([0, 1])) == {
        "cpus": "server=1,k6=0",
        "cpus_server": "1",
        "cpus_k6": "0",
    }


def test_variant_without_target_and_a_bad_label_are_refused() -> None:
    with pytest.raises(BenchError, match="go with --target"):
        BenchOptions(variant="nginx").check()
    with pytest.raises(BenchError, match=r"--label '\.\./x'"):
        BenchOptions(label="../x").check()
