"""The fault probes' verdicts on recorded inputs: a dependency outage's row
(servelab.reliability.faults.dependencies) from a timeline of answers and the spot request,
how a k6 request's failure is classified (faults.k6_requests), what the files store counts
as left over after an abort or a full disk (faults.files_stack.Store), and the report's
opening lessons, which pick each drill kind's worst and best case (reliability.lessons)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.reliability.faults.dependencies import FAST_MS, RECOVERY_S, Spot, _verdict
from servelab.reliability.faults.files_stack import Store
from servelab.reliability.faults.k6_requests import failure_kind, read_requests
from servelab.reliability.outage.analysis import Events, TimedAnswer, analyse
from servelab.reliability.rows import Row, Verdict
from servelab.spec.reliability import Dependency, reliability

ENTRYEDITOR = reliability(Project.find(), "entryeditor").faults.dependencies
assert ENTRYEDITOR is not None
DATABASE, REDIS, COMPUTE = ENTRYEDITOR.outages
SCHEDULE = ENTRYEDITOR.schedule  # 20 requests/s for 14 s, cut at 4 s, restored at 8 s
CUT_MS, RESTORED_MS = SCHEDULE.cut_at_s * 1000, SCHEDULE.restore_at_s * 1000
# What a database outage's spot request should get: a fast 503 JSON with Retry-After.
SPOT_503 = Spot(status=503, ms=4.0, json=True, retry_after=True)

# An answer to the request sent at `sent_ms`: (status, duration ms, Retry-After).
Served = Callable[[float], tuple[int, float, bool]]


def healthy(sent_ms: float) -> tuple[int, float, bool]:
    return 200, 6.0, False


def refused_with_retry_after(sent_ms: float) -> tuple[int, float, bool]:
    if CUT_MS <= sent_ms < RESTORED_MS:
        return 503, 2.5, True
    return 200, 6.0, False


def answers_at_20(served: Served) -> list[TimedAnswer]:
    """A request every 50 ms for the schedule's 14 s, answered as `served` says."""
    answers = []
    for sent in range(0, int(SCHEDULE.duration_s * 1000), 50):
        status, duration, retry = served(sent)
        answers.append(TimedAnswer(sent + duration, duration, status, retry))
    return sorted(answers, key=lambda a: a.at_ms)


def row(
    served: Served,
    spot: Spot = SPOT_503,
    dependency: Dependency = DATABASE,
    mode: str = "cut",
) -> Row:
    answers = answers_at_20(served)
    events = Events(killed_ms=CUT_MS, restarted_ms=RESTORED_MS, healthy_ms=RESTORED_MS)
    slow = sum(CUT_MS <= a.at_ms < RESTORED_MS and a.duration_ms >= FAST_MS for a in answers)
    outcome = analyse(answers, events)
    return _verdict(dependency, mode, "entryeditor uwsgi", outcome, spot, SCHEDULE, slow)


def during(status: int, duration_ms: float, retry: bool = True) -> Served:
    """Fast 503s with Retry-After through the outage, but the first request after the cut
    answered with `status` after `duration_ms`."""

    def served(sent_ms: float) -> tuple[int, float, bool]:
        if sent_ms == CUT_MS:
            return status, duration_ms, retry
        return refused_with_retry_after(sent_ms)

    return served


# --- a dependency outage's row -------------------------------------------------------------


def test_fast_503s_with_retry_after_through_a_database_cut_pass() -> None:
    probe = row(refused_with_retry_after)

    assert probe.verdict is Verdict.PASS
    assert probe.figures["down_answers"] == probe.figures["down_503_retry_after"] == 80
    assert (probe.figures["down_other"], probe.figures["recovered_s"]) == (0, 0.0)
    assert probe.probe == "database cut (connections refused and reset) under 20 req/s"


def test_a_503_without_retry_after_during_the_outage_fails() -> None:
    probe = row(during(503, 2.5, retry=False))

    assert probe.verdict is Verdict.FAIL
    assert probe.figures["down_503"] - probe.figures["down_503_retry_after"] == 1


@pytest.mark.parametrize("status", [500, 502, 0])
def test_an_error_or_no_answer_during_the_outage_fails(status: int) -> None:
    probe = row(during(status, 3.0, retry=False))

    assert probe.verdict is Verdict.FAIL
    assert probe.figures["down_other"] == 1


