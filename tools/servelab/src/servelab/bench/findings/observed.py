"""Questions answered by what the cells saw rather than by a ratio: whether requests failed,
how long they took against a limit or against another option's, and the highest rate an
endpoint holds. Each reads a cell's own window (its kept round): a count of failures is not
a sample's estimate, and latencies are compared only where two windows do not overlap at all
(one's slowest request before half of the other's)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

from servelab.bench.findings.answer import (
    DEPENDS,
    NO,
    NO_DIFFERENCE,
    SEEN,
    WINNER,
    YES,
    Answer,
)
from servelab.bench.findings.evidence import workers
from servelab.bench.measure.summary import Measurement
from servelab.bench.report.results import BenchRun, CellResult
from servelab.spec.questions import Cell, Holds, Latency, Under, Unfailed

_RATE = re.compile(r"^(?P<name>.+) @(?P<rate>\d+)/s$")


def _measured(run: BenchRun) -> list[tuple[CellResult, Measurement]]:
    return [(cell, cell.measurement) for cell in run.cells if cell.measurement is not None]


def _wanted(cell: CellResult, variants: Sequence[str] | None, endpoints: Sequence[str]) -> bool:
    """Whether the cell is one of `variants` (None: all) at one of `endpoints` (glob
    patterns; empty: all)."""
    return (variants is None or cell.variant in variants) and (
        not endpoints or any(fnmatchcase(cell.endpoint, glob) for glob in endpoints)
    )


def _picked(
    run: BenchRun, variants: Sequence[str] | None, endpoints: Sequence[str]
) -> list[tuple[CellResult, Measurement]]:
    return [(cell, m) for cell, m in _measured(run) if _wanted(cell, variants, endpoints)]


def _name(cell: CellResult) -> str:
    return f"{cell.variant}, {workers(cell.workers)}, {cell.endpoint}"


def _ms(value: float) -> str:
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.0f} ms"


def _sure(run: BenchRun) -> str:
    return f"each cell's kept window of the {run.form} run"


def _counted(count: int) -> str:
    return f"{count} cell" + ("" if count == 1 else "s")


def unfailed(rule: Unfailed, run: BenchRun) -> Answer | None:
    picked = _picked(run, rule.variants, rule.endpoints)
    broken = [
        cell
        for cell in run.cells
        if cell.measurement is None and _wanted(cell, rule.variants, rule.endpoints)
    ]
    if not picked and not broken:
        return None
    requests = sum(m.requests for _, m in picked)
    failing = []
    for cell, m in picked:
        failed = round(m.failed_rate * m.requests) + m.errors.get("wrong_answer", 0)
        by_tool = sum(tool.errors for tool in cell.tools)
        if failed or by_tool:
            failing.append((cell, failed, by_tool))
    tools = sorted({tool.tool for cell, _ in picked for tool in cell.tools})
    also = f", and {' and '.join(tools)} on the same cells" if tools else ""
    figures = f"{requests:,} requests over {_counted(len(picked))}{also}"
    if not failing and not broken:
        verdict = (
            f"none failed: {requests:,} requests in {_counted(len(picked))}{also}, "
            "every one answered"
        )
        return Answer(rule.question, verdict, figures, _sure(run), kind=YES)
    listed = [
        f"{_name(cell)}: {failed} by k6" + (f", {errors} by the tool" if errors else "")
        for cell, failed, errors in failing
    ] + [f"{_name(cell)}: no measurement ({cell.error or 'the cell failed'})" for cell in broken]
    verdict = f"some failed: {'; '.join(listed)}"
    names = frozenset(_name(cell) for cell, _, _ in failing) | {_name(c) for c in broken}
    return Answer(rule.question, verdict, figures, _sure(run), kind=NO, names=names)


def under(rule: Under, run: BenchRun) -> Answer | None:
    picked = [
        (cell, value)
        for cell, m in _picked(run, rule.variants, rule.endpoints)
        if (value := getattr(m, rule.percentile)) is not None
    ]
    if not picked:
        return None
    label = rule.percentile.removesuffix("_ms")
    listed = "; ".join(f"{_name(cell)}: {label} {_ms(value)}" for cell, value in picked)
    over = [cell for cell, value in picked if value > rule.limit_ms]
    figures = f"{label} of each cell against {_ms(rule.limit_ms)}: {listed}"
    if not over:
        verdict = f"yes: every {label} under {_ms(rule.limit_ms)} ({listed})"
        return Answer(rule.question, verdict, figures, _sure(run), kind=YES)
    names = frozenset(_name(cell) for cell in over)
    verdict = f"no: {label} over {_ms(rule.limit_ms)} on {', '.join(sorted(names))}"
    return Answer(rule.question, verdict, figures, _sure(run), kind=NO, names=names)


def _cells(
    run: BenchRun, wanted: Sequence[Cell]
) -> dict[int, list[tuple[CellResult, Measurement]]]:
    by_workers: dict[int, list[tuple[CellResult, Measurement]]] = {}
    for cell, m in _measured(run):
        if any((cell.variant, cell.endpoint) == (w.variant, w.endpoint) for w in wanted):
            by_workers.setdefault(cell.workers, []).append((cell, m))
    return by_workers


def _window(cell: CellResult, m: Measurement) -> str:
    return f"{_name(cell)}: p50 {_ms(m.p50_ms)}, max {_ms(m.max_ms)} ({m.requests} requests)"


def latency(rule: Latency, run: BenchRun) -> Answer | None:
    firsts, seconds = _cells(run, rule.first_cells), _cells(run, rule.second_cells)
    pairs = [
        (a, b)
        for count in sorted(firsts.keys() & seconds.keys())
        for a in firsts[count]
        for b in seconds[count]
    ]
    if not pairs:
        return None
    sides = [
        1 if a[1].max_ms < b[1].p50_ms else -1 if b[1].max_ms < a[1].p50_ms else 0 for a, b in pairs
    ]
    shown = dict.fromkeys(_window(*each) for pair in pairs for each in pair)
    figures = "; ".join(shown)
    sure = f"{_sure(run)}; one option is called sooner only where its max is below the other's p50"
    if all(side > 0 for side in sides) or all(side < 0 for side in sides):
        winner = rule.first if sides[0] > 0 else rule.second
        return Answer(rule.question, winner, figures, sure, kind=WINNER, names=frozenset({winner}))
    if 1 in sides and -1 in sides:
        return Answer(
            rule.question, DEPENDS, figures, sure, kind=DEPENDS,
            names=frozenset({rule.first, rule.second}),
        )  # fmt: skip
    if any(sides):
        return Answer(
            rule.question, f"{DEPENDS}: apart in some cells only", figures, sure, kind=DEPENDS
        )
    return Answer(rule.question, NO_DIFFERENCE, figures, sure, kind=NO_DIFFERENCE)


def _kept_up(m: Measurement) -> bool:
    """Every answer a 2xx, and every request sent at the rate: none dropped for want of a
    free client, as happens when answers come slower than the rate."""
    return m.failed_rate == 0 and m.dropped == 0


def _overload(m: Measurement) -> str:
    parts = [f"{m.success_ratio:.1%} 2xx"]
    if m.shed:
        parts.append(f"{m.shed} 503s")
    if m.dropped:
        parts.append(f"{m.dropped} not sent in time (every client waiting)")
    for label, count in (("502s", m.bad_gateway), ("other non-2xx", m.unexpected_non_2xx),
                         ("timeouts", m.timeouts)):  # fmt: skip
        if count:
            parts.append(f"{count} {label}")
    parts.append(f"p99 {_ms(m.p99_ms)}")
    return ", ".join(parts)


def holds(rule: Holds, run: BenchRun) -> Answer | None:
    found = [
        (match["name"], cell.workers, int(match["rate"]), m)
        for cell, m in _measured(run)
        if cell.variant == rule.variant and (match := _RATE.match(cell.endpoint))
    ]
    counts = {count for _, count, _, _ in found}
    rates: dict[str, list[tuple[int, Measurement]]] = {}
    for endpoint, count, rate, m in found:
        name = endpoint if len(counts) == 1 else f"{endpoint} ({workers(count)})"
        rates.setdefault(name, []).append((rate, m))
    if not rates:
        return None
    held, above, broken = [], [], set()
    for name, steps in rates.items():
        steps.sort(key=lambda step: step[0])
        first_failed = next((rate for rate, m in steps if not _kept_up(m)), None)
        clean = [rate for rate, _ in steps if first_failed is None or rate < first_failed]
        held.append(f"{name} {clean[-1]}/s" if clean else f"{name} none of {steps[0][0]}/s and up")
        for rate, m in steps:
            if not _kept_up(m):
                above.append(f"{name} @{rate}/s: {_overload(m)}")
            if m.bad_gateway or m.unexpected_non_2xx or m.timeouts:
                broken.add(f"{name} @{rate}/s")
    rated = sorted({rate for steps in rates.values() for rate, _ in steps})
    verdict = f"every request sent and answered with a 2xx up to: {', '.join(held)}"
    if broken:
        verdict += f"; 502s, 500s or timeouts at {', '.join(sorted(broken))}"
    elif above:
        verdict += "; beyond, 503s shed at once or answers queued: never a 502, a 500 or a timeout"
    figures = f"rates measured: {', '.join(f'{r}/s' for r in rated)}"
    if above:
        figures += f"; beyond: {'; '.join(above)}"
    names = frozenset(held) | frozenset(broken)
    return Answer(
        rule.question, verdict, figures, _sure(run), kind=SEEN if not broken else NO, names=names
    )
