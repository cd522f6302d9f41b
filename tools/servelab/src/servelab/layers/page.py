"""docs/results/layers.md: each account as a table, the step's CPU per request and what the
layer it adds costs, with the machine and how busy it was."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from servelab.bench.measure.machine import Machine
from servelab.layers.account import Account, Cost
from servelab.markdown import table


@dataclass(frozen=True)
class Conditions:
    machine: Machine
    started: str
    wall_s: float
    rounds: int
    # The load average (1 min) before and after: other processes' share of the CPUs.
    load: tuple[float, float]
    command: str


def render(accounts: Sequence[Account], conditions: Conditions) -> str:
    m = conditions.machine
    before, after = conditions.load
    lines = [
        "# Production layers: what each costs per request",
        "",
        f"Measured by `{conditions.command}` on {conditions.started} in "
        f"{conditions.wall_s:.0f} s: {m.cpu_model}, {m.cpus} CPUs, {m.memory_gib:.1f} GiB "
        f"memory, {m.os} (Linux {m.kernel}), Python {m.python}. Load average "
        f"{before:.2f} before and {after:.2f} after (beside this one process: other work "
        "on the same CPUs moves each round's figure, and the intervals say by how much).",
        "",
        "Each request is driven through the service's ASGI app in this process (no socket, no "
        "server, no load generator: the scope and the body's 64 KiB messages as uvicorn hands "
        "them over), one after another. The shipped app's layers are added one at a time "
        "over the bare FastAPI app, inside out as they are shipped; the last row is the app "
        "as shipped, every layer on with its defaults (metrics in multiprocess mode, as the "
        "compose recipes run them; the access log's lines written to /dev/null by its writer "
        "thread; the files store on a tmpfs where the machine has one, as the benchmarks' "
        "are). The value of a row is the CPU time of the whole process per request "
        "(`time.process_time`, every thread's), the geometric mean of "
        f"{conditions.rounds} rounds that each pass over every row; a layer's cost is its row "
        "less the row before. Its 95% interval is the findings page's: Student's t over the "
        "logarithms of the two rows' per-round ratios, paired round by round "
        "(servelab.bench.findings.spread), scaled by the row before's mean. The first row, an "
        "empty ASGI app, is what the driver itself costs.",
        "",
    ]
    for account in accounts:
        lines += _account(account)
    return "\n".join(lines)


def _account(account: Account) -> list[str]:
    rows = []
    for index, row in enumerate(account.rows):
        spread = row.spread
        value = "–" if spread is None else spread.shown(1, " µs")
        cost = account.cost(index) if index else None
        rows.append(
            [
                row.name,
                value,
                "–" if cost is None else _micros(cost),
                "–" if cost is None else cost.ratio.shown(3),
            ]
        )
    lines = [
        f"## {account.scenario.title}",
        "",
        f"{account.count} requests a round.",
        "",
        *table(["step", "CPU per request", "the layer, µs", "over the row before"], rows),
    ]
    # Every layer together over the bare app (row 1): what production costs.
    total = account.cost(len(account.rows) - 1, base=1)
    if total is not None:
        lines += [
            f"Every layer together: {total.micros:+.1f} µs ({total.low:+.1f} to "
            f"{total.high:+.1f}) a request, {total.ratio.shown(3)} the bare app's CPU.",
            "",
        ]
    return lines


def _micros(cost: Cost) -> str:
    return f"{cost.micros:+.1f} ({cost.low:+.1f} to {cost.high:+.1f})"
