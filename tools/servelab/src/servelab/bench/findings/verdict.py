"""A question answered from one run of its family, only as far as that run's own intervals
allow (bench.findings.spread): an option wins where every cell it cites lies on its side of
1; where every interval holds 1 there is no measurable difference; otherwise the answer
depends on where, and says how it splits. Runs are never pooled: each answers alone, and the
findings page sets their answers side by side."""

from __future__ import annotations

from collections.abc import Sequence

from servelab.bench.device.report import gpu_or_cpu
from servelab.bench.device.results import DeviceRun
from servelab.bench.findings.answer import (
    CANNOT,
    DEPENDS,
    NO,
    NO_DIFFERENCE,
    WINNER,
    YES,
    Answer,
)
from servelab.bench.findings.evidence import Estimate, cells, estimates, where, workers
from servelab.bench.findings.observed import holds, latency, under, unfailed
from servelab.bench.findings.spread import summary
from servelab.bench.measure.summary import CPU_US, MEMORY_MIB
from servelab.bench.plan.matrix import Matrix
from servelab.bench.report.ratios import RatioValue
from servelab.bench.report.results import BenchRun
from servelab.project import Noise, Project
from servelab.spec.matrix import Ratio
from servelab.spec.questions import (
    Cheapest,
    Choice,
    Holds,
    Latency,
    OnDevice,
    Question,
    Under,
    Unfailed,
    Unmeasured,
    Within,
    Workers,
    load_questions,
    reads,
)

_WHAT = {CPU_US: "server CPU per request", MEMORY_MIB: "server memory"}


def _listed(found: Sequence[Estimate]) -> str:
    return "; ".join(f"{e.where}: {e.spread.shown()}" for e in found)


def _once(values: Sequence[RatioValue]) -> str:
    return "; ".join(f"{where(v)}: {v.value:.2f}×" for v in values)


def _named(cited: Sequence[Estimate], of: int) -> str:
    """The cells an option carries: named where few, else counted (the figures list them)."""
    if len(cited) <= 3:
        return ", ".join(e.where for e in cited)
    return f"{len(cited)} of the {of} cells"


def _sure(run: BenchRun, counts: Sequence[int]) -> str:
    low, high = min(counts), max(counts)
    rounds = f"{low} rounds" if low == high else f"{low} to {high} rounds"
    return f"95% intervals over {rounds} of the {run.form} run"


def _ratio(matrix: Matrix, name: str) -> Ratio | None:
    return next((spec for spec in matrix.ratios if spec.name == name), None)


def _once_verdict(run: BenchRun) -> str:
    return (
        f"{CANNOT}: each cell measured once in the {run.form} run, so no interval to judge "
        f"by; run `servelab bench {run.family} --quick`, which measures in rounds"
    )


def _measured_once(question: str, once: Sequence[RatioValue], run: BenchRun) -> Answer:
    return Answer(question, _once_verdict(run), f"measured once: {_once(once)}")


def _cells_once(question: str, run: BenchRun) -> Answer:
    return Answer(question, _once_verdict(run), "")


def _choice(rule: Choice, run: BenchRun, matrix: Matrix) -> Answer | None:
    once: Sequence[RatioValue] = ()
    for name in rule.ratios:
        spec = _ratio(matrix, name)
        if spec is None:
            continue
        found = estimates(spec, run, [v.name for v in matrix.variants])
        if not found.estimates:
            once = once or found.once
            continue
        sign = -1 if spec.lower_is_better else 1
        all_ = found.estimates
        first = [e for e in all_ if e.spread.side() == sign]
        second = [e for e in all_ if e.spread.side() == -sign]
        even = [e for e in all_ if e.spread.side() == 0]
        what = _WHAT.get(spec.metric, "successful requests/s")
        sure = _sure(run, [e.spread.count for e in all_])
        overall = summary([e.spread for e in all_])
        figures = f"{rule.first} {overall.shown()} the {what} of {rule.second} ({_listed(all_)})"
        if len(all_) > 1:
            figures = f"over {len(all_)} cells, {figures}"
        splits = [
            f"{option} on {_named(cited, len(all_))}"
            for option, cited in ((rule.first, first), (rule.second, second), (NO_DIFFERENCE, even))
            if cited
        ]
        if len(splits) > 1:
            names = frozenset(o for o, c in ((rule.first, first), (rule.second, second)) if c)
            verdict = f"{DEPENDS}: {'; '.join(splits)}"
            return Answer(rule.question, verdict, figures, sure, found.left, DEPENDS, names)
        if even:
            return Answer(rule.question, NO_DIFFERENCE, figures, sure, found.left, NO_DIFFERENCE)
        winner = rule.first if first else rule.second
        return Answer(rule.question, winner, figures, sure, found.left, WINNER, frozenset({winner}))
    return _measured_once(rule.question, once, run) if once else None


