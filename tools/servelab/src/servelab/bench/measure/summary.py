"""A k6 end-of-test summary (handleSummary's data, from loadtests/lib/summary.js) as
the figures a report shows: the measured phase only, in wrk's (or hey's) terms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from servelab.bench.errors import BenchError
from servelab.bench.load.shape import Load

# lib/errors.js ERROR_KINDS: wrk's socket errors, then answers that were not 2xx.
ERROR_KINDS = ("connect", "read", "write", "timeout", "non_2xx", "other")
# lib/errors.js COUNTED_STATUSES: non-2xx answers also counted by status.
COUNTED_STATUSES = ("502", "503", "504")
# Failures a script counts itself (errors_<kind>), where it defines them: wrong_answer is
# a 2xx whose body is not the expected answer (health-code.js; ab's "Length" failures).
ANSWER_ERROR_KINDS = ("wrong_answer",)
# Besides the figures of Measurement, what a ratio or a goal can name (servelab.spec.matrix
# .Metric): the server's CPU microseconds per request, which the cell holds.
CPU_US = "cpu_us"
# The server's memory while k6 ran (its processes' summed PSS, MiB), which the cell holds.
MEMORY_MIB = "memory_mib"
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
    # Added later, so absent from older saved results: p95 (None there), the non-2xx
    # answers by status ("503": n), and k6's dropped iterations (vegeta's shape: requests
    # not sent for want of a free VU, over the whole run).
    p95_ms: float | None = None
    statuses: Mapping[str, int] = field(default_factory=dict)
    dropped: int = 0
    # The rest of ab's percentile table (50 66 75 80 90 95 98 99 100); None where saved
    # before k6 reported them.
    p66_ms: float | None = None
    p80_ms: float | None = None
    p98_ms: float | None = None

    @property
    def success_ratio(self) -> float:
        """vegeta's Success: the share of requests answered with a 2xx."""
        return 1.0 - self.failed_rate

    @property
    def bad_gateway(self) -> int:
        """502s: a proxy that could not reach its upstream and did not say so as a 503."""
        return self.statuses.get("502", 0)

    @property
    def shed(self) -> int:
        """503s: requests turned away on purpose (load shedding)."""
        return self.statuses.get("503", 0)

    @property
    def timeouts(self) -> int:
        """Requests the client gave up on (k6's request timeout, dial timeouts)."""
        return self.errors.get("timeout", 0)

    @property
    def unexpected_non_2xx(self) -> int:
        """Non-2xx answers other than 502, 503 and 504 (a 500 from "Too many connections")."""
        return self.errors.get("non_2xx", 0) - sum(self.statuses.values())

    @property
    def ok_rps(self) -> float:
        """Requests/s that succeeded (2xx): what ratios compare."""
        return self.rps * (1.0 - self.failed_rate)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def metric(self, name: str) -> float | None:
        value: float | None = getattr(self, name)
        return value


class SummaryError(BenchError):
    """The summary lacks the measured sub-metrics (not written by loadtests/lib/summary.js?)."""


def _values(summary: Mapping[str, Any], metric: str) -> Mapping[str, float]:
    try:
        values: Mapping[str, float] = summary["metrics"][f"{metric}{_MEASURED}"]["values"]
    except KeyError:
        raise SummaryError(f"k6 summary has no {metric}{_MEASURED}") from None
    return values


def _elapsed_s(summary: Mapping[str, Any], load: Load) -> float:
    if not load.counted:
        return load.duration_s
    try:
        return float(summary["state"]["testRunDurationMs"]) / 1000
    except KeyError:
        raise SummaryError("k6 summary has no state.testRunDurationMs") from None


def _count(summary: Mapping[str, Any], metric: str) -> int:
    """A counter's count, 0 where the summary lacks it (written before it was counted)."""
    return int(summary["metrics"].get(metric, {}).get("values", {}).get("count", 0))


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
        errors={
            **{kind: int(_values(summary, f"errors_{kind}")["count"]) for kind in ERROR_KINDS},
            **{
                kind: _count(summary, f"errors_{kind}{_MEASURED}")
                for kind in ANSWER_ERROR_KINDS
                if f"errors_{kind}{_MEASURED}" in summary["metrics"]
            },
        },
        elapsed_s=round(elapsed, 3),
        p95_ms=latency.get("p(95)"),
        statuses={s: _count(summary, f"status_{s}{_MEASURED}") for s in COUNTED_STATUSES},
        dropped=_count(summary, "dropped_iterations"),
        p66_ms=latency.get("p(66)"),
        p80_ms=latency.get("p(80)"),
        p98_ms=latency.get("p(98)"),
    )
