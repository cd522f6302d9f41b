"""Outage drills (servelab.reliability.outage): the drill file, loadtests/outage.js's answers as k6
writes them, and what the report makes of a timeline."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.outage.analysis import Events, TimedAnswer, analyse
from servelab.reliability.outage.drill import DrillError, k6_env, load_drill, parse_drill
from servelab.reliability.outage.run import load_beside

DRILL = {
    "profile": "uwsgi",
    "service": "entryeditor-nginx",
    "victim": "entryeditor-compute",
    "endpoint": "/x",
    "rate": 10,
    "duration_s": 10,
    "kill_at_s": 2,
    "restart_at_s": 4,
}


def test_the_shipped_drills_parse(project: Project) -> None:
    drill = load_drill(project, "entryeditor-compute")
    assert drill.victim == "entryeditor-compute"
    assert k6_env(drill, "http://h")["RATE"] == str(drill.rate)


def test_a_drill_needs_every_field_and_a_sane_schedule(project: Project) -> None:
    with pytest.raises(DrillError, match="endpoint"):
        parse_drill("d", {k: v for k, v in DRILL.items() if k != "endpoint"})
    with pytest.raises(DrillError, match="kill_at_s < restart_at_s"):
        parse_drill("d", {**DRILL, "restart_at_s": 1})
    with pytest.raises(DrillError, match="no outage drill"):
        load_drill(project, "nothing-like-it")


def answer(
    at_s: float, status: int, duration_ms: float = 5.0, retry_after: bool = False
) -> TimedAnswer:
    return TimedAnswer(at_s * 1000, duration_ms, status, retry_after)


def test_the_timeline_in_windows() -> None:
    answers = [
        answer(0.1, 200),
        answer(0.9, 200),
        answer(1.2, 503, 700, retry_after=True),  # a read timeout, then the breaker
        answer(1.5, 503, 2, retry_after=True),
        answer(2.5, 503, 3),  # no Retry-After
        answer(3.1, 502),
        answer(3.4, 200),
        answer(3.6, 503, 4, retry_after=True),
        answer(4.0, 200),
        answer(4.5, 200),
    ]
    outcome = analyse(answers, Events(killed_ms=1000, restarted_ms=2000, healthy_ms=3000))
    assert (outcome.before.answers, outcome.before.ok) == (2, 2)
    assert (outcome.down.answers, outcome.down.status_503, outcome.down.with_retry_after) == (
        3,
        3,
        2,
    )
    assert outcome.down.max_ms == 700
    assert (outcome.after.answers, outcome.after.other, outcome.after.status_503) == (5, 1, 1)
    assert outcome.unavailable_503.status_503 == 4
    assert outcome.service_back_s == 1.0
    assert outcome.first_ok_after_s == pytest.approx(0.4)
    assert outcome.recovered_after_s == pytest.approx(0.6)
    # Seconds counted from the first answer (0.1 s): 3.9 s falls in second 3.
    assert [second["answers"] for second in outcome.seconds] == [2, 2, 1, 4, 1]


def test_no_recovery_when_the_run_ends_failing() -> None:
    answers = [answer(0.1, 200), answer(1.5, 503), answer(3.5, 503)]
    outcome = analyse(answers, Events(killed_ms=1000, restarted_ms=2000, healthy_ms=3000))
    assert outcome.first_ok_after_s is None
    assert outcome.recovered_after_s is None


class Flaky(http.server.BaseHTTPRequestHandler):
    """Every third answer is a 503 with Retry-After, the rest 200 JSON."""

    count = 0

    def do_GET(self) -> None:
        Flaky.count += 1
        unavailable = Flaky.count % 3 == 0
        self.send_response(503 if unavailable else 200)
        self.send_header("Content-Type", "application/json")
        if unavailable:
            self.send_header("Retry-After", "1")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def flaky_url(starts_servers: None) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()
    server.server_close()


def test_outage_js_records_every_answer_for_the_drill(
    project: Project, flaky_url: str, tmp_path: Path
) -> None:
    env = {"BASE_URL": flaky_url, "ENDPOINT": "/x", "RATE": "30", "DURATION": "1s"}
    answers, _ = load_beside(project, env, tmp_path, lambda started: None)
    assert 25 <= len(answers) <= 31
    assert {a.status for a in answers} == {200, 503}
    assert all(a.retry_after == (a.status == 503) for a in answers)
    assert all(a.at_ms > 1.7e12 and a.duration_ms >= 0 for a in answers)


def test_cli_names_the_known_drills_for_an_unknown_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outage", "no-such-drill"]) == 2
    error = capsys.readouterr().err
    assert "no outage drill 'no-such-drill'" in error
    assert "entryeditor-compute" in error


def test_an_unknown_drill_among_known_ones_stops_before_any_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["outage", "sigterm-uvicorn", "no-such-drill"]) == 2
    error = capsys.readouterr().err
    assert "no outage drill 'no-such-drill'" in error
    assert "wrote" not in error
