"""Every request of a k6 run, read back from its CSV output (`--out csv=fileName=F,
timeFormat=unix_milli`, any script): when each answer came, how long it took, and its
status or, without one, the kind of failure k6 saw (lib/errors.js's kinds, from k6's error
codes); and what the run counted beside them: the requests it never started for want of a
free VU (vegeta's dropped iterations) and the checks that failed (wrong answers)."""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# k6's error codes (https://grafana.com/docs/k6/latest/javascript-api/error-codes/), as
# lib/errors.js reads them.
_GENERIC = 1000
_REQUEST_TIMEOUT = 1050
_BROKEN_PIPE = 1201
_DIAL_TIMEOUT = 1211
_RESET_BY_PEER = 1220


def failure_kind(status: int, error_code: int, error: str) -> str | None:
    """What went wrong with a request, lib/errors.js's way: None for a 2xx; `status N`
    for another answer; with no answer `timeout`, `connect`, `write`, `read` or `other`."""
    if 200 <= status < 300:
        return None
    if status:
        return f"status {status}"
    if error_code in (_REQUEST_TIMEOUT, _DIAL_TIMEOUT):
        return "timeout"
    if 1100 <= error_code < 1200 or 1210 <= error_code < 1220:
        return "connect"
    if error_code == _BROKEN_PIPE or (error_code == _RESET_BY_PEER and "write" in error):
        return "write"
    if error_code == _RESET_BY_PEER or (error_code == _GENERIC and "EOF" in error):
        return "read"
    return "other"


@dataclass(frozen=True)
class Request:
    at_ms: float  # when it ended (unix ms)
    duration_ms: float
    failure: str | None  # failure_kind's, None for a 2xx

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class Requests:
    sent: list[Request]  # by the time each ended
    dropped: int
    failed_checks: int

    def failures(self) -> Counter[str]:
        return Counter(request.failure for request in self.sent if request.failure is not None)

    def p99_ms(self) -> float:
        """The 99th percentile of the requests' durations (nearest rank; 0 with none)."""
        ordered = sorted(request.duration_ms for request in self.sent)
        return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else 0.0


def _int(text: str) -> int:
    return int(float(text)) if text else 0


def read_requests(csv_path: Path) -> Requests:
    sent: list[Request] = []
    dropped = failed_checks = 0
    with csv_path.open(newline="") as file:
        for row in csv.DictReader(file):
            metric = row["metric_name"]
            if metric == "http_req_duration":
                sent.append(
                    Request(
                        at_ms=float(row["timestamp"]),
                        duration_ms=float(row["metric_value"]),
                        failure=failure_kind(
                            _int(row["status"]), _int(row["error_code"]), row["error"]
                        ),
                    )
                )
            elif metric == "dropped_iterations":
                dropped += _int(row["metric_value"])
            elif metric == "checks" and float(row["metric_value"]) == 0:
                failed_checks += 1
    return Requests(sorted(sent, key=lambda r: r.at_ms), dropped, failed_checks)
