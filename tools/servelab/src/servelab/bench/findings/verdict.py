"""A question answered from one or more runs of its family, only as far as the figures'
spread allows: an option wins where every value's range lies on its side of 1; where the
ranges hold 1 there is no measurable difference; where values disagree in direction the
answer depends on where, and says how it splits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from servelab.bench.device.report import gpu_or_cpu
from servelab.bench.device.results import DeviceRun
from servelab.bench.findings.evidence import (
    Estimate,
    LeftOut,
    across_runs,
    cells_across_runs,
    workers,
)
from servelab.bench.findings.spread import geometric
from servelab.bench.measure.summary import CPU_US, MEMORY_MIB
from servelab.bench.plan.matrix import Matrix
from servelab.bench.report.results import BenchRun
from servelab.project import Noise, Project
from servelab.spec.matrix import Ratio
from servelab.spec.questions import (
    Cheapest,
    Choice,
    OnDevice,
    Question,
    Within,
    Workers,
    load_questions,
    reads,
)

NO_DIFFERENCE = "no measurable difference"
DEPENDS = "depends on where"
CANNOT = "cannot answer here"

_WHAT = {CPU_US: "server CPU per request", MEMORY_MIB: "server memory"}


@dataclass(frozen=True)
class Answer:
    question: str
    # The answer itself: an option, NO_DIFFERENCE, DEPENDS or CANNOT, with a few words.
    verdict: str
    # The figures behind it, each value with its range.
    figures: str
    # How many runs and rounds the ranges are over.
    sure: str = ""
    left_out: tuple[LeftOut, ...] = ()

    @property
    def gist(self) -> str:
        """The verdict up to its first colon or semicolon: the option, the number of
        workers, NO_DIFFERENCE or DEPENDS, without the figures that follow."""
        return self.verdict.split(":")[0].split(";")[0]


def _where(estimate: Estimate) -> str:
    return f"{estimate.value.where}, {workers(estimate.value.workers)}"


def _listed(found: Sequence[Estimate]) -> str:
    return "; ".join(f"{_where(e)}: {e.spread.shown()}" for e in found)


def _sure(runs: Sequence[BenchRun], counts: Sequence[int], noise: Noise) -> str:
    forms = " and ".join(f"{run.form} ({run.started[:10]})" for run in runs)
    most = max(counts, default=1)
    if most <= len(runs):
        spread = f"±{noise.once:.0%} either side of a single measurement per run"
    else:
        spread = f"min–max over up to {most} rounds"
    return f"{len(runs)} run{'s' if len(runs) != 1 else ''}: {forms}; ranges: {spread}"


def _ratio(matrix: Matrix, name: str) -> Ratio | None:
    return next((spec for spec in matrix.ratios if spec.name == name), None)


def _estimates(
    matrix: Matrix, name: str, runs: Sequence[BenchRun], noise: Noise
) -> tuple[Ratio, list[Estimate], tuple[LeftOut, ...]] | None:
    """The ratio's estimates over `runs`, where the matrix has it and a run gives values."""
    spec = _ratio(matrix, name)
    if spec is None:
        return None
    found, left = across_runs(spec, runs, [v.name for v in matrix.variants], noise)
    return (spec, found, left) if found else None


def _choice(rule: Choice, runs: Sequence[BenchRun], matrix: Matrix, noise: Noise) -> Answer | None:
    for name in rule.ratios:
        if (estimated := _estimates(matrix, name, runs, noise)) is None:
            continue
        spec, found, left = estimated
        sign = -1 if spec.lower_is_better else 1
        first = [e for e in found if e.spread.side() == sign]
        second = [e for e in found if e.spread.side() == -sign]
        even = [e for e in found if e.spread.side() == 0]
        what = _WHAT.get(spec.metric, "successful requests/s")
        sure = _sure(runs, [e.spread.count for e in found], noise)

        if first and second:
            verdict = (
                f"{DEPENDS}: {rule.first} on {', '.join(map(_where, first))}; "
                f"{rule.second} on {', '.join(map(_where, second))}"
            )
            return Answer(rule.question, verdict, f"{name}: {_listed(found)}", sure, left)
        winners = first or second
        overall = geometric([e.spread for e in winners or found])
        figures = (
            f"{rule.first} {overall.shown()} the {what} of {rule.second} "
            f"({_listed(winners or found)})"
        )
        if not winners:
            return Answer(rule.question, NO_DIFFERENCE, figures, sure, left)
        if even:
            figures += f"; {NO_DIFFERENCE} on {_listed(even)}"
        winner = rule.first if first else rule.second
        return Answer(rule.question, winner, figures, sure, left)
    return None


def _cheapest(
    rule: Cheapest, runs: Sequence[BenchRun], matrix: Matrix, noise: Noise
) -> Answer | None:
    spec = _ratio(matrix, rule.ratio)
    if spec is None:
        return None
    costs, left = cells_across_runs(runs, CPU_US, rule.endpoint, spec.numerator.variants, noise)
    if not costs:
        return None
    ranked = sorted(costs.items(), key=lambda item: item[1].value)
    best = ranked[0][1]
    tied = [where for where, spread in ranked if spread.overlaps(best)]
    listed = "; ".join(
        f"{variant}, {workers(count)}: {spread.shown(0, ' µs')}"
        for (variant, count), spread in ranked
    )
    figures = f"server CPU per request at {rule.endpoint}, least first: {listed}"
    sure = _sure(runs, [spread.count for spread in costs.values()], noise)
    if len(tied) > 1:
        names = ", ".join(dict.fromkeys(variant for variant, _ in tied))
        return Answer(rule.question, f"{NO_DIFFERENCE} between {names}", figures, sure, left)
    return Answer(rule.question, ranked[0][0][0], figures, sure, left)


