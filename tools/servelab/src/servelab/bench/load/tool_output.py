"""What wrk and ab print, read into figures: requests, requests/s, p50, p99, errors."""

from __future__ import annotations

import re
from dataclasses import dataclass

from servelab.bench.errors import BenchError

# wrk's time units (stats.c format_time) in milliseconds.
_WRK_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}
_WRK_TOTAL = re.compile(r"^\s*(\d+) requests in ")
_WRK_RPS = re.compile(r"^Requests/sec:\s+([\d.]+)", re.MULTILINE)
_WRK_PERCENTILE = re.compile(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s|m|h)\s*$", re.MULTILINE)
_WRK_SOCKET = re.compile(
    r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", re.MULTILINE
)
_WRK_NON_2XX = re.compile(r"Non-2xx or 3xx responses: (\d+)")
_AB_FIELD = re.compile(r"^([A-Za-z0-9 -]+):\s+([\d.]+)", re.MULTILINE)
_AB_PERCENTILE = re.compile(r"^\s+(50|99)%\s+(\d+)", re.MULTILINE)


class ToolOutputError(BenchError):
    """The tool's output lacks a figure it always prints (it failed, or another version)."""


@dataclass(frozen=True)
class Figures:
    requests: int
    rps: float
    p50_ms: float | None
    p99_ms: float | None
    errors: int


def parse_wrk(text: str) -> Figures:
    """`wrk --latency`'s report. Errors are its socket errors (connect, read, write,
    timeout) plus its "Non-2xx or 3xx responses"."""
    total = next((m for line in text.splitlines() if (m := _WRK_TOTAL.match(line))), None)
    rps = _WRK_RPS.search(text)
    if total is None or rps is None:
        raise ToolOutputError("wrk printed no 'N requests in' and 'Requests/sec:' lines")
    percentiles = {
        int(p): float(value) * _WRK_UNITS[unit] for p, value, unit in _WRK_PERCENTILE.findall(text)
    }
    socket = _WRK_SOCKET.search(text)
    non_2xx = _WRK_NON_2XX.search(text)
    return Figures(
        requests=int(total.group(1)),
        rps=float(rps.group(1)),
        p50_ms=percentiles.get(50),
        p99_ms=percentiles.get(99),
        errors=(sum(int(n) for n in socket.groups()) if socket else 0)
        + (int(non_2xx.group(1)) if non_2xx else 0),
    )


def parse_ab(text: str) -> Figures:
    """ab's report. Errors are its "Failed requests" (connect, receive, length,
    exceptions) plus its "Non-2xx responses"; its percentiles are whole milliseconds."""
    fields = dict(_AB_FIELD.findall(text))
    if "Complete requests" not in fields or "Requests per second" not in fields:
        raise ToolOutputError("ab printed no 'Complete requests' and 'Requests per second'")
    percentiles = {int(p): float(value) for p, value in _AB_PERCENTILE.findall(text)}
    return Figures(
        requests=int(fields["Complete requests"]),
        rps=float(fields["Requests per second"]),
        p50_ms=percentiles.get(50),
        p99_ms=percentiles.get(99),
        errors=int(fields.get("Failed requests", 0)) + int(fields.get("Non-2xx responses", 0)),
    )
