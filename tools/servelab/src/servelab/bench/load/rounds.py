"""A cell measured in several rounds: the round whose server CPU per request is the median.

On a shared or virtual machine a few seconds of load can land on a burst of another
tenant's work (CPU steal) and move one cell's figures by a fifth. A load shape with
`rounds` measures each of its cells that many times, the rounds one after another over the
matrix (so a drift in the machine touches every variant in each round; the later rounds
pass only over the cells whose shape runs more), and the run keeps for each cell the
round with the median server CPU per request: one real measurement, every figure of it
from the same run, with the rounds' CPU and requests/s recorded beside it. A tool's figures
(wrk, ab) come from its own median round, by its CPU per request (the runner runs the tools
in a cell's first round only: their one round).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from servelab.bench.load.tools import ToolResult
from servelab.bench.report.results import CellResult

T = TypeVar("T")


def _median(items: Sequence[T], key: Callable[[T], float]) -> T:
    """The item with the median key (the lower middle one of an even count)."""
    return sorted(items, key=key)[(len(items) - 1) // 2]


def _rps(cell: CellResult) -> float | None:
    return cell.measurement.rps if cell.measurement is not None else None


def _tool_cpu(tool: ToolResult) -> float:
    """A tool's CPU per request; its requests/s where the server's CPU was not read."""
    return tool.cpu_us_per_request if tool.cpu_us_per_request is not None else tool.rps


def median_round(rounds: Sequence[CellResult]) -> CellResult:
    """The cell's median round (by server CPU per request, else by requests/s; a failed
    round only where every round failed), with each round's figures recorded."""
    measured = [cell for cell in rounds if cell.measurement is not None]
    if len(rounds) == 1 or not measured:
        return rounds[0]
    with_cpu = [cell for cell in measured if cell.cpu_us_per_request is not None]
    chosen = (
        _median(with_cpu, lambda cell: cell.cpu_us_per_request or 0.0)
        if with_cpu
        else _median(measured, lambda cell: _rps(cell) or 0.0)
    )
    tools = tuple(
        _median([tool for cell in measured for tool in cell.tools if tool.tool == name], _tool_cpu)
        for name in dict.fromkeys(tool.tool for cell in measured for tool in cell.tools)
    )
    return replace(
        chosen,
        tools=tools,
        rounds_cpu_us=tuple(
            cell.cpu_us_per_request if cell.measurement is not None else None for cell in rounds
        ),
        rounds_rps=tuple(_rps(cell) for cell in rounds),
        rounds_memory_mib=tuple(cell.server_memory_mib for cell in rounds),
    )