def _enough(rule: Workers, runs: Sequence[BenchRun], noise: Noise) -> Answer | None:
    rates, left = cells_across_runs(runs, "ok_rps", rule.endpoint, rule.variants, noise)
    if not rates:
        return None
    (variant, _), top = max(rates.items(), key=lambda item: item[1].value)
    curve = sorted((w, spread) for (v, w), spread in rates.items() if v == variant)
    rivals = sorted({v for (v, _), rate in rates.items() if v != variant and rate.overlaps(top)})
    shown = "; ".join(f"{workers(w)}: {spread.shown(1, '/s')}" for w, spread in curve)
    figures = f"successful requests/s of {variant} at {rule.endpoint}: {shown}"
    if rivals:
        figures += f"; {NO_DIFFERENCE} from {', '.join(rivals)} at their best"
    sure = _sure(runs, [spread.count for spread in rates.values()], noise)
    if len(curve) == 1:
        verdict = (
            f"{CANNOT}: only {workers(curve[0][0])} measured; run `servelab bench "
            f"{runs[0].family} --workers 1,2,4,8` on a machine with 8 or more CPUs"
        )
        return Answer(rule.question, verdict, figures, sure, left)
    enough = next(w for w, spread in curve if spread.overlaps(top) or spread.low > top.low)
    name = variant if not rivals else f"{variant}, or alike {', '.join(rivals)}"
    cpus = max(run.machine.cpus for run in runs)
    return Answer(rule.question, f"{workers(enough)} on {cpus} CPUs; {name}", figures, sure, left)


def _within(rule: Within, runs: Sequence[BenchRun], matrix: Matrix, noise: Noise) -> Answer | None:
    if (estimated := _estimates(matrix, rule.ratio, runs, noise)) is None:
        return None
    _, found, left = estimated
    worst = max(found, key=lambda e: e.spread.value)
    figures = f"{rule.ratio}, the limit {rule.maximum:.2f}×: {_listed(found)}"
    sure = _sure(runs, [e.spread.count for e in found], noise)
    over = [e for e in found if e.spread.side(rule.maximum) > 0]
    if over:
        most = max(over, key=lambda e: e.spread.value)
        verdict = f"no: {most.spread.value - 1:+.0%} on {_where(most)}"
    elif all(e.spread.side(rule.maximum) < 0 for e in found):
        verdict = f"yes: {worst.spread.value - 1:+.0%} at most"
    else:
        excess = f"{worst.spread.value - 1:+.0%} on {_where(worst)}"
        verdict = f"{NO_DIFFERENCE} from the limit: {excess}"
    return Answer(rule.question, verdict, figures, sure, left)


def _on_device(rule: OnDevice, device: DeviceRun, noise: Noise) -> Answer | None:
    """The GPU against the CPU under each load of the GPU machine's run."""
    compared = [each for each in gpu_or_cpu(device, noise) if each.gpu and each.cpu]
    if not compared:
        return None
    gists = {each.gist for each in compared}
    if len(gists) == 1:
        per_load = "; ".join(f"{each.clients} clients ({each.how_much})" for each in compared)
        verdict = f"{gists.pop()}: {per_load}"
    else:
        per_load = "; ".join(
            f"{each.gist} at {each.clients} clients ({each.how_much})" for each in compared
        )
        verdict = f"{DEPENDS}: {per_load}"
    figures = "; ".join(f"{each.clients} clients: {each.figures}" for each in compared)
    gpus = ", ".join(f"{gpu['name']} (driver {gpu['driver']})" for gpu in device.gpus)
    figures += f"; {gpus}, {device.machine['cpus']} CPUs"
    ran = sum(stack.ran for stack in device.stacks)
    sure = (
        f"1 run on the GPU machine ({device.started[:10]}), {ran} of its "
        f"{len(device.stacks)} stacks measured; a ratio of two single measurements is called "
        f"only beyond ±{noise.ratio:.0%}"
    )
    return Answer(rule.question, verdict, figures, sure)


def _needs(rule: Question) -> str:
    if isinstance(rule, OnDevice):
        return rule.needs
    if isinstance(rule, Workers):
        return f"needs {rule.endpoint} measured"
    return f"needs both sides of {' or '.join(reads(rule))}"


def answer(
    rule: Question,
    runs: Sequence[BenchRun],
    matrix: Matrix,
    noise: Noise,
    device: DeviceRun | None = None,
) -> Answer:
    """The question answered from `runs` (one family's) and, for a GPU question, the
    family's run on a GPU machine, a value measured once given `noise`; else CANNOT with
    what it needs."""
    found: Answer | None = None
    if isinstance(rule, OnDevice):
        found = _on_device(rule, device, noise) if device is not None else None
    elif runs and isinstance(rule, Choice):
        found = _choice(rule, runs, matrix, noise)
    elif runs and isinstance(rule, Cheapest):
        found = _cheapest(rule, runs, matrix, noise)
    elif runs and isinstance(rule, Workers):
        found = _enough(rule, runs, noise)
    elif runs and isinstance(rule, Within):
        found = _within(rule, runs, matrix, noise)
    if found is not None:
        return found
    forms = " and ".join(run.form for run in runs) or "no"
    needs = _needs(rule)
    if runs and not isinstance(rule, OnDevice) and all(run.form == "quick" for run in runs):
        needs += f"; the full form runs more cells: `servelab bench {runs[0].family} --full`"
    return Answer(rule.question, f"{CANNOT}: {needs}", f"not in the {forms} run")


def answer_run(project: Project, run: BenchRun, matrix: Matrix) -> list[Answer]:
    """Each of the family's questions (the project's spec) answered from `run` alone."""
    questions = load_questions(project, matrix.family)
    return [answer(rule, [run], matrix, project.noise) for rule in questions]
