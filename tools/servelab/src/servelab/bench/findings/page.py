"""docs/findings.md: every write-up question, our answer from every committed run of its
family with how sure it is, the write-up's own answer, and the evidence."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.findings.agreement import Agreement, agreement
from servelab.bench.findings.catalogue import QUESTIONS
from servelab.bench.findings.evidence import MIN_REQUESTS, LeftOut
from servelab.bench.findings.rules import Question
from servelab.bench.findings.sources import Saved, SavedDevice
from servelab.bench.findings.spread import NOISE, RATIO_NOISE
from servelab.bench.findings.verdict import CANNOT, Answer, answer
from servelab.bench.plan.matrix import Matrix
from servelab.bench.report.client_bound import BUSY, OUTPACED


@dataclass(frozen=True)
class Family:
    matrix: Matrix
    citation: str
    saved: Sequence[Saved]
    device: SavedDevice | None = None


def answers(family: Family, forms: Sequence[Saved] | None = None) -> list[Answer]:
    """The family's questions answered from `forms`, or from every saved run and, for the
    GPU's questions, the family's GPU machine run."""
    runs = [saved.run for saved in (family.saved if forms is None else forms)]
    device = family.device.run if family.device and forms is None else None
    return [
        answer(rule, runs, family.matrix, device)
        for rule in QUESTIONS.get(family.matrix.family, ())
    ]


def _link(path: Path, page: Path) -> str:
    target = os.path.relpath(path.with_suffix(".md"), page.parent)
    return f"[{path.stem.replace('.', ' ')}]({target})"


def _same(rule: Question, found: Answer) -> str:
    agrees = rule.about.agrees
    if found.verdict.startswith(CANNOT):
        return "open"
    if agrees is None:
        return "not comparable"
    return "same" if found.verdict.startswith(agrees) else "differs"


def _machine(family: Family) -> str:
    machines = dict.fromkeys(
        f"{saved.run.machine.cpus} CPUs, {saved.run.machine.cpu_model}" for saved in family.saved
    )
    if family.device:
        run = family.device.run
        gpus = ", ".join(gpu["name"] for gpu in run.gpus) or "no GPU"
        machines[f"{gpus} with {run.machine['cpus']} CPUs (the GPU's questions)"] = None
    return "; ".join(machines) or "no run"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _glance(families: Sequence[Family], found: Mapping[str, Sequence[Answer]]) -> list[str]:
    lines = [
        "| write-up | question | our answer | the write-up's | same? |",
        "|---|---|---|---|---|",
    ]
    for family in families:
        rules = QUESTIONS.get(family.matrix.family, ())
        for rule, each in zip(rules, found[family.matrix.family], strict=True):
            lines.append(
                f"| {family.matrix.family} | {_cell(rule.question)} | {_cell(each.verdict)} | "
                f"{_cell(rule.about.write_up or '—')} | {_same(rule, each)} |"
            )
    return [*lines, ""]


def _left_out(cells: Sequence[LeftOut]) -> str:
    """The cells left out, grouped by why."""
    by_why: dict[str, list[str]] = {}
    for out in cells:
        by_why.setdefault(out.why, []).append(out.cell)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by_why.items())


def _section(family: Family, found: Sequence[Answer], page: Path) -> list[str]:
    matrix = family.matrix
    paths = [saved.path for saved in family.saved]
    paths += [family.device.path] if family.device else []
    evidence = ", ".join(_link(path, page) for path in paths) or "no saved run"
    lines = [
        f"## {matrix.title}",
        "",
        f"The write-up: {family.citation}. Measured on {_machine(family)}. Evidence: {evidence}.",
        "",
    ]
    for rule, each in zip(QUESTIONS.get(matrix.family, ()), found, strict=True):
        about = rule.about
        lines += [f"### {rule.question}", "", f"- **Ours:** {each.verdict}."]
        if each.figures and not each.verdict.startswith(CANNOT):
            lines.append(f"- **Figures:** {each.figures}.")
        if each.sure:
            lines.append(f"- **How sure:** {each.sure}.")
        if each.left_out:
            lines.append(f"- **Left out:** {_left_out(each.left_out)}.")
        if about.write_up:
            lines.append(f"- **The write-up:** {about.write_up} ({_same(rule, each)}).")
        if about.why:
            lines.append(f"- **Why:** {about.why}")
        if about.bigger:
            lines.append(f"- **On a bigger machine:** {about.bigger}")
        lines.append("")
    return lines


def _repeatability(result: Agreement | None) -> list[str]:
    lines = ["## Repeatability", ""]
    if result is None:
        return [*lines, "Only one run per family here: nothing to compare.", ""]
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


def render(families: Sequence[Family], page: Path, command: str) -> str:
    found = {family.matrix.family: answers(family) for family in families}
    quick = {f.matrix.family: answers(f, f.saved[:1]) for f in families if len(f.saved) > 1}
    full = {f.matrix.family: answers(f, f.saved[1:]) for f in families if len(f.saved) > 1}
    lines = [
        "# Findings",
        "",
        "What the benchmarks answer to each question of the five write-ups (and two of our "
        f"own), from the saved runs beside this page's reports. Written by `{command}`.",
        "",
        "How to read it. Every figure is measured within one run: a ratio of two cells, or "
        "server CPU per request, never requests/s from two machines. Each comes with its "
        "range: the lowest and highest value over the rounds of a cell and over the runs "
        f"(min–max; a value measured once is given ±{NOISE:.0%}, what repeat runs move by "
        f"here, and a ratio of two such values ±{RATIO_NOISE:.0%}). An option wins only "
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
        *_repeatability(agreement(quick, full) if quick else None),
    ]
    for family in families:
        lines += _section(family, found[family.matrix.family], page)
    return "\n".join(lines).rstrip() + "\n"
