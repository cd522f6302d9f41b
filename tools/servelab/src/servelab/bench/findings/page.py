"""docs/findings.md: every write-up question, our answer from every saved run of its
family with how sure it is, the write-up's own answer, and the evidence; and whether two
folders' runs answer alike. A folder's runs of a family are the quick run `<family>.json`,
the full run `<family>.full.json` and the run on a machine with a GPU `<family>.gpu.json`,
where they exist."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.device.results import DeviceRun, load_device_run
from servelab.bench.findings.evidence import MIN_REQUESTS, LeftOut
from servelab.bench.findings.verdict import CANNOT, Answer, answer
from servelab.bench.plan.matrix import Matrix, load_matrix
from servelab.bench.report.ratios import BUSY, OUTPACED
from servelab.bench.report.results import BenchRun, load_run
from servelab.bench.report.writeup import load_write_up
from servelab.markdown import table
from servelab.project import Noise, Project
from servelab.spec.family import families as all_families
from servelab.spec.questions import Question, load_questions

# The write-ups in the order they were published here (000 to 004), then our own.
ORDER = ("health-code", "files", "wait", "entryeditor", "hello", "replicas", "observability")


@dataclass(frozen=True)
class Family:
    matrix: Matrix
    citation: str
    questions: Sequence[Question]
    # The quick and the full runs, where saved, each with its path.
    saved: Sequence[tuple[Path, BenchRun]]
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
        gpu = results / f"{name}.gpu.json"
        found.append(
            Family(
                matrix,
                load_write_up(project.root / matrix.write_up).citation,
                load_questions(project, name),
                [(path, load_run(path)) for path in paths if path.is_file()],
                project.noise,
                (gpu, load_device_run(gpu)) if gpu.is_file() else None,
            )
        )
    return found


def answers(family: Family, forms: slice = slice(None)) -> list[Answer]:
    """The family's questions answered from its saved runs (`forms` of them), and, when
    from all of them, the GPU's questions from its GPU machine run."""
    runs = [run for _, run in family.saved[forms]]
    device = family.device[1] if family.device and forms == slice(None) else None
    return [answer(rule, runs, family.matrix, family.noise, device) for rule in family.questions]


@dataclass(frozen=True)
class Agreement:
    same: tuple[str, ...]
    # (family: question, our verdict, theirs)
    differ: tuple[tuple[str, str, str], ...]

    def summary(self, subject: str) -> str:
        """`subject` ("The quick and the full runs") give the same answer to ..."""
        compared = len(self.same) + len(self.differ)
        if not compared:
            return f"{subject} share no question both can answer."
        return (
            f"{subject} give the same answer to {len(self.same)} of the {compared} "
            f"questions both answer ({len(self.same) / compared:.0%})."
        )


def agreement(
    first: Mapping[str, Sequence[Answer]], second: Mapping[str, Sequence[Answer]]
) -> Agreement:
    """Each family's answers in `first` against the same family's in `second`: alike where
    their gists are; a question either side cannot answer is not counted."""
    same: list[str] = []
    differ: list[tuple[str, str, str]] = []
    for family, found in first.items():
        theirs = {each.question: each for each in second.get(family, ())}
        for ours in found:
            other = theirs.get(ours.question)
            if other is None or CANNOT in (ours.gist, other.gist):
                continue
            asked = f"{family}: {ours.question}"
            if ours.gist == other.gist:
                same.append(asked)
            else:
                differ.append((asked, ours.verdict, other.verdict))
    return Agreement(tuple(same), tuple(differ))


def _link(path: Path, page: Path) -> str:
    target = os.path.relpath(path.with_suffix(".md"), page.parent)
    return f"[{path.stem.replace('.', ' ')}]({target})"


def _same(rule: Question, found: Answer) -> str:
    if found.verdict.startswith(CANNOT):
        return "open"
    if rule.agrees is None:
        return "not comparable"
    return "same" if found.verdict.startswith(rule.agrees) else "differs"


def _machine(family: Family) -> str:
    machines = dict.fromkeys(
        f"{run.machine.cpus} CPUs, {run.machine.cpu_model}" for _, run in family.saved
    )
    if family.device:
        run = family.device[1]
        gpus = ", ".join(gpu["name"] for gpu in run.gpus) or "no GPU"
        machines[f"{gpus} with {run.machine['cpus']} CPUs (the GPU's questions)"] = None
    return "; ".join(machines) or "no run"


