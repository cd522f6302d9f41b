"""How the fuzz judges what came back (servelab.reliability.fuzz): a hand-written case's
answer (judge.judge, read from the raw bytes a server sent), a case class's tally and row,
and the slowloris, download-race, schema and memory rows, each from recorded outcomes with
no server started."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from servelab.reliability.fuzz import run
from servelab.reliability.fuzz.cases import Case
from servelab.reliability.fuzz.judge import (
    ACCEPTED,
    HANG,
    HEAD_REFUSED,
    LEAKED,
    NO_ALLOW,
    NO_ANSWER,
    NOT_JSON,
    SERVER_ERROR,
    judge,
    tally,
)
from servelab.reliability.fuzz.memory import Container, Peak, memory_probe
from servelab.reliability.fuzz.race import TRUNCATED, RaceOutcome
from servelab.reliability.fuzz.raw import RawAnswer, parse_answer
from servelab.reliability.fuzz.schema import SchemaOutcome, SchemaRunError
from servelab.reliability.fuzz.slowloris import SlowlorisOutcome
from servelab.reliability.rows import Verdict
from servelab.spec.reliability import Fuzz, FuzzStack, FuzzTarget

# Answers as servers sent them, byte for byte.
JSON_404 = (
    b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 55\r\n\r\n"
    b'{"error": {"code": "not_found", "message": "no file 7"}}'
)
JSON_400_CHARSET = (
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
    b'{"error": {"code": "bad_request", "message": "invalid id"}}'
)
# uvicorn's own answer to a request line its parser cannot read, before the app runs.
UVICORN_400 = (
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"1e\r\nInvalid HTTP request received.\r\n0\r\n\r\n"
)
NGINX_414 = (
    b"HTTP/1.1 414 Request-URI Too Large\r\nServer: nginx\r\nContent-Type: text/html\r\n"
    b"Content-Length: 54\r\nConnection: close\r\n\r\n"
    b"<html><head><title>414 Request-URI Too Large</title>"
)
# A framework's default error body: JSON, but not the services' shape.
FRAMEWORK_422 = (
    b'HTTP/1.1 422 Unprocessable Entity\r\ncontent-type: application/json\r\n\r\n{"detail": "x"}'
)
STRING_ERROR_400 = (
    b'HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\r\n{"error": "bad id"}'
)
PROBLEM_400 = (
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/problem+json\r\n\r\n"
    b'{"error": {"code": "bad_request", "message": "x"}}'
)
JSON_503 = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
    b'\r\n{"error": {"code": "unavailable", "message": "database down"}}'
)
PASSWD_200 = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\n\r\n"
    b"root:x:0:0:root:/root:/bin/bash\n"
)
OK_200 = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"id": "7"}'
REDIRECT_301 = b"HTTP/1.1 301 Moved Permanently\r\nLocation: /files/\r\ncontent-length: 0\r\n\r\n"

BAD = Case("traversal in the path", "../ in the path", b"GET /files/../etc/passwd HTTP/1.1\r\n")
TOLERATED = Case("non-UTF-8 bytes", "in the query", b"GET /files?q=\xff HTTP/1.1\r\n", True)
HEAD = Case("HEAD on GET routes", "HEAD /files", b"HEAD /files HTTP/1.1\r\n", True)


def received(raw: bytes, elapsed_s: float = 0.01) -> RawAnswer:
    """The answer as the fuzz reads it from `raw`."""
    return RawAnswer(*parse_answer(raw), elapsed_s)


HUNG = RawAnswer(None, {}, b"", 10.0, hung=True)
CLOSED = RawAnswer(*parse_answer(b""), 0.02)


# --- one answer ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [JSON_404, JSON_400_CHARSET])
def test_a_refusal_in_the_services_json_error_shape_passes(raw: bytes) -> None:
    assert judge(BAD, received(raw)) is None
    assert judge(TOLERATED, received(raw)) is None


@pytest.mark.parametrize(
    "raw", [UVICORN_400, NGINX_414, FRAMEWORK_422, STRING_ERROR_400, PROBLEM_400]
)
def test_a_refusal_outside_the_json_error_shape_fails(raw: bytes) -> None:
    assert judge(BAD, received(raw)) == NOT_JSON


def test_a_json_error_body_that_does_not_parse_is_not_the_shape() -> None:
    cut = JSON_404[: -len(b'"no file 7"}}')]

    assert judge(BAD, received(cut)) == NOT_JSON


def test_a_5xx_fails_even_in_the_error_shape_and_with_retry_after() -> None:
    assert judge(BAD, received(JSON_503)) == SERVER_ERROR
    assert judge(TOLERATED, received(JSON_503)) == SERVER_ERROR


@pytest.mark.parametrize(
    ("status", "wrong"), [(499, NOT_JSON), (500, SERVER_ERROR), (599, SERVER_ERROR)]
)
def test_5xx_starts_at_500(status: int, wrong: str) -> None:
    answer = RawAnswer(status, {"content-type": "text/plain"}, b"x", 0.01)

    assert judge(BAD, answer) == wrong


def test_no_answer_in_time_is_a_hang_and_a_close_without_one_is_apart() -> None:
    assert judge(BAD, HUNG) == HANG
    assert CLOSED.status is None and not CLOSED.hung
    assert judge(BAD, CLOSED) == NO_ANSWER
    assert judge(TOLERATED, CLOSED) == NO_ANSWER


def test_a_file_from_outside_the_service_in_any_answer_is_a_leak() -> None:
    assert judge(BAD, received(PASSWD_200)) == LEAKED
    # Even where the input was fine to serve, and even under a refusal.
    assert judge(TOLERATED, received(PASSWD_200)) == LEAKED
    refusal_echoing = JSON_404.replace(b"no file 7", b"root:x:0:0")
    assert judge(BAD, received(refusal_echoing)) == LEAKED


def test_a_server_error_is_reported_before_a_leak_in_its_body() -> None:
    crashed = PASSWD_200.replace(b"200 OK", b"500 Internal Server Error")

    assert judge(BAD, received(crashed)) == SERVER_ERROR


def test_bad_input_served_with_a_2xx_or_a_redirect_is_not_a_refusal() -> None:
    assert judge(BAD, received(OK_200)) == ACCEPTED
    assert judge(BAD, received(REDIRECT_301)) == ACCEPTED
    assert judge(TOLERATED, received(OK_200)) is None


@pytest.mark.parametrize("allow", [None, "", "   "])
def test_a_405_must_say_which_methods_are_allowed(allow: str | None) -> None:
    headers = {"content-type": "application/json"} | ({"allow": allow} if allow is not None else {})
    answer = RawAnswer(405, headers, JSON_404.split(b"\r\n\r\n")[1], 0.01)

    assert judge(BAD, answer) == NO_ALLOW
    # HEAD refused without Allow: the missing header is named, the worse of the two.
    assert judge(HEAD, answer) == NO_ALLOW


def test_a_405_with_allow_in_the_error_shape_passes() -> None:
    answer = RawAnswer(
        405,
        {"content-type": "application/json", "allow": "GET, POST"},
        JSON_404.split(b"\r\n\r\n")[1],
        0.01,
    )

    assert judge(BAD, answer) is None


def test_head_is_judged_by_its_status_alone() -> None:
    # No body comes with a HEAD's answer: a plain 404 or a 200 is GET's answer.
    assert judge(HEAD, RawAnswer(404, {"content-type": "text/plain"}, b"", 0.01)) is None
    assert judge(HEAD, RawAnswer(200, {"content-length": "0"}, b"", 0.01)) is None
    assert judge(HEAD, RawAnswer(405, {"allow": "GET"}, b"", 0.01)) == HEAD_REFUSED
    assert judge(HEAD, RawAnswer(502, {}, b"", 0.01)) == SERVER_ERROR


# --- a case class's tally -----------------------------------------------------------------


def test_a_tally_counts_each_status_and_no_answer_as_none() -> None:
    counted = tally(
        [
            (BAD, received(JSON_404)),
            (BAD, received(JSON_404)),
            (BAD, CLOSED),
            (BAD, HUNG),
            (BAD, received(JSON_503)),
        ]
    )

    assert counted.cases == 5
    assert dict(counted.statuses) == {"404": 2, "none": 2, "503": 1}
    assert (counted.server_errors, counted.hangs, len(counted.failures)) == (1, 1, 3)


def test_a_tallys_failures_name_the_case_its_status_and_content_type() -> None:
    counted = tally(
        [
            (BAD, received(UVICORN_400)),
            (BAD, received(REDIRECT_301)),
            (BAD, HUNG),
        ]
    )

    assert counted.failures == [
        "../ in the path (400 text/plain): 4xx not in the JSON error shape",
        "../ in the path (301 no type): bad input served",
        "../ in the path: hang",
    ]


def test_a_tallys_slowest_answer_counts_the_passing_ones_too() -> None:
    counted = tally([(BAD, received(JSON_404, 0.2)), (BAD, received(JSON_404, 3.5))])

    assert counted.failures == []
    assert counted.slowest_s == 3.5


def test_an_empty_tally_has_nothing_wrong() -> None:
    counted = tally([])

    assert (counted.cases, counted.failures, counted.slowest_s) == (0, [], 0.0)


# --- a case class's row -------------------------------------------------------------------


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[bytes, RawAnswer]]:
    """The answer to each request, by its bytes, instead of a server's."""
    recorded: dict[bytes, RawAnswer] = {}
    monkeypatch.setattr(run, "exchange", lambda port, request: recorded[request])
    yield recorded


