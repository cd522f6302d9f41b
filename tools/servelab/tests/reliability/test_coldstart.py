"""The cold-start probe (servelab.reliability.faults.coldstart): what k6 saw read back and
judged, the section it writes, and one short run against a real stack started cold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.faults import sections
from servelab.reliability.faults.coldstart import ColdRun, coldstart_row, probe_target, targets
from servelab.reliability.faults.k6_requests import read_requests
from servelab.reliability.rows import Row, Verdict

HELLO_UVICORN = next(t for t in targets(Project.find(Path(__file__))) if t.label == "hello uvicorn")
UP_MS = 1_700_000_000_000.0
_HEADER = (
    "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,"
    "method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n"
)


def _request(at_ms: float, ms: float, status: int, error: str = "", code: int = 0) -> str:
    return (
        f"http_req_duration,{at_ms:.0f},{ms:f},,{error},{code or ''},{str(status == 200).lower()}"
        f",,GET,u,HTTP/1.1,vegeta,,{status},,,u,,\n"
    )


def _csv(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "requests.csv"
    path.write_text(_HEADER + "".join(lines))
    return path


def test_a_clean_cold_start_passes_with_its_figures(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        _request(UP_MS + 700, 40, 200),
        "checks,1700000000701,1.000000,status is 200,,,,,,,,vegeta,,,,,,,\n",
        *(_request(UP_MS + 800 + n, 2, 200) for n in range(99)),
    )

    row = coldstart_row(HELLO_UVICORN, ColdRun(read_requests(path), UP_MS, 3.0))

    assert row.verdict is Verdict.PASS, row.observed
    assert row.figures["sent"] == 100
    assert row.figures["failed"] == 0
    assert row.figures["p99_ms"] == 40.0
    assert row.figures["first_sent_s"] == 0.66
    assert row.figures["first_ok_s"] == 0.7
    assert "hello uvicorn" in row.target


def test_failures_are_counted_by_kind_and_fail_the_row(tmp_path: Path) -> None:
    # An overflowing listen queue: connections refused, then reset, then a proxy's 502.
    path = _csv(
        tmp_path,
        _request(UP_MS + 500, 0, 0, "dial: connection refused", 1212),
        _request(UP_MS + 510, 3, 0, "read: connection reset by peer", 1220),
        _request(UP_MS + 520, 5, 502),
        _request(UP_MS + 900, 7, 200),
        "dropped_iterations,1700000000950,3.000000,,,,,,,,,vegeta,,,,,,,\n",
        "checks,1700000000960,0.000000,status is 200,,,,,,,,vegeta,,,,,,,\n",
    )

    row = coldstart_row(HELLO_UVICORN, ColdRun(read_requests(path), UP_MS, 3.0))

    assert row.verdict is Verdict.FAIL
    assert row.figures["failed"] == 3
    assert row.figures["failed_connect"] == 1
    assert row.figures["failed_read"] == 1
    assert row.figures["failed_status_502"] == 1
    assert row.figures["dropped"] == 3
    assert row.figures["failed_checks"] == 1
    assert row.figures["first_ok_s"] == 0.9
    assert "3 failed (1 connect, 1 read, 1 status 502)" in row.observed


def test_a_run_without_a_single_success_fails(tmp_path: Path) -> None:
    path = _csv(tmp_path, _request(UP_MS + 5000, 5000, 0, "request timeout", 1050))

    row = coldstart_row(HELLO_UVICORN, ColdRun(read_requests(path), UP_MS, 3.0))

    assert row.verdict is Verdict.FAIL
    assert row.figures["failed_timeout"] == 1
    assert row.figures["first_ok_s"] == -1.0
    assert "no success" in row.observed


def test_every_family_has_a_target_with_a_rate_and_a_script(project: Project) -> None:
    every = targets(project)
    assert {t.load.family for t in every} == {
        "hello",
        "files",
        "wait",
        "health-code",
        "entryeditor",
    }
    for target in every:
        load = target.load
        assert load.rate > 0 and load.max_vus >= load.vus > 0, target.label
        assert (project.loadtests / load.script).is_file(), target.label
    assert (HELLO_UVICORN.load.rate, HELLO_UVICORN.load.max_vus) == (400, 400)  # [shapes.steady]


def test_the_command_runs_the_families_named_for_the_seconds_given(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[list[str], float]] = []

    def fake(project: Project, families: list[str], seconds: float) -> list[Row]:
        asked.append((list(families), seconds))
        row = Row("cold start", f"{families[0]} x", "all 2xx", "all 2xx", Verdict.PASS)
        return [row]

    monkeypatch.setattr(sections, "probe_coldstart", fake)
    (tmp_path / "compose.yaml").touch()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loadtests").symlink_to(project.loadtests)  # the families' specs

    assert main(["probe", "coldstart", "--family", "hello", "--seconds", "2"]) == 0

    assert asked == [(["hello"], 2.0)]
    saved = json.loads((tmp_path / "docs/results/reliability/coldstart-hello.json").read_text())
    assert saved["command"] == "servelab probe coldstart --family hello --seconds 2"
    assert [p["target"] for p in saved["probes"]] == ["hello x"]
    assert "hello x" in (tmp_path / "docs/results/reliability.md").read_text()


def test_a_family_not_known_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "coldstart", "--family", "nothing-like-it"]) == 2
    assert "no coldstart for family 'nothing-like-it'" in capsys.readouterr().err


# Its verdict holds a rate of requests with none dropped: `make test` runs it alone.
@pytest.mark.alone
def test_hello_started_cold_answers_its_rated_load(project: Project, starts_servers: None) -> None:
    row = probe_target(project, HELLO_UVICORN, 2.0)

    assert row.figures["sent"] >= HELLO_UVICORN.load.rate  # the first second's at least
    assert row.figures["failed"] == 0, row.observed
    assert 0 < row.figures["first_ok_s"] < 5, row.observed
    assert row.verdict is Verdict.PASS, row.observed