@pytest.mark.parametrize(
    ("wait_ms", "verdict"),
    [(750.0, Verdict.PASS), (FAST_MS - 0.1, Verdict.PASS), (FAST_MS, Verdict.FAIL)],
)
def test_a_stalled_dependency_may_hold_a_request_until_just_under_a_second(
    wait_ms: float, verdict: Verdict
) -> None:
    # The app's DB_DEADLINE (0.75 s) ends the first wait; the breaker answers the rest.
    probe = row(during(503, wait_ms), mode="stall")

    assert probe.verdict is verdict
    assert probe.figures["down_over_1s"] == (verdict is Verdict.FAIL)
    assert probe.probe.startswith("database stalled (connections accepted, nothing answered)")


def failing_after_the_return(last_failure_s: float) -> Served:
    def served(sent_ms: float) -> tuple[int, float, bool]:
        if CUT_MS <= sent_ms < RESTORED_MS:
            return 503, 2.5, True
        if sent_ms >= RESTORED_MS and sent_ms + 2 <= RESTORED_MS + last_failure_s * 1000:
            return 503, 2.0, True  # the breaker still open
        return 200, 6.0, False

    return served


@pytest.mark.parametrize(
    ("last_failure_s", "verdict"),
    [(1.0, Verdict.PASS), (RECOVERY_S, Verdict.PASS), (RECOVERY_S + 0.05, Verdict.FAIL)],
)
def test_every_answer_must_succeed_again_within_five_seconds_of_the_return(
    last_failure_s: float, verdict: Verdict
) -> None:
    probe = row(failing_after_the_return(last_failure_s))

    assert probe.verdict is verdict
    assert probe.figures["recovered_s"] <= last_failure_s


def test_a_service_still_failing_at_the_end_never_recovered() -> None:
    probe = row(failing_after_the_return(60.0))

    assert probe.verdict is Verdict.FAIL
    assert probe.figures["recovered_s"] == -1.0
    assert "every answer a success again never after the return" in probe.observed


@pytest.mark.parametrize(
    "spot",
    [
        Spot(status=200, ms=5.0, json=True),  # served: the database was not needed
        Spot(status=503, ms=4.0, json=False, retry_after=True),  # nginx's own page
        Spot(status=503, ms=4.0, json=True, retry_after=False),
        Spot(status=503, ms=FAST_MS, json=True, retry_after=True),  # too slow
        Spot(status=0, ms=5000.0),  # no answer within the client's 5 s
    ],
)
def test_the_database_spot_request_must_be_a_fast_503_json_with_retry_after(spot: Spot) -> None:
    assert row(refused_with_retry_after, spot).verdict is Verdict.FAIL


@pytest.mark.parametrize(
    ("spot", "verdict"),
    [
        (Spot(status=200, ms=40.0, json=True), Verdict.PASS),  # computed without the cache
        (Spot(status=503, ms=3.0, json=False, retry_after=True), Verdict.PASS),
        (Spot(status=503, ms=3.0, json=True, retry_after=False), Verdict.FAIL),
        (Spot(status=200, ms=FAST_MS + 1, json=True), Verdict.FAIL),
        (Spot(status=500, ms=3.0, json=True), Verdict.FAIL),
    ],
)
def test_the_redis_and_compute_spot_requests_may_be_served_or_refused_fast(
    spot: Spot, verdict: Verdict
) -> None:
    for dependency in (REDIS, COMPUTE):
        assert row(healthy, spot, dependency).verdict is verdict


def test_a_stall_holding_every_request_until_the_return_is_caught_by_the_spot_request() -> None:
    # With no deadline, every request sent during the stall is answered only once the
    # dependency is back: none arrives during the outage, so the load's answers show
    # nothing slow; the spot request, cut by its own 5 s timeout, fails the row.
    def held(sent_ms: float) -> tuple[int, float, bool]:
        if CUT_MS <= sent_ms < RESTORED_MS:
            return 200, RESTORED_MS + 5 - sent_ms, False
        return 200, 6.0, False

    timed_out = Spot(status=0, ms=5000.0)

    probe = row(held, timed_out, mode="stall")

    assert probe.figures["down_answers"] == 0
    assert probe.verdict is Verdict.FAIL