def cases(klass: str, count: int) -> list[Case]:
    return [
        Case(klass, f"case {n}", f"GET /{klass}/{n} HTTP/1.1\r\n".encode()) for n in range(count)
    ]


def test_a_case_class_passes_when_every_answer_is_a_json_refusal(
    answers: dict[bytes, RawAnswer],
) -> None:
    sent = cases("huge headers", 3)
    answers.update({case.request: received(JSON_400_CHARSET, 0.05) for case in sent})

    (probe,) = run.case_probes("files-nginx (nginx + uvicorn)", 1, sent)

    assert probe.verdict is Verdict.PASS
    assert probe.observed == "3 cases: 400 ×3"
    assert probe.figures == {
        "cases": 3,
        "failures": 0,
        "server_errors": 0,
        "hangs": 0,
        "slowest_s": 0.05,
    }


def test_one_row_per_case_class_each_failing_on_its_own(answers: dict[bytes, RawAnswer]) -> None:
    fine, crashing = cases("NUL bytes", 2), cases("nested JSON", 2)
    answers.update({case.request: received(JSON_404) for case in fine})
    answers[crashing[0].request] = received(JSON_503)
    answers[crashing[1].request] = HUNG

    probes = list(run.case_probes("target", 1, fine + crashing))

    assert [(p.probe, p.verdict) for p in probes] == [
        ("NUL bytes", Verdict.PASS),
        ("nested JSON", Verdict.FAIL),
    ]
    assert probes[1].figures["server_errors"] == 1
    assert probes[1].figures["hangs"] == 1
    assert probes[1].figures["slowest_s"] == 10.0


