"""Synthetic runs for the findings' tests: cells with a chosen requests/s, CPU per request,
rounds, and k6's share of its CPUs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

WRK = {"vus": 100, "duration_s": 2.0, "warmup_s": 1.0}


def cell(
    variant: str,
    endpoint: str,
    rps: float,
    *,
    workers: int = 1,
    cpu_us: float | None = None,
    rounds_cpu_us: Sequence[float] = (),
    rounds_rps: Sequence[float] = (),
    k6_busy: float = 0.3,
    requests: int | None = None,
) -> dict[str, Any]:
    """A cell of 2 s at `rps`; `cpu_us` sets the server's CPU time to that per request;
    `k6_busy` is k6's CPU time over what its one CPU could give it."""
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
        },
        "server_cpu_s": None if cpu_us is None else cpu_us * count / 1e6,
        "rounds_cpu_us": list(rounds_cpu_us),
        "rounds_rps": list(rounds_rps),
    }
