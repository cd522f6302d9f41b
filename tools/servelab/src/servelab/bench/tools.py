"""The write-ups' own load tools (wrk, ab) run on a cell beside k6, and what they measured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from servelab.bench.cpu_time import per_request_us

TOOLS = ("wrk", "ab")


@dataclass(frozen=True)
class ToolResult:
    tool: str
    argv: Sequence[str]
    requests: int
    rps: float
    p50_ms: float | None
    p99_ms: float | None
    # Failed requests of every kind: socket errors, timeouts and non-2xx answers.
    errors: int
    # The server's CPU time while the tool ran (as CellResult.server_cpu_s).
    server_cpu_s: float | None = None

    @property
    def cpu_us_per_request(self) -> float | None:
        return per_request_us(self.server_cpu_s, self.requests)
