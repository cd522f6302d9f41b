"""`servelab bench <family>` and `servelab report <family>`.

run_bench runs the family's matrix (loadtests/matrix/<family>.toml) and writes
docs/results/<family>.json, .md and charts; render_report writes the .md and charts
again from the saved .json.
"""

from __future__ import annotations

from pathlib import Path

from servelab.bench.charts import write_charts
from servelab.bench.errors import BenchError
from servelab.bench.matrix import Matrix, load_matrix
from servelab.bench.report import render
from servelab.bench.results import load_run, save_run
from servelab.bench.runner import run_matrix
from servelab.bench.writeup import load_write_up
from servelab.project import find_project_dir, results_dir

__all__ = ["BenchError", "render_report", "results_path", "run_bench"]


def results_path(project_dir: Path, family: str) -> Path:
    return results_dir(project_dir) / f"{family}.json"


def _write_report(project_dir: Path, matrix: Matrix) -> Path:
    saved = results_path(project_dir, matrix.family)
    if not saved.is_file():
        raise BenchError(f"no results at {saved}: run `servelab bench {matrix.family}` first")
    run = load_run(saved)
    write_up = load_write_up(project_dir / matrix.write_up)
    results = results_dir(project_dir)
    charts = write_charts(run, results / matrix.family, results, matrix, write_up)
    report = results / f"{matrix.family}.md"
    report.write_text(render(run, matrix, write_up, charts))
    return report


def run_bench(family: str, quick: bool, *, project_dir: Path | None = None) -> Path:
    """Run the matrix (its quick or full form), save the results, write the report;
    returns the report's path."""
    project_dir = project_dir or find_project_dir()
    matrix = load_matrix(project_dir, family)
    run = run_matrix(project_dir, matrix, "quick" if quick else "full")
    save_run(run, results_path(project_dir, family))
    return _write_report(project_dir, matrix)


def render_report(family: str, *, project_dir: Path | None = None) -> Path:
    """Write docs/results/<family>.md and its charts again from the saved results."""
    project_dir = project_dir or find_project_dir()
    return _write_report(project_dir, load_matrix(project_dir, family))
