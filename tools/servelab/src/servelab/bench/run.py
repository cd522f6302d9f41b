"""`servelab bench <family>` and `servelab report <family>`.

run_bench runs the family's matrix (loadtests/families/<family>.toml) and writes
docs/results/<family>.json, .md and charts; render_report writes the .md and charts
again from the saved .json.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from servelab.bench.errors import BenchError
from servelab.bench.measure.cpus import available_cpus
from servelab.bench.plan.matrix import Matrix, load_matrix
from servelab.bench.plan.options import BenchOptions
from servelab.bench.progress import Plan, Progress
from servelab.bench.report.markdown import render
from servelab.bench.report.results import load_run, save_run
from servelab.bench.report.stages import profile_section
from servelab.bench.report.writeup import load_write_up
from servelab.bench.runner import planned, run_matrix
from servelab.project import Project


def results_path(project: Project, family: str) -> Path:
    return project.results / f"{family}.json"


def _write_report(project: Project, matrix: Matrix, saved: Path | None = None) -> Path:
    """The report (<stem>.md) and charts (<stem>/) beside the saved results <stem>.json."""
    saved = saved or results_path(project, matrix.family)
    if not saved.is_file():
        raise BenchError(f"no results at {saved}: run `servelab bench {matrix.family}` first")
    run = load_run(saved)
    write_up = load_write_up(project.root / matrix.write_up)
    results = saved.parent
    # matplotlib loads here, when a report is drawn: not in every process that imports
    # servelab.bench (the CLI, the pytest plugin's k6 helper).
    from servelab.bench.report.charts import write_charts

    charts = write_charts(run, results / saved.stem, results, matrix, write_up)
    report = results / f"{saved.stem}.md"
    default = saved.resolve() == results_path(project, matrix.family).resolve()
    source = None if default else _shown(project, saved)
    named = matrix.report.profile
    profile = profile_section(results / named) if named else []
    report.write_text(render(run, matrix, write_up, charts, source, profile))
    return report


def _shown(project: Project, path: Path) -> Path:
    """`path` as a command run from the project's root would name it."""
    try:
        return path.resolve().relative_to(project.root.resolve())
    except ValueError:
        return path.resolve()


def run_progress(
    project: Project,
    families: Sequence[str],
    quick: bool,
    *,
    options: BenchOptions,
    stream: TextIO = sys.stderr,
) -> Progress | None:
    """One progress over the cells of every family, for a run of several, each family's
    run_bench then passing it on; None for one family alone, whose run makes its own."""
    if len(families) < 2:
        return None
    options.check()
    available = available_cpus()
    form = "quick" if quick else "full"
    plans: list[Plan] = []
    parts: list[tuple[str, int]] = []
    for family in families:
        matrix = options.matrix(project, load_matrix(project, family), available)
        cells = planned(project, matrix, form)
        plans += cells
        parts.append((family, len(cells)))
    return Progress(plans, stream, parts)


def run_bench(
    project: Project,
    family: str,
    quick: bool,
    *,
    options: BenchOptions,
    progress: Progress | None = None,
) -> Path:
    """Run the matrix (its quick or full form) as `options` say, save the results, write
    the report; returns the report's path. `progress` is a run's of several families
    (run_progress)."""
    options.check()
    available = available_cpus()
    matrix = options.matrix(project, load_matrix(project, family), available)
    pinning = options.pinning(available)
    run = run_matrix(
        project,
        matrix,
        "quick" if quick else "full",
        pinning=pinning,
        target=options.target_url,
        options=options.record(matrix, pinning),
        on_disk=options.on_disk,
        progress=progress,
    )
    saved = save_run(run, options.results_file(project.results, family))
    return _write_report(project, matrix, saved)


def render_report(project: Project, family: str) -> Path:
    """Write docs/results/<family>.md and its charts again from the saved results; `family`
    may also be a saved run's .json (a labelled or --out run), whose report goes beside it."""
    if not family.endswith(".json"):
        return _write_report(project, load_matrix(project, family))
    saved = Path(family)
    if not saved.is_file():
        raise BenchError(f"no results at {saved}")
    return _write_report(project, load_matrix(project, load_run(saved).family), saved)