def test_a_rows_observed_shows_three_failures_and_counts_the_rest(
    answers: dict[bytes, RawAnswer],
) -> None:
    sent = cases("wrong methods", 5)
    answers.update({case.request: received(UVICORN_400) for case in sent})

    (probe,) = run.case_probes("target", 1, sent)

    assert probe.verdict is Verdict.FAIL
    assert probe.observed.startswith("5 cases: 400 ×5. 5 failed: case 0 (400 text/plain)")
    assert probe.observed.endswith("; 2 more")
    assert probe.observed.count("not in the JSON error shape") == 3


# --- slowloris, the download race, schemathesis --------------------------------------------


def slowloris_row(
    monkeypatch: pytest.MonkeyPatch, outcome: SlowlorisOutcome
) -> tuple[Verdict, str]:
    monkeypatch.setattr(run, "slowloris", lambda port, path, window_s: outcome)
    probe = run.slowloris_probe("files-nginx (nginx + uvicorn)", 1, "/files", 15.0)
    return probe.verdict, probe.observed


def test_slow_clients_all_cut_off_and_others_served_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    verdict, observed = slowloris_row(monkeypatch, SlowlorisOutcome(5, 5, 10.2, 15, 15))

    assert verdict is Verdict.PASS
    assert observed == (
        "5 of 5 slow clients cut off (the last after 10 s) in 15 s; "
        "15 of 15 other requests served meanwhile"
    )


@pytest.mark.parametrize(
    "outcome",
    [
        SlowlorisOutcome(5, 4, 10.2, 15, 15),  # one slow client still held
        SlowlorisOutcome(5, 5, 10.2, 15, 14),  # one other request not served
        SlowlorisOutcome(5, 0, 0.0, 15, 15),  # an app server alone, never cutting off
    ],
)
def test_a_slow_client_held_or_a_request_unserved_fails_slowloris(
    monkeypatch: pytest.MonkeyPatch, outcome: SlowlorisOutcome
) -> None:
    verdict, observed = slowloris_row(monkeypatch, outcome)

    assert verdict is Verdict.FAIL
    assert ("the last after" in observed) == (outcome.closed > 0)


