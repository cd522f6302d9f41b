"""Write a results folder's findings page, and compare its answers with another folder's."""

from __future__ import annotations

from pathlib import Path

from servelab.bench.findings.agreement import Agreement, agreement
from servelab.bench.findings.page import Family, answers, render
from servelab.bench.findings.sources import saved_device_run, saved_runs
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.writeup import load_write_up
from servelab.project import families as all_families
from servelab.project import reference_dir

# The write-ups in the order they were published here (000 to 004), then our own.
ORDER = ("health-code", "files", "wait", "entryeditor", "hello", "replicas", "observability")


def page_path(project_dir: Path, results: Path) -> Path:
    """docs/findings.md for the committed reference; <results>/findings.md elsewhere."""
    if results.resolve() == reference_dir(project_dir).resolve():
        return project_dir / "docs" / "findings.md"
    return results / "findings.md"


def load_families(project_dir: Path, results: Path) -> list[Family]:
    names = all_families(project_dir)
    ordered = [name for name in ORDER if name in names] + [n for n in names if n not in ORDER]
    found = []
    for name in ordered:
        matrix = load_matrix(project_dir, name)
        citation = load_write_up(project_dir / matrix.write_up).citation
        saved = saved_runs(results, name)
        found.append(Family(matrix, citation, saved, saved_device_run(results, name)))
    return found


def write_findings(project_dir: Path, results: Path) -> Path:
    page = page_path(project_dir, results)
    command = "servelab findings"
    if page.parent != project_dir / "docs":
        command += f" --results {results}"
    page.write_text(render(load_families(project_dir, results), page, command))
    return page


def compare_findings(project_dir: Path, ours: Path, reference: Path) -> Agreement:
    """Each question answered from `ours` against the same from `reference`."""
    mine = {f.matrix.family: answers(f) for f in load_families(project_dir, ours) if f.saved}
    theirs = {f.matrix.family: answers(f) for f in load_families(project_dir, reference)}
    return agreement(mine, theirs)
