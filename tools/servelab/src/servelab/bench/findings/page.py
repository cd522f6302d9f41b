"""docs/findings.md: every write-up question, our answer from each saved run of its family
alone (never pooled: where runs on different machines answer differently, both answers
side by side with their machines), the write-up's own answer, and the evidence; and how
alike two runs answer. A folder's runs of a family are the quick run `<family>.json`, a
second quick run made right after it on the same machine `<family>.again.json` (read only
for repeatability), the full run `<family>.full.json` and the run on a machine with a GPU
`<family>.gpu.json`, where they exist."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.device.results import DeviceRun, load_device_run
from servelab.bench.findings.answer import Answer
from servelab.bench.findings.evidence import MAX_FAILED, MIN_REQUESTS, LeftOut
from servelab.bench.findings.spread import LEVEL
from servelab.bench.findings.verdict import answer
from servelab.bench.plan.matrix import Matrix, load_matrix
from servelab.bench.report.ratios import BUSY, OUTPACED
from servelab.bench.report.results import BenchRun, load_run
from servelab.bench.report.writeup import load_write_up
from servelab.markdown import table
from servelab.project import Noise, Project
from servelab.spec.family import families as all_families
from servelab.spec.questions import OnDevice, Question, load_questions

# The write-ups in the order they were published here (000 to 004), then our own.
ORDER = ("health-code", "files", "wait", "entryeditor", "hello", "replicas", "observability")


@dataclass(frozen=True)
class Family:
    matrix: Matrix
    citation: str
    questions: Sequence[Question]
    # The quick and the full runs, where saved, each with its path.
    saved: Sequence[tuple[Path, BenchRun]]
    # A second quick run made right after the first on the same machine, where saved.
    again: tuple[Path, BenchRun] | None
    # What a value measured once may have moved by (the project's).
    noise: Noise
    device: tuple[Path, DeviceRun] | None = None

    @property
    def name(self) -> str:
        return self.matrix.family


def load_families(project: Project, results: Path) -> list[Family]:
    names = all_families(project)
    ordered = [name for name in ORDER if name in names] + [n for n in names if n not in ORDER]
    found = []
    for name in ordered:
        matrix = load_matrix(project, name)
        paths = [results / f"{name}.json", results / f"{name}.full.json"]
        gpu, again = results / f"{name}.gpu.json", results / f"{name}.again.json"
        found.append(
            Family(
                matrix,
                load_write_up(project.root / matrix.write_up).citation,
                load_questions(project, name),
                [(path, load_run(path)) for path in paths if path.is_file()],
                (again, load_run(again)) if again.is_file() else None,
                project.noise,
                (gpu, load_device_run(gpu)) if gpu.is_file() else None,
            )
        )
    return found


def answers(family: Family) -> list[list[tuple[BenchRun | None, Answer]]]:
    """Each question answered from each saved run alone (the GPU's questions from the GPU
    machine's run), in the order of the questions."""
    runs: list[BenchRun | None] = [run for _, run in family.saved] or [None]
    device = family.device[1] if family.device else None
    noise, matrix = family.noise, family.matrix
    return [
        [(None, answer(rule, None, matrix, noise, device))]
        if isinstance(rule, OnDevice)
        else [(run, answer(rule, run, matrix, noise)) for run in runs]
        for rule in family.questions
    ]


def run_answers(family: Family, run: BenchRun) -> list[Answer]:
    return [answer(rule, run, family.matrix, family.noise) for rule in family.questions]


@dataclass(frozen=True)
class Agreement:
    same: tuple[str, ...]
    # (family: question, one run's verdict, the other's, whether they are opposite)
    differ: tuple[tuple[str, str, str, bool], ...]

    @property
    def opposite(self) -> int:
        return sum(1 for *_, opposed in self.differ if opposed)

    def summary(self, subject: str) -> str:
        """`subject` ("The quick and the full runs") give the same answer to ..."""
        compared = len(self.same) + len(self.differ)
        if not compared:
            return f"{subject} share no question both can answer."
        opposite = {0: "none opposite", 1: "one of them opposite"}.get(
            self.opposite, f"{self.opposite} of them opposite"
        )
        return (
            f"{subject} give the same answer to {len(self.same)} of the {compared} "
            f"questions both answer ({len(self.same) / compared:.0%}); "
            f"{len(self.differ)} differ, {opposite} (one option against the other, or yes "
            "against no)."
        )


def agreement(
    first: Mapping[str, Sequence[Answer]], second: Mapping[str, Sequence[Answer]]
) -> Agreement:
    """Each family's answers in `first` against the same family's in `second`: alike where
    they mean the same (the same kind of answer naming the same set of options); a question
    either side cannot answer is not counted."""
    same: list[str] = []
    differ: list[tuple[str, str, str, bool]] = []
    for family, found in first.items():
        theirs = {each.question: each for each in second.get(family, ())}
        for ours in found:
            other = theirs.get(ours.question)
            if other is None or not ours.answered or not other.answered:
                continue
            asked = f"{family}: {ours.question}"
            if ours.meaning == other.meaning:
                same.append(asked)
            else:
                differ.append((asked, ours.verdict, other.verdict, ours.opposes(other)))
    return Agreement(tuple(same), tuple(differ))


def _link(path: Path, page: Path) -> str:
    target = os.path.relpath(path.with_suffix(".md"), page.parent)
    return f"[{path.stem.replace('.', ' ')}]({target})"


def _run(run: BenchRun | None, on_device: bool = False) -> str:
    """`quick run (2 CPUs, AMD EPYC, 2026-11-28)`."""
    if run is None:
        return "the GPU machine's run" if on_device else "no saved run"
    return f"{run.form} run ({run.machine.cpus} CPUs, {run.machine.cpu_model}, {run.started[:10]})"


@dataclass(frozen=True)
class Ours:
    """A question's answer over the family's runs: one verdict where every run that
    answers means the same, else each run's verdict beside its machine."""

    verdict: str
    # The answer the write-up's is compared with; None where the runs differ.
    agreed: Answer | None

    @classmethod
    def of(cls, found: Sequence[tuple[BenchRun | None, Answer]]) -> Ours:
        answered = [(run, each) for run, each in found if each.answered]
        if not answered:
            return cls(found[0][1].verdict, found[0][1])
        first = answered[0][1]
        if all(each.meaning == first.meaning for _, each in answered):
            runs = [run.form for run, _ in answered if run is not None]
            alone = [run.form for run, each in found if run is not None and not each.answered]
            if len(runs) > 1:
                note = f" ({' and '.join(runs)} runs agree)"
            elif runs:
                note = (
                    f" ({runs[0]} run"
                    + (f"; the {alone[0]} run cannot answer" if alone else "")
                    + ")"
                )
            else:
                note = ""
            return cls(first.verdict + note, first)
        sides = "; ".join(f"{_run(run)}: {each.verdict}" for run, each in answered)
        return cls(f"the runs differ: {sides}", None)


def _same(rule: Question, ours: Ours) -> str:
    if ours.agreed is None:
        return "runs differ"
    if not ours.agreed.answered:
        return "open"
    if rule.agrees is None:
        return "not comparable"
    return "same" if ours.agreed.verdict.startswith(rule.agrees) else "differs"


def _glance(
    families: Sequence[Family],
    found: Mapping[str, Sequence[Sequence[tuple[BenchRun | None, Answer]]]],
) -> list[str]:
    rows = []
    for family in families:
        for rule, each in zip(family.questions, found[family.name], strict=True):
            ours = Ours.of(each)
            rows.append(
                (family.name, rule.question, ours.verdict, rule.write_up or "—", _same(rule, ours))
            )
    return table(("write-up", "question", "our answer", "the write-up's", "same?"), rows)


def _left_out(cells: Sequence[LeftOut]) -> str:
    """The cells left out, grouped by why."""
    by_why: dict[str, list[str]] = {}
    for out in cells:
        by_why.setdefault(out.why, []).append(out.cell)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by_why.items())


