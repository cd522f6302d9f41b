"""A k6 end-of-test summary (handleSummary's data, from loadtests/lib/summary.js) as
the figures a report shows: the measured phase only, in wrk's (or hey's) terms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from servelab.bench.errors import BenchError
from servelab.bench.load import Load

# lib/errors.js ERROR_KINDS: wrk's socket errors, then answers that were not 2xx.
ERROR_KINDS = ("connect", "read", "write", "timeout", "non_2xx", "other")
# What a ratio or a goal can name (a field or property of Measurement).
METRICS = (
    "ok_rps",
    "rps",
    "elapsed_s",
    "error_count",
    "failed_rate",
    "avg_ms",
    "p50_ms",
    "p75_ms",
    "p90_ms",
    "p99_ms",
    "max_ms",
)
_MEASURED = "{phase:measure}"


@dataclass(frozen=True)
class Measurement:
    requests: int
    rps: float
    avg_ms: float
    p50_ms: float
    p75_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    failed_rate: float
    checks_rate: float
    errors: Mapping[str, int]
    # The seconds the measured requests took: a timed shape's duration, a counted
    # shape's whole run (hey's "Total").
    elapsed_s: float = 0.0

    @property
    def ok_rps(self) -> float:
        """Requests/s that succeeded (2xx): what ratios compare."""
        return self.rps * (1.0 - self.failed_rate)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def metric(self, name: str) -> float:
        value: float = getattr(self, name)
        return value


class SummaryError(BenchError):
    """The summary lacks the measured sub-metrics (not written by loadtests/lib/summary.js?)."""


def _values(summary: Mapping[str, Any], metric: str) -> Mapping[str, float]:
    try:
        return summary["metrics"][f"{metric}{_MEASURED}"]["values"]
    except KeyError:
        raise SummaryError(f"k6 summary has no {metric}{_MEASURED}") from None


def _elapsed_s(summary: Mapping[str, Any], load: Load) -> float:
    if not load.counted:
        return load.duration_s
    try:
        return float(summary["state"]["testRunDurationMs"]) / 1000
    except KeyError:
        raise SummaryError("k6 summary has no state.testRunDurationMs") from None


def measurement(summary: Mapping[str, Any], load: Load) -> Measurement:
    """The measured phase's figures; requests/s over the measured time, like wrk's and hey's."""
    requests = int(_values(summary, "http_reqs")["count"])
    latency = _values(summary, "http_req_duration")
    checks = _values(summary, "checks")
    elapsed = _elapsed_s(summary, load)
    return Measurement(
        requests=requests,
        rps=requests / elapsed,
        avg_ms=latency["avg"],
        p50_ms=latency["p(50)"],
        p75_ms=latency["p(75)"],
        p90_ms=latency["p(90)"],
        p99_ms=latency["p(99)"],
        max_ms=latency["max"],
        failed_rate=_values(summary, "http_req_failed")["rate"],
        checks_rate=checks.get("rate", 1.0),
        errors={kind: int(_values(summary, f"errors_{kind}")["count"]) for kind in ERROR_KINDS},
        elapsed_s=round(elapsed, 3),
    )
