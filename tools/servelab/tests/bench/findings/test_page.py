"""docs/findings.md answers every family's questions from each saved run alone, sets runs
that answer differently side by side, says what to run where it cannot answer, compares two
runs' answers by what they mean (not their words), links evidence that exists, and is what
the code writes now."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from servelab.bench.findings.answer import Answer
from servelab.bench.findings.page import (
    Family,
    Ours,
    agreement,
    answers,
    load_families,
    render,
    run_answers,
    write_findings,
)
from servelab.bench.measure.machine import Machine
from servelab.bench.plan.matrix import load_matrix
from servelab.bench.report.results import BenchRun
from servelab.project import Noise, Project
from servelab.spec.family import families
from servelab.spec.questions import load_questions
from servelab.testing.records import DEBIAN

from .conftest import BUFFER, OCR, STREAM, cell, run, stream_buffer

STREAM_BUFFER = "Stream an upload or buffer it?"
WORKERS = "Which mode, and how many workers?"
# The full runs' machine: another one, another day.
XEON = asdict(Machine("Intel Xeon", 4, 16.0, DEBIAN, "6.1.0", "3.11.7", "k6 v1.1.0"))
QUICK = "quick run (2 CPUs, AMD EPYC, 2026-01-01)"
FULL = "full run (4 CPUs, Intel Xeon, 2026-02-01)"

# Where the synthetic runs are saved, and their page written.
RESULTS = Path("/results")
STREAM_WINS = (0.5, 0.52, 0.49, 0.5)
BUFFER_WINS = (2.0, 1.9, 2.1, 2.0)
EVEN = (1.3, 0.8, 1.25, 0.85)


def _files(factors: Sequence[float] | None, **fields: Any) -> BenchRun:
    """A run of files in which stream over buffer is `factors` round by round (None: each
    cell measured once)."""
    if factors is None:
        once = [
            cell("uvicorn", STREAM, 100.0, cpu_us=300.0),
            cell("uvicorn", BUFFER, 100.0, cpu_us=600.0),
        ]
        return run("files", once, **fields)
    return run("files", stream_buffer("uvicorn", factors), rounds=len(factors), **fields)


def _full(factors: Sequence[float] | None) -> BenchRun:
    return _files(factors, form="full", started="2026-02-01T00:00:00+00:00", machine=XEON)


def _family(project_root: Path, *saved: BenchRun, again: BenchRun | None = None) -> Family:
    project = Project(project_root)
    asked = [q for q in load_questions(project, "files") if q.question == STREAM_BUFFER]
    return Family(
        load_matrix(project, "files"),
        "the files write-up",
        asked,
        [(RESULTS / f"files{'.full' if each.form == 'full' else ''}.json", each) for each in saved],
        (RESULTS / "files.again.json", again) if again is not None else None,
        Noise(),
    )


def _by_family(family: Family, found: BenchRun) -> dict[str, list[Answer]]:
    return {family.name: run_answers(family, found)}


def _render(*found: Family) -> str:
    return render(found, RESULTS / "findings.md", "servelab findings", Noise())


def test_the_committed_page_is_what_the_committed_runs_give(project: Project) -> None:
    page = project.root / "docs" / "findings.md"
    families = load_families(project, project.reference)
    expected = render(families, page, "servelab findings", project.noise)
    assert page.read_text() == expected, "run `uv run servelab findings` and commit the page"


@pytest.fixture(scope="module")
def fresh() -> str:
    """The page as the committed runs give it now."""
    project = Project.find(Path(__file__))
    page = project.root / "docs" / "findings.md"
    return render(
        load_families(project, project.reference), page, "servelab findings", project.noise
    )


def test_every_question_is_answered_or_says_what_to_run(project: Project, fresh: str) -> None:
    for family in families(project):
        for rule in load_questions(project, family):
            assert f"### {rule.question}" in fresh, (family, rule.question)
    cannot = [line for line in fresh.splitlines() if "cannot answer here" in line]
    assert cannot
    for line in cannot:
        assert re.search(r"run `(servelab|scripts/|python |k6 )[^`]*`", line), line
    assert not re.search(r"\bissue\b", fresh, re.IGNORECASE)


def test_every_link_names_a_file_that_exists(project: Project, fresh: str) -> None:
    page = project.root / "docs" / "findings.md"
    links = re.findall(r"\]\(([^)#]+)\)", fresh)
    assert links
    for link in links:
        assert (page.parent / link).is_file(), link


def test_runs_that_mean_the_same_give_one_answer(project_root: Path) -> None:
    family = _family(project_root, _files(STREAM_WINS), _full((0.6, 0.62, 0.58, 0.6)))
    text = _render(family)
    assert "- **Ours:** stream (quick and full runs agree)." in text
    assert f"- **{QUICK}:** stream." in text
    assert f"- **{FULL}:** stream." in text
    # The write-up's answer is stream: the glance says the same.
    assert re.search(
        rf"\| {re.escape(STREAM_BUFFER)} +\| stream \(quick and full runs agree\) .*\| same +\|",
        text,
    )
    assert "[files](files.md), [files full](files.full.md)" in text


def test_runs_that_differ_stand_side_by_side_with_their_machines(project_root: Path) -> None:
    family = _family(project_root, _files(STREAM_WINS), _full(BUFFER_WINS))
    text = _render(family)
    assert "- **Ours:** the runs differ, each below." in text
    assert f"- **{QUICK}:** stream." in text
    assert f"- **{FULL}:** buffer (UploadFile)." in text
    assert f"the runs differ: {QUICK}: stream; {FULL}: buffer (UploadFile)" in text
    assert re.search(r"\| runs differ +\|", text)
    # Every figure of a run is its own: the quick run's rounds, not pooled with the full's.
    assert "Intervals: 95% intervals over 4 rounds of the quick run." in text
    assert "Intervals: 95% intervals over 4 rounds of the full run." in text


def test_a_run_that_cannot_answer_leaves_the_answer_to_the_other(project_root: Path) -> None:
    family = _family(project_root, _files(STREAM_WINS), _full(None))
    [[quick, full]] = answers(family)
    ours = Ours.of([quick, full])
    assert ours.verdict == "stream (quick run; the full run cannot answer)"
    assert ours.agreed is not None and ours.agreed.names == frozenset({"stream"})
    # Neither answers: the first run's reason stands.
    both = Ours.of([(quick[0], full[1]), full])
    assert both.verdict.startswith("cannot answer here: each cell measured once in the full run")


def _workers(top: str, alike: str) -> BenchRun:
    """health-code with `top` fastest at 2 workers and `alike` as fast at its best."""
    cells = [
        cell(top, OCR, 10.0, workers=1, requests=200, rounds_rps=[10.0, 10.2, 9.8]),
        cell(top, OCR, 20.0, workers=2, requests=200, rounds_rps=[20.5, 20.9, 20.1]),
        cell(alike, OCR, 20.0, workers=2, requests=200, rounds_rps=[20.0, 20.8, 19.2]),
    ]
    return run("health-code", cells, rounds=3)


def test_two_runs_naming_the_same_servers_in_another_order_agree(project_root: Path) -> None:
    project = Project(project_root)
    rule = next(q for q in load_questions(project, "health-code") if q.question == WORKERS)
    family = Family(load_matrix(project, "health-code"), "", [rule], [], None, Noise())
    one = run_answers(family, _workers("uvicorn-process", "uvicorn-threadpool"))
    other = run_answers(family, _workers("uvicorn-threadpool", "uvicorn-process"))
    assert one[0].verdict == "2 workers on 2 CPUs; uvicorn-process, or alike uvicorn-threadpool"
    assert other[0].verdict == "2 workers on 2 CPUs; uvicorn-threadpool, or alike uvicorn-process"
    found = agreement({"health-code": one}, {"health-code": other})
    assert (found.same, found.differ) == ((f"health-code: {WORKERS}",), ())
    assert Ours.of([(None, one[0]), (None, other[0])]).agreed == one[0]


def test_a_winner_against_the_opposite_winner_is_counted_opposite(project_root: Path) -> None:
    family = _family(project_root)
    stream = _by_family(family, _files(STREAM_WINS))
    buffer = _by_family(family, _files(BUFFER_WINS))
    even = _by_family(family, _files(EVEN))
    found = agreement(stream, buffer)
    assert found.differ == ((f"files: {STREAM_BUFFER}", "stream", "buffer (UploadFile)", True),)
    assert found.opposite == 1
    assert found.summary("Two runs") == (
        "Two runs give the same answer to 0 of the 1 questions both answer (0%); 1 differ, "
        "one of them opposite (one option against the other, or yes against no)."
    )
    # A winner against no difference differs, but is not opposite.
    found = agreement(stream, even)
    assert [opposed for *_, opposed in found.differ] == [False]
    assert found.summary("Two runs").endswith(
        "1 differ, none opposite (one option against the other, or yes against no)."
    )
    assert agreement(stream, _by_family(family, _files(STREAM_WINS[::-1]))).same == (
        f"files: {STREAM_BUFFER}",
    )


def test_yes_against_no_is_opposite_and_depends_against_a_winner_is_not() -> None:
    yes = Answer("q", "yes: +3% at most", "", kind="yes")
    no = Answer("q", "no: +25% on hello-uvicorn, 1 worker", "", kind="no")
    winner = Answer("q", "stream", "", kind="winner", names=frozenset({"stream"}))
    split = Answer(
        "q",
        "depends on where: ...",
        "",
        kind="depends on where",
        names=frozenset({"stream", "buffer"}),
    )
    assert yes.opposes(no) and no.opposes(yes)
    assert not winner.opposes(split)
    assert not yes.opposes(yes)


def test_a_question_either_run_cannot_answer_is_not_counted(project_root: Path) -> None:
    family = _family(project_root)
    found = agreement(_by_family(family, _files(STREAM_WINS)), _by_family(family, _files(None)))
    assert (found.same, found.differ) == ((), ())
    assert found.summary("Two runs") == "Two runs share no question both can answer."


def test_a_second_quick_run_gives_the_repeatability_line(project_root: Path) -> None:
    family = _family(project_root, _files(STREAM_WINS), again=_files(BUFFER_WINS))
    text = _render(family)
    assert (
        "Two quick runs of each of 1 family (files), the second right after the first on the same "
        f"machine ({QUICK}), give the same answer to 0 of the 1 questions both answer (0%); 1 "
        "differ, one of them opposite"
    ) in text
    assert "Where they differ (the first quick run, then the second):" in text
    assert f"- files: {STREAM_BUFFER} (opposite): stream / buffer (UploadFile)" in text
    # The second run answers no question on the page itself.
    assert "- **Ours:** stream (quick run)." in text
    assert "[files](files.md)." in text and "files.again" not in text
    alike = _render(_family(project_root, _files(STREAM_WINS), again=_files(STREAM_WINS)))
    assert "give the same answer to 1 of the 1 questions both answer (100%); 0 differ" in alike
    alone = _render(_family(project_root, _files(STREAM_WINS)))
    assert "Only one run per family here: nothing to compare." in alone


def test_a_run_apart_gets_its_own_page_and_its_agreement_with_the_reference(
    project: Project, tmp_path: Path
) -> None:
    for name in ("hello.json", "wait.json"):
        shutil.copy(project.reference / name, tmp_path / name)
    page = write_findings(project, tmp_path)
    assert page == tmp_path / "findings.md"
    assert "[hello](hello.md)" in page.read_text()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "servelab.cli",
            "findings",
            "--results",
            str(tmp_path),
            "--against",
            str(project.reference),
        ],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    )
    # The same runs as the reference's: every question both answer, answered alike.
    found = re.search(r"give the same answer to (\d+) of the (\d+) questions", done.stdout)
    assert found is not None and found[1] == found[2] != "0", done.stdout