def _one_run(run: BenchRun | None, each: Answer, on_device: bool) -> list[str]:
    lines = [f"- **{_run(run, on_device)}:** {each.verdict}."]
    if each.figures and each.answered:
        lines.append(f"  Figures: {each.figures}.")
    if each.sure and each.answered:
        lines.append(f"  Intervals: {each.sure}.")
    if each.left_out:
        lines.append(f"  Left out: {_left_out(each.left_out)}.")
    return lines


def _section(
    family: Family, found: Sequence[Sequence[tuple[BenchRun | None, Answer]]], page: Path
) -> list[str]:
    paths = [path for path, _ in family.saved] + ([family.device[0]] if family.device else [])
    evidence = ", ".join(_link(path, page) for path in paths) or "no saved run"
    lines = [
        f"## {family.matrix.title}",
        "",
        f"The write-up: {family.citation}. Evidence: {evidence}.",
        "",
    ]
    for rule, each in zip(family.questions, found, strict=True):
        ours = Ours.of(each)
        verdict = ours.verdict if ours.agreed is not None else "the runs differ, each below"
        lines += [f"### {rule.question}", "", f"- **Ours:** {verdict}."]
        for run, one in each:
            lines += _one_run(run, one, isinstance(rule, OnDevice))
        if rule.write_up:
            lines.append(f"- **The write-up:** {rule.write_up} ({_same(rule, ours)}).")
        if rule.why:
            lines.append(f"- **Why:** {rule.why}")
        if rule.bigger:
            lines.append(f"- **On a bigger machine:** {rule.bigger}")
        lines.append("")
    return lines


