"""Every request of a k6 run, read back from its CSV output (`--out csv=fileName=F,
timeFormat=unix_milli`, any script): when each answer came, how long it took, and its
status or, without one, the kind of failure k6 saw (lib/errors.js's kinds, from k6's error
codes); and what the run counted beside them: the requests it never started for want of a
free VU (vegeta's dropped iterations) and the checks that failed (wrong answers)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.load.k6 import read_points
from servelab.bench.measure.percentile import percentile

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
class K6Request:
    at_ms: float  # when it ended (unix ms)
    duration_ms: float
    failure: str | None  # failure_kind's, None for a 2xx

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class Requests:
    sent: list[K6Request]  # by the time each ended
    dropped: int
    failed_checks: int

    def failures(self) -> Counter[str]:
        return Counter(request.failure for request in self.sent if request.failure is not None)

    def p99_ms(self) -> float:
        """The 99th percentile of the requests' durations (nearest rank; 0 with none)."""
        return percentile((request.duration_ms for request in self.sent), 0.99)


def read_requests(csv_path: Path) -> Requests:
    sent: list[K6Request] = []
    dropped = failed_checks = 0
    for point in read_points(csv_path):
        if point.metric == "http_req_duration":
            failure = failure_kind(point.status, point.error_code, point.error)
            sent.append(K6Request(point.at_ms, point.value, failure))
        elif point.metric == "dropped_iterations":
            dropped += int(point.value)
        elif point.metric == "checks" and point.value == 0:
            failed_checks += 1
    return Requests(sorted(sent, key=lambda r: r.at_ms), dropped, failed_checks)