def _cheapest(rule: Cheapest, run: BenchRun, matrix: Matrix) -> Answer | None:
    spec = _ratio(matrix, rule.ratio)
    if spec is None:
        return None
    costs = cells(run, CPU_US, rule.endpoint, spec.numerator.variants)
    spreads = {cell: s for cell in costs.rounds if (s := costs.spread(cell)) is not None}
    if not spreads:
        return _cells_once(rule.question, run) if costs.rounds else None
    ranked = sorted(spreads.items(), key=lambda item: item[1].value)
    best = ranked[0][0]
    tied = [best] + [
        cell
        for cell, _ in ranked[1:]
        if (against := costs.against(cell, best)) is None or against.side() <= 0
    ]
    listed = "; ".join(
        f"{variant}, {workers(count)}: {spread.shown(0, ' µs')}"
        for (variant, count), spread in ranked
    )
    figures = f"server CPU per request at {rule.endpoint}, least first: {listed}"
    sure = _sure(run, [spread.count for spread in spreads.values()])
    names = frozenset(variant for variant, _ in tied)
    if len(names) > 1:
        verdict = f"{NO_DIFFERENCE} between {', '.join(sorted(names))}"
        return Answer(rule.question, verdict, figures, sure, costs.left, NO_DIFFERENCE, names)
    return Answer(rule.question, best[0], figures, sure, costs.left, WINNER, names)


def _enough(rule: Workers, run: BenchRun) -> Answer | None:
    rates = cells(run, "ok_rps", rule.endpoint, rule.variants)
    counts = sorted({w for _, w in rates.rounds})
    if len(counts) == 1:
        verdict = (
            f"{CANNOT}: only {workers(counts[0])} measured; run `servelab bench "
            f"{run.family} --workers 1,2,4,8` on a machine with 8 or more CPUs"
        )
        return Answer(rule.question, verdict, "", left_out=rates.left)
    spreads = {cell: s for cell in rates.rounds if (s := rates.spread(cell)) is not None}
    if not spreads:
        return _cells_once(rule.question, run) if rates.rounds else None
    top = max(spreads, key=lambda cell: spreads[cell].value)
    variant = top[0]

    def as_good(cell: tuple[str, int]) -> bool:
        against = rates.against(cell, top)
        return cell == top or against is None or against.side() >= 0

    curve = sorted((w, s) for (v, w), s in spreads.items() if v == variant)
    rivals = sorted({v for (v, w) in spreads if v != variant and as_good((v, w))})
    shown = "; ".join(f"{workers(w)}: {spread.shown(1, '/s')}" for w, spread in curve)
    figures = f"successful requests/s of {variant} at {rule.endpoint}: {shown}"
    if rivals:
        figures += f"; {NO_DIFFERENCE} from {', '.join(rivals)} at their best"
    sure = _sure(run, [spread.count for spread in spreads.values()])
    if len(curve) == 1:
        return _cells_once(rule.question, run)
    enough = next(w for w, _ in curve if as_good((variant, w)))
    name = variant if not rivals else f"{variant}, or alike {', '.join(rivals)}"
    verdict = f"{workers(enough)} on {run.machine.cpus} CPUs; {name}"
    kind = f"{workers(enough)} on {run.machine.cpus} CPUs"
    return Answer(
        rule.question, verdict, figures, sure, rates.left, kind, frozenset({variant, *rivals})
    )