def _glance(families: Sequence[Family], found: Mapping[str, Sequence[Answer]]) -> list[str]:
    rows = [
        (family.name, rule.question, each.verdict, rule.write_up or "—", _same(rule, each))
        for family in families
        for rule, each in zip(family.questions, found[family.name], strict=True)
    ]
    return table(("write-up", "question", "our answer", "the write-up's", "same?"), rows)


def _left_out(cells: Sequence[LeftOut]) -> str:
    """The cells left out, grouped by why."""
    by_why: dict[str, list[str]] = {}
    for out in cells:
        by_why.setdefault(out.why, []).append(out.cell)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by_why.items())


def _section(family: Family, found: Sequence[Answer], page: Path) -> list[str]:
    paths = [path for path, _ in family.saved] + ([family.device[0]] if family.device else [])
    evidence = ", ".join(_link(path, page) for path in paths) or "no saved run"
    lines = [
        f"## {family.matrix.title}",
        "",
        f"The write-up: {family.citation}. Measured on {_machine(family)}. Evidence: {evidence}.",
        "",
    ]
    for rule, each in zip(family.questions, found, strict=True):
        lines += [f"### {rule.question}", "", f"- **Ours:** {each.verdict}."]
        if each.figures and not each.verdict.startswith(CANNOT):
            lines.append(f"- **Figures:** {each.figures}.")
        if each.sure:
            lines.append(f"- **How sure:** {each.sure}.")
        if each.left_out:
            lines.append(f"- **Left out:** {_left_out(each.left_out)}.")
        if rule.write_up:
            lines.append(f"- **The write-up:** {rule.write_up} ({_same(rule, each)}).")
        if rule.why:
            lines.append(f"- **Why:** {rule.why}")
        if rule.bigger:
            lines.append(f"- **On a bigger machine:** {rule.bigger}")
        lines.append("")
    return lines


def _repeatability(families: Sequence[Family]) -> list[str]:
    lines = ["## Repeatability", ""]
    twice = [family for family in families if len(family.saved) > 1]
    if not twice:
        return [*lines, "Only one run per family here: nothing to compare.", ""]
    result = agreement(
        {family.name: answers(family, slice(1)) for family in twice},
        {family.name: answers(family, slice(1, None)) for family in twice},
    )
    lines += [
        result.summary(
            "The quick and the full runs, measured apart on machines of the same size and "
            "each answering alone,"
        ),
        "",
    ]
    if result.differ:
        lines += ["Where they differ (quick, then full):", ""]
        lines += [f"- {asked}: {one} / {two}" for asked, one, two in result.differ]
        lines.append("")
    return lines


def render(families: Sequence[Family], page: Path, command: str, noise: Noise) -> str:
    found = {family.name: answers(family) for family in families}
    lines = [
        "# Findings",
        "",
        "What the benchmarks answer to each question of the five write-ups (and two of our "
        f"own), from the saved runs beside this page's reports. Written by `{command}`.",
        "",
        "How to read it. Every figure is measured within one run: a ratio of two cells, or "
        "server CPU per request, never requests/s from two machines. Each comes with its "
        "range: the lowest and highest value over the rounds of a cell and over the runs "
        f"(min–max; a value measured once is given ±{noise.once:.0%}, what repeat runs move "
        f"by here, and a ratio of two such values ±{noise.ratio:.0%}). An option wins only "
        "where every range lies on its side; where a range holds "
        "1 the answer is *no measurable difference*, and where cells disagree it *depends "
        f"on where*, with the split. Cells with fewer than {MIN_REQUESTS} requests are left "
        "out, and so are the requests/s of cells where the load generator set the pace (k6 "
        f"at {BUSY:.0%} or more of its CPUs, or wrk, ab or hey at least {OUTPACED}× its "
        "requests/s on the same cell); their CPU per request still counts. A question a run "
        "here cannot answer says what to run instead.",
        "",
        "## At a glance",
        "",
        *_glance(families, found),
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
    """Each question answered from `ours` against the same from `reference`."""
    mine = {f.name: answers(f) for f in load_families(project, ours) if f.saved}
    theirs = {f.name: answers(f) for f in load_families(project, reference)}
    return agreement(mine, theirs)