def test_failures_outside_the_outage_are_counted_apart() -> None:
    def flaky_before(sent_ms: float) -> tuple[int, float, bool]:
        if sent_ms in (1000, 2000):
            return 502, 4.0, False
        return refused_with_retry_after(sent_ms)

    probe = row(flaky_before)

    assert probe.figures["failed_outside"] == 2
    assert probe.figures["down_other"] == 0


# --- a k6 request's failure -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "error", "kind"),
    [
        (200, 0, "", None),
        (204, 0, "", None),
        (299, 0, "", None),
        (301, 0, "", "status 301"),
        (404, 0, "", "status 404"),
        (503, 0, "", "status 503"),
        (0, 1050, "request timeout", "timeout"),
        (0, 1211, "dial: i/o timeout", "timeout"),
        (0, 1212, "dial: connection refused", "connect"),
        (0, 1100, "lookup failed", "connect"),
        (0, 1199, "", "connect"),
        (0, 1210, "dial tcp", "connect"),
        (0, 1219, "", "connect"),
        (0, 1201, "write: broken pipe", "write"),
        (0, 1220, "write: connection reset by peer", "write"),
        (0, 1220, "read: connection reset by peer", "read"),
        (0, 1000, "unexpected EOF", "read"),
        (0, 1000, "something else", "other"),
        (0, 1200, "", "other"),
        (0, 0, "", "other"),
    ],
)
def test_a_requests_failure_is_classified_as_lib_errors_js_does(
    status: int, code: int, error: str, kind: str | None
) -> None:
    assert failure_kind(status, code, error) == kind


_HEADER = (
    "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,"
    "method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n"
)


def test_a_k6_run_is_read_with_its_dropped_requests_and_failed_checks(tmp_path: Path) -> None:
    csv = tmp_path / "requests.csv"
    csv.write_text(
        _HEADER
        + "http_req_duration,1700000000900,3.5,,,,true,,GET,u,HTTP/1.1,vegeta,,200,,,u,,\n"
        + "http_req_duration,1700000000500,0.4,,dial: connection refused,1212,false,,GET,u,"
        "HTTP/1.1,vegeta,,0,,,u,,\n"
        + "http_req_duration,1700000000700,12.0,,,,false,,GET,u,HTTP/1.1,vegeta,,502,,,u,,\n"
        + "dropped_iterations,1700000000950,3.000000,,,,,,,,,vegeta,,,,,,,\n"
        + "dropped_iterations,1700000001950,2.000000,,,,,,,,,vegeta,,,,,,,\n"
        + "checks,1700000000960,0.000000,status is 200,,,,,,,,vegeta,,,,,,,\n"
        + "checks,1700000000961,1.000000,status is 200,,,,,,,,vegeta,,,,,,,\n"
        + "http_reqs,1700000000900,1.000000,,,,true,,GET,u,HTTP/1.1,vegeta,,200,,,u,,\n"
    )

    requests = read_requests(csv)

    assert [r.failure for r in requests.sent] == ["connect", "status 502", None]
    assert (requests.dropped, requests.failed_checks) == (5, 1)
    assert dict(requests.failures()) == {"connect": 1, "status 502": 1}
    assert requests.p99_ms() == 12.0


# --- what the files store counts as left over ----------------------------------------------


def test_whole_objects_are_counted_and_anything_else_is_left_over(tmp_path: Path) -> None:
    objects, tmp = tmp_path / "objects", tmp_path / "tmp"
    objects.mkdir()
    tmp.mkdir()
    for name in ("a1", "a1.json", "b2", "b2.json", "c3", "d4.json"):
        (objects / name).write_bytes(b"x")
    (tmp / "upload-7f3a.part").write_bytes(b"half")

    store = Store.of(tmp_path)

    assert store.objects == 2
    # A blob without its sidecar (c3), a sidecar without its blob (d4), a partial upload.
    assert sorted(store.leftovers) == ["objects/c3", "objects/d4", "tmp/upload-7f3a.part"]


def test_an_empty_or_missing_store_holds_nothing(tmp_path: Path) -> None:
    assert Store.of(tmp_path) == Store(objects=0, leftovers=[])
    (tmp_path / "objects").mkdir()
    (tmp_path / "tmp").mkdir()
    assert Store.of(tmp_path) == Store(objects=0, leftovers=[])
