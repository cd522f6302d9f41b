"""Synthetic runs for the findings' tests: cells with a chosen requests/s, CPU per request,
values round by round, latencies, failures and k6's share of its CPUs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from servelab.bench.report.results import BenchRun, run_from_json
from servelab.testing.records import run_record

WRK = {"vus": 100, "duration_s": 2.0, "warmup_s": 1.0}

# The files family's two uploads at a steady 100/s that "Stream an upload or buffer it?"
# compares by server CPU per request.
STREAM = "upload/stream/async_read_and_disk_write @100/s"
BUFFER = "upload/single @100/s"
# The endpoint of health-code's "Which mode, and how many workers?".
OCR = "ab POST /analysis/health-code"
# A machine that slows down and speeds up again over six rounds: both sides of a round move
# together, so that a ratio taken round by round does not see it.
DRIFT = (200.0, 260.0, 180.0, 240.0, 210.0, 190.0)


def cell(
    variant: str,
    endpoint: str,
    rps: float,
    *,
    workers: int = 1,
    cpu_us: float | None = None,
    rounds_cpu_us: Sequence[float | None] = (),
    rounds_rps: Sequence[float | None] = (),
    k6_busy: float = 0.3,
    requests: int | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    **measured: Any,
) -> dict[str, Any]:
    """A cell of 2 s at `rps`; `cpu_us` sets the server's CPU time to that per request;
    `k6_busy` is k6's CPU time over what its one CPU could give it; `measured` replaces
    fields of its measurement (p50_ms, max_ms, failed_rate, statuses, errors...); `tools`
    are the write-ups' own tools' results on the same cell."""
    count = requests if requests is not None else int(rps * 2)
    return {
        "variant": variant,
        "workers": workers,
        "endpoint": endpoint,
        "script": "upload.js",
        "env": {},
        "pinning": "server on CPU 1, k6 on CPU 0",
        "commands": {},
        "k6_cpu_s": 3.0 * k6_busy,
        "k6_wall_s": 3.0,
        "k6_cpus": 1,
        "wall_s": 4.0,
        "measurement": {
            "requests": count,
            "rps": rps,
            "avg_ms": 10.0,
            "p50_ms": 9.0,
            "p75_ms": 11.0,
            "p90_ms": 12.0,
            "p99_ms": 20.0,
            "max_ms": 30.0,
            "failed_rate": 0.0,
            "checks_rate": 1.0,
            "errors": {},
            "elapsed_s": 2.0,
            **measured,
        },
        "server_cpu_s": None if cpu_us is None else cpu_us * count / 1e6,
        "rounds_cpu_us": list(rounds_cpu_us),
        "rounds_rps": list(rounds_rps),
        "tools": [
            {"argv": ["wrk"], "p50_ms": None, "p99_ms": None, "errors": 0, **tool} for tool in tools
        ],
    }


def run(family: str, cells: list[dict[str, Any]], rounds: int = 1, **fields: Any) -> BenchRun:
    """A quick run of `family` (`fields` replace the record's: form, started, machine...)
    measuring `cells` in `rounds` passes over the matrix."""
    return run_from_json(run_record(family, WRK, cells, rounds=rounds, **fields))


def stream_buffer(variant: str, factors: Sequence[float]) -> list[dict[str, Any]]:
    """`variant`'s two upload cells, the stream's CPU per request `factors` times the
    buffer's round by round (one round per factor), on the drifting machine."""
    buffer = [2.0 * value for value in DRIFT[: len(factors)]]
    stream = [value * factor for value, factor in zip(buffer, factors, strict=True)]
    return [
        cell(variant, STREAM, 100.0, cpu_us=stream[0], rounds_cpu_us=stream),
        cell(variant, BUFFER, 100.0, cpu_us=buffer[0], rounds_cpu_us=buffer),
    ]