def _differences(result: Agreement, order: str) -> list[str]:
    if not result.differ:
        return []
    lines = [f"Where they differ ({order}):", ""]
    for asked, one, two, opposed in result.differ:
        lines.append(f"- {asked}{' (opposite)' if opposed else ''}: {one} / {two}")
    return [*lines, ""]


def _repeatability(families: Sequence[Family]) -> list[str]:
    lines = ["## Repeatability", ""]
    twice = [family for family in families if family.again is not None and family.saved]
    if twice:
        first = {f.name: run_answers(f, f.saved[0][1]) for f in twice}
        again = {f.name: run_answers(f, f.again[1]) for f in twice if f.again}
        machines = dict.fromkeys(_run(f.again[1]) for f in twice if f.again)
        result = agreement(first, again)
        lines += [
            result.summary(
                f"Two quick runs of each of {len(twice)} "
                f"famil{'y' if len(twice) == 1 else 'ies'} ({', '.join(f.name for f in twice)}), "
                f"the second right after the first on the same machine "
                f"({'; '.join(machines)}),"
            ),
            "",
            *_differences(result, "the first quick run, then the second"),
        ]
    apart = [family for family in families if len(family.saved) > 1]
    if apart:
        result = agreement(
            {f.name: run_answers(f, f.saved[0][1]) for f in apart},
            {f.name: run_answers(f, f.saved[1][1]) for f in apart},
        )
        lines += [
            result.summary(
                "The quick and the full runs, made on different machines and days (each "
                "family's section names them)"
            ),
            "",
            *_differences(result, "quick, then full"),
        ]
    if not twice and not apart:
        lines += ["Only one run per family here: nothing to compare.", ""]
    return lines


def render(families: Sequence[Family], page: Path, command: str, noise: Noise) -> str:
    found = {family.name: answers(family) for family in families}
    lines = [
        "# Findings",
        "",
        "What the benchmarks answer to each question of the five write-ups (and two of our "
        f"own), from the saved runs beside this page's reports. Written by `{command}`.",
        "",
        "How to read it. Each run answers alone: figures from runs on different machines "
        "are never pooled, and where two runs answer differently both answers stand side by "
        "side with their machines. Every figure is measured within one run: a ratio of two "
        "cells, or server CPU per request. A run measures its cells in rounds, each round "
        "one pass over the matrix, so that the two sides of a ratio are measured seconds "
        "apart in every round; a ratio is taken round by round, and its range is the "
        f"{LEVEL:.0%} confidence interval of Student's t over the logarithms of those per-round "
        "ratios (the paired form of the t-test that pyperf's `compare_to` and hyperfine's "
        "Welch script use to say whether a difference is significant; not criterion's "
        "bootstrap, which with 3 to 8 rounds cannot reach past the values drawn and gives "
        "too narrow an interval). A cell measured in one round has no interval, and no "
        "verdict rests on it. An option wins only where every cell it cites lies wholly on "
        "its side of 1; where every interval holds 1 the answer is *no measurable "
        "difference*, and otherwise it *depends on where*, with the split. A line over "
        "several cells gives their geometric mean and the range from the lowest of their "
        "intervals to the highest. Left out, and said so: cells with fewer than "
        f"{MIN_REQUESTS} requests, the requests/s of cells where the load generator set "
        f"the pace (k6 at {BUSY:.0%} or more of its CPUs, or wrk, ab or hey at least "
        f"{OUTPACED}× its requests/s on the same cell), and the CPU per request of cells where "
        f"more than {MAX_FAILED:.0%} of the answers failed. Latency questions call an option "
        "sooner only where even its slowest request finished before half of the other's; "
        "failures are counted, not estimated. A question a run here cannot answer says what "
        "to run instead.",
        "",
        "## At a glance",
        "",
        *_glance(families, found),
        "",
        *_repeatability(families),
    ]
    for family in families:
        lines += _section(family, found[family.name], page)
    return "\n".join(lines).rstrip() + "\n"


def page_path(project: Project, results: Path) -> Path:
    """docs/findings.md for the committed reference; <results>/findings.md elsewhere."""
    if results.resolve() == project.reference.resolve():
        return project.root / "docs" / "findings.md"
    return results / "findings.md"


def write_findings(project: Project, results: Path) -> Path:
    page = page_path(project, results)
    command = "servelab findings"
    if page.parent != project.root / "docs":
        command += f" --results {results}"
    page.write_text(render(load_families(project, results), page, command, project.noise))
    return page


def compare_findings(project: Project, ours: Path, reference: Path) -> Agreement:
    """Each question answered from the quick run in `ours` against the same from the quick
    run in `reference`."""
    mine = {f.name: run_answers(f, f.saved[0][1]) for f in load_families(project, ours) if f.saved}
    theirs = {
        f.name: run_answers(f, f.saved[0][1]) for f in load_families(project, reference) if f.saved
    }
    return agreement(mine, theirs)