def _within(rule: Within, run: BenchRun, matrix: Matrix) -> Answer | None:
    spec = _ratio(matrix, rule.ratio)
    if spec is None:
        return None
    found = estimates(spec, run, [v.name for v in matrix.variants])
    if not found.estimates:
        return _measured_once(rule.question, found.once, run) if found.once else None
    all_ = found.estimates
    worst = max(all_, key=lambda e: e.spread.value)
    figures = f"{rule.ratio}, the limit {rule.maximum:.2f}×: {_listed(all_)}"
    sure = _sure(run, [e.spread.count for e in all_])
    over = [e for e in all_ if e.spread.side(rule.maximum) > 0]
    if over:
        most = max(over, key=lambda e: e.spread.value)
        verdict = f"no: {most.spread.value - 1:+.0%} on {most.where}"
        return Answer(rule.question, verdict, figures, sure, found.left, NO)
    if all(e.spread.side(rule.maximum) < 0 for e in all_):
        verdict = f"yes: {worst.spread.value - 1:+.0%} at most"
        return Answer(rule.question, verdict, figures, sure, found.left, YES)
    verdict = f"{NO_DIFFERENCE} from the limit: {worst.spread.value - 1:+.0%} on {worst.where}"
    return Answer(rule.question, verdict, figures, sure, found.left, NO_DIFFERENCE)


def _on_device(rule: OnDevice, device: DeviceRun, noise: Noise) -> Answer | None:
    """The GPU against the CPU under each load of the GPU machine's run: figures only, as
    that run measures each stack once."""
    compared = [each for each in gpu_or_cpu(device, noise) if each.gpu and each.cpu]
    if not compared:
        return None
    ratios = "; ".join(
        f"the GPU {each.gpu.rps / each.cpu.rps:.2f}× the CPU's requests/s at {each.clients} clients"
        for each in compared
        if each.gpu and each.cpu
    )
    gpus = ", ".join(f"{gpu['name']} (driver {gpu['driver']})" for gpu in device.gpus)
    verdict = (
        f"{CANNOT}: the GPU machine's run measured each stack once, so no interval to judge "
        f"by ({ratios}); a verdict needs each stack measured more than once: run "
        "`scripts/device/run.sh` with repeated loads (it measures each stack once)"
    )
    figures = "; ".join(f"{each.clients} clients: {each.figures}" for each in compared)
    figures += f"; {gpus}, {device.machine['cpus']} CPUs"
    return Answer(
        rule.question, verdict, figures, f"1 run on the GPU machine ({device.started[:10]})"
    )


def _needs(rule: Question) -> str:
    if isinstance(rule, OnDevice):
        return rule.needs
    if isinstance(rule, (Workers, Holds, Latency, Unfailed, Under)):
        return "needs its cells measured"
    return f"needs both sides of {' or '.join(reads(rule))}"


def answer(
    rule: Question,
    run: BenchRun | None,
    matrix: Matrix,
    noise: Noise,
    device: DeviceRun | None = None,
) -> Answer:
    """The question answered from `run` (one of the family's) alone or, for a GPU question,
    from the family's run on a GPU machine; else CANNOT with what it needs."""
    found: Answer | None = None
    if isinstance(rule, Unmeasured):
        return Answer(rule.question, f"{CANNOT}: {rule.needs}", "not measured")
    if isinstance(rule, OnDevice):
        found = _on_device(rule, device, noise) if device is not None else None
    elif run is not None:
        if isinstance(rule, Choice):
            found = _choice(rule, run, matrix)
        elif isinstance(rule, Cheapest):
            found = _cheapest(rule, run, matrix)
        elif isinstance(rule, Workers):
            found = _enough(rule, run)
        elif isinstance(rule, Within):
            found = _within(rule, run, matrix)
        elif isinstance(rule, Holds):
            found = holds(rule, run)
        elif isinstance(rule, Latency):
            found = latency(rule, run)
        elif isinstance(rule, Unfailed):
            found = unfailed(rule, run)
        elif isinstance(rule, Under):
            found = under(rule, run)
    if found is not None:
        return found
    needs = _needs(rule)
    if run is not None and run.form == "quick" and not isinstance(rule, OnDevice):
        needs += f"; the full form runs more cells: run `servelab bench {run.family} --full`"
    where_ = f"not in the {run.form} run" if run is not None else "no run"
    return Answer(rule.question, f"{CANNOT}: {needs}", where_)


def answer_run(project: Project, run: BenchRun, matrix: Matrix) -> list[Answer]:
    """Each of the family's questions (the project's spec) answered from `run` alone."""
    questions = load_questions(project, matrix.family)
    return [answer(rule, run, matrix, project.noise) for rule in questions]