SCHEMA_TARGET = FuzzTarget(service="files-uvicorn", server="uvicorn", openapi="/openapi.json")
FILES = Fuzz(
    family="files",
    stacks=(FuzzStack(profile="uvicorn", service="files-uvicorn", targets=(SCHEMA_TARGET,)),),
    read="/files",
    upload="/files",
    delete_race=True,
)


def test_a_download_race_with_only_whole_objects_and_clean_404s_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run, "race", lambda port, upload, token: RaceOutcome(10, 40, 23, 17, []))

    probe = run.race_probe("files-uvicorn (uvicorn)", 1, FILES, "token")

    assert probe.verdict is Verdict.PASS
    assert probe.observed == "10 rounds, 40 GETs: 23 whole, 17 clean 404s"
    assert probe.figures["truncated"] == 0


def test_a_short_body_under_a_200_fails_the_download_race(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failures = [
        f"GET whole (200 with 0 bytes): {TRUNCATED}",
        f"GET bytes=0- (206 with 65,536 bytes): {TRUNCATED}",
        "round 4: DELETE answered 500",
    ]
    monkeypatch.setattr(
        run, "race", lambda port, upload, token: RaceOutcome(10, 40, 20, 18, failures)
    )

    probe = run.race_probe("files-uvicorn (uvicorn)", 1, FILES, "token")

    assert probe.verdict is Verdict.FAIL
    assert (probe.figures["failures"], probe.figures["truncated"]) == (3, 2)


def schema_row(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, outcome: SchemaOutcome | SchemaRunError
) -> tuple[Verdict, str]:
    def recorded(*args: object) -> SchemaOutcome:
        if isinstance(outcome, SchemaRunError):
            raise outcome
        return outcome

    monkeypatch.setattr(run, "run_schemathesis", recorded)
    probe = run.schema_probe(SCHEMA_TARGET, 1, "token", run.FuzzOptions(), tmp_path)
    return probe.verdict, probe.observed


def outcome(
    failures: list[tuple[str, int, list[str]]], errors: list[tuple[str, int]]
) -> SchemaOutcome:
    return SchemaOutcome(327, 20, 31.4, failures, errors)


def test_a_schema_run_without_failures_or_errors_passes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    verdict, observed = schema_row(monkeypatch, tmp_path, outcome([], []))

    assert verdict is Verdict.PASS
    assert observed == "327 cases over 20 operations in 31 s: 0 5xx, 0 failures"


def test_any_schema_failure_fails_the_row_and_names_two_operations(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    found = [("ST103 Undocumented status code", 3, ["GET /a", "GET /b", "POST /c"])]

    verdict, observed = schema_row(monkeypatch, tmp_path, outcome(found, []))

    assert verdict is Verdict.FAIL
    assert observed.endswith(
        "0 5xx, 3 failures: ST103 Undocumented status code ×3 (GET /a, GET /b, ...)"
    )


def test_a_schema_run_with_errors_alone_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    verdict, observed = schema_row(monkeypatch, tmp_path, outcome([], [("Network Error", 2)]))

    assert verdict is Verdict.FAIL
    assert observed.endswith("; errors: Network Error ×2")


def test_a_schema_run_that_could_not_run_fails_with_its_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hung = SchemaRunError("schemathesis still ran after 600 s: counted as hung")

    verdict, observed = schema_row(monkeypatch, tmp_path, hung)

    assert verdict is Verdict.FAIL
    assert observed == "schemathesis still ran after 600 s: counted as hung"


# --- memory against the recipe's limit -----------------------------------------------------


@pytest.mark.parametrize(("peak_mib", "over"), [(1535.9, False), (1536.0, False), (1536.1, True)])
def test_a_peak_exactly_at_the_limit_is_within_it(peak_mib: float, over: bool) -> None:
    assert (Peak(Container("health-code-uvicorn", 1, 1536.0), peak_mib).share > 1.0) is over


def test_the_memory_rows_figures_are_the_container_closest_to_its_limit() -> None:
    peaks = [
        Peak(Container("entryeditor-uwsgi", 1, 2048.0), 900.0),  # 44 %
        Peak(Container("entryeditor-nginx", 2, 64.0), 40.0),  # 62 %
        Peak(Container("entryeditor-compute", 3, None), 3000.0),  # no limit
    ]

    probe = memory_probe("entryeditor-nginx (nginx + uWSGI)", peaks)

    assert probe.verdict is Verdict.PASS
    assert probe.figures == {"peak_mib": 40.0, "limit_mib": 64.0, "over_limit": 0}
