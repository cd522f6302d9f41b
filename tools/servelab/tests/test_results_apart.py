"""A user's `make bench` keeps its reports apart from the committed reference: the results
folder follows SERVELAB_RESULTS, and the Makefile's bench targets set it while only the
reference targets write docs/results."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from servelab.project import Project

RESULTS_ENV = "SERVELAB_RESULTS"


def test_results_follow_the_variable_else_the_reference(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    project = Project(tmp_path)
    assert project.results == project.reference == tmp_path / "docs" / "results"
    monkeypatch.setenv(RESULTS_ENV, "results/laptop")
    assert Project(tmp_path).results == tmp_path / "results" / "laptop"
    assert project.results == project.reference, "read when the project is built"
    monkeypatch.setenv(RESULTS_ENV, "")
    assert Project(tmp_path).results == project.reference


def _commands(project_root: Path, tmp_path: Path, target: str) -> list[str]:
    """What `make TARGET` runs through $(RUN), each line with the SERVELAB_RESULTS it gets,
    with the bootstrap and the reliability sub-make stubbed out (a stale value in the
    caller's environment must not leak through)."""
    show = tmp_path / "show.py"
    show.write_text(
        "import os, sys\nprint(repr(os.environ.get('SERVELAB_RESULTS')), *sys.argv[1:])\n"
    )
    stub = tmp_path / "stub.mk"
    stub.write_text("bootstrap:\n\t@:\n")
    done = subprocess.run(
        [
            "make",
            "-s",
            "--no-print-directory",
            "-f",
            "Makefile",
            "-f",
            str(stub),
            target,
            "RESULTS=results/here",
            f"RUN={sys.executable} {show}",
            "MAKE=true",
        ],
        cwd=project_root,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, RESULTS_ENV: "stale"},
    )
    return [line for line in done.stdout.splitlines() if line.startswith("'")]


@pytest.mark.parametrize("target", ["bench", "bench-full"])
def test_make_bench_writes_apart_and_compares_with_the_reference(
    project_root: Path, tmp_path: Path, target: str
) -> None:
    commands = _commands(project_root, tmp_path, target)
    assert commands[0].startswith("'results/here' servelab bench")
    assert commands[0].endswith("--full --label full" if target == "bench-full" else "--quick")
    assert commands[-1] == "'results/here' servelab findings --against docs/results"
    assert "/results/" in (project_root / ".gitignore").read_text().splitlines()


def test_only_the_reference_targets_write_docs_results(project_root: Path, tmp_path: Path) -> None:
    commands = _commands(project_root, tmp_path, "reference")
    assert commands == [
        "'' servelab bench --quick",
        "'' servelab findings",
    ]
