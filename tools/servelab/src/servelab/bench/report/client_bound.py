"""A cell whose load generator set the pace: its requests/s measure the client.

k6 is several times costlier per request than wrk; on a small machine it can use up its
CPUs before the server does. Such a cell's requests/s never enter a comparison of
servers (its server CPU per request still does: that is counted per request served).
"""

from __future__ import annotations

from dataclasses import replace

from servelab.bench.report.results import BenchRun, CellResult

# k6 used at least this share of the CPUs it was given.
BUSY = 0.8
# Or a write-up's own tool (wrk, ab, hey) on the same cell got at least this many times
# k6's requests/s: more than two repeat runs' noise apart.
OUTPACED = 1.25
# The metrics that are rates, which a saturated client caps.
RATES = frozenset({"ok_rps", "rps"})


def client_bound(cell: CellResult) -> str | None:
    """Why the cell's requests/s are the client's, or None where they are the server's."""
    if cell.measurement is None:
        return None
    if cell.k6_load >= BUSY:
        return f"k6 at {cell.k6_load:.0%} of its CPUs"
    rps = cell.measurement.rps
    faster = [tool for tool in cell.tools if rps and tool.rps >= OUTPACED * rps]
    if faster:
        best = max(faster, key=lambda tool: tool.rps)
        return f"{best.tool} {best.rps:,.0f}/s against k6's {rps:,.0f}/s"
    return None


def for_metric(run: BenchRun, metric: str) -> BenchRun:
    """`run` without its client-bound cells where `metric` is a rate; else `run`."""
    if metric not in RATES:
        return run
    return replace(run, cells=tuple(cell for cell in run.cells if client_bound(cell) is None))
