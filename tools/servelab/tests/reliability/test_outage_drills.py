"""The process drills of `servelab outage` (a worker SIGKILLed, SIGTERM, a rolling restart,
an nginx reload): the drill files, what the answers say was lost, the verdicts, and each
kind run for a few seconds against a hello variant."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from servelab.cli import main
from servelab.project import Project
from servelab.reliability.outage.actions import Acted
from servelab.reliability.outage.analysis import TimedAnswer
from servelab.reliability.outage.drill import KINDS, DrillError, k6_env, load_drill, parse_drill
from servelab.reliability.outage.loss import Loss, loss
from servelab.reliability.outage.procs import workers
from servelab.reliability.outage.results import drill_names
from servelab.reliability.outage.run import execute
from servelab.reliability.outage.verdicts import judge
from servelab.reliability.rows import Verdict

BASE = {"profile": "p", "service": "s", "endpoint": "/x", "rate": 10, "duration_s": 10}


def answer(at_s: float, status: int, duration_ms: float = 5.0) -> TimedAnswer:
    return TimedAnswer(at_s * 1000, duration_ms, status, False)


def test_every_shipped_drill_parses_and_each_process_kind_has_one(project: Project) -> None:
    kinds = {load_drill(project, name).kind for name in drill_names(project)}
    assert kinds == set(KINDS)
    rolling = load_drill(project, "rolling-restart-hello")
    assert list(rolling.victims) == ["hello-replica-1", "hello-replica-2"]
    pool = load_drill(project, "kill-worker-health-code-pool")
    assert k6_env(pool, "http://h")["METHOD"] == "POST"
    assert k6_env(pool, "http://h")["BODY_FILE"] == "data/health-code.jpg"
    assert "NO_REUSE" not in k6_env(pool, "http://h")
    assert k6_env(load_drill(project, "kill-worker-wait-uvicorn"), "h")["NO_REUSE"] == "1"


def test_a_drill_of_a_kind_needs_what_that_kind_acts_on() -> None:
    with pytest.raises(DrillError, match="kind"):
        parse_drill("d", {**BASE, "kind": "reboot", "victim": "v", "at_s": 1})
    with pytest.raises(DrillError, match="victims"):
        parse_drill("d", {**BASE, "kind": "rolling-restart", "at_s": 1})
    with pytest.raises(DrillError, match="at_s"):
        parse_drill("d", {**BASE, "kind": "sigterm", "victim": "v"})
    with pytest.raises(DrillError, match="0 < at_s < duration_s"):
        parse_drill("d", {**BASE, "kind": "sigterm", "victim": "v", "at_s": 10})
    with pytest.raises(DrillError, match="no signal 'SIGFOO'"):
        parse_drill(
            "d", {**BASE, "kind": "sigterm", "victim": "v", "at_s": 1, "stop_signal": "SIGFOO"}
        )
    drill = parse_drill("d", {**BASE, "kind": "kill-worker", "victim": "v", "at_s": 3})
    assert (drill.at_s, drill.depth, drill.method) == (3.0, 1, "GET")


def test_cli_runs_named_drills_or_a_kind_and_needs_one_or_the_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["outage"]) == 2
    assert "name a drill, or give --kind or --all" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["outage", "--kind", "reboot"])


def test_loss_splits_failures_by_when_their_request_was_sent() -> None:
    answers = [
        answer(0.5, 200),
        answer(1.05, 200, duration_ms=100),  # sent at 0.95: in flight at 1.0
        answer(1.10, 0, duration_ms=200),  # sent at 0.90: in flight, lost
        answer(1.2, 0, duration_ms=1),  # refused after the action
        answer(1.9, 503, duration_ms=40),
        answer(2.5, 200),
    ]
    cost = loss(answers, action_ms=1000)
    assert (cost.answers, cost.failed, cost.failed_before) == (6, 3, 0)
    assert (cost.in_flight, cost.in_flight_failed) == (2, 1)
    assert (cost.failed_after, cost.slowest_failure_ms) == (2, 40)
    assert cost.whole_again_s == pytest.approx(0.9)
    assert cost.statuses == {"0": 2, "503": 1}
    assert loss([*answers, answer(3, 0)], action_ms=1000).whole_again_s is None
    assert loss(answers[:2], action_ms=1000).whole_again_s == 0


def test_verdicts_hold_each_kind_to_its_goal() -> None:
    clean = [answer(s / 10, 200) for s in range(1, 40)]
    worker = parse_drill("w", {**BASE, "kind": "kill-worker", "victim": "v", "at_s": 1})
    assert judge(worker, loss(clean, 1000), {"worker_back_s": 0.4}).verdict == Verdict.PASS
    never = judge(worker, loss(clean, 1000), {"workers": 2})
    assert never.verdict == Verdict.FAIL
    assert "never replaced" in never.observed
    assert judge(worker, loss(clean, 1000), {"worker_back_s": 3}).verdict == Verdict.FAIL

    stop = parse_drill("t", {**BASE, "kind": "sigterm", "victim": "v", "at_s": 1})
    exited = {"exit_s": 0.5, "exit_code": 0, "grace_s": 15}
    refused = [*clean, answer(1.5, 0, duration_ms=2)]
    probe = judge(stop, loss(sorted(refused, key=lambda a: a.at_ms), 1000), exited)
    assert probe.verdict == Verdict.PASS
    assert probe.figures["failed_after"] == 1
    lost = [*clean, answer(1.2, 0, duration_ms=500)]  # in flight at the signal
    assert judge(stop, loss(sorted(lost, key=lambda a: a.at_ms), 1000), exited).verdict == (
        Verdict.FAIL
    )
    late = {**exited, "exit_s": 15.0, "exit_code": -9}
    assert judge(stop, loss(clean, 1000), late).verdict == Verdict.FAIL

    reload = parse_drill("r", {**BASE, "kind": "nginx-reload", "victim": "n", "at_s": 1})
    assert judge(reload, loss(refused, 1000), {}).verdict == Verdict.FAIL
    assert judge(reload, loss(clean, 1000), {}).figures["failed"] == 0


@pytest.fixture
def tree() -> Iterator[subprocess.Popen[bytes]]:
    """A master with two workers, one of which has a child of its own."""
    code = (
        "import subprocess, sys, time\n"
        "sleep = [sys.executable, '-c', 'import time; time.sleep(30)']\n"
        "grand = [sys.executable, '-c', 'import subprocess, sys, time; "
        "subprocess.Popen(sys.argv[1:]); time.sleep(30)', *sleep]\n"
        "subprocess.Popen(sleep); subprocess.Popen(grand); time.sleep(30)\n"
    )
    master = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    yield master
    os.killpg(master.pid, signal.SIGKILL)
    master.wait()


def test_workers_are_found_by_their_depth_below_the_master(
    tree: subprocess.Popen[bytes],
) -> None:
    deadline = time.monotonic() + 10
    while len(workers(tree.pid, 2)) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers(tree.pid, 1)) == 2
    assert len(workers(tree.pid, 2)) == 1
    assert workers(tree.pid, 1, match="no such command line") == []


def drill_run(name: str, raw: dict[str, object], project: Project) -> tuple[Loss, Acted]:
    """Run a short drill against real servers; what it cost and what the runner did."""
    ran = execute(project, parse_drill(f"test-{name}", raw))
    return loss(ran.answers, ran.events.killed_ms), ran.acted


HELLO = {"endpoint": "/hello", "rate": 40, "duration_s": 4}


def test_a_killed_uvicorn_worker_is_replaced_and_no_request_is_lost(
    project: Project, starts_servers: None
) -> None:
    service = {"profile": "hello-uvicorn", "service": "hello-uvicorn", "victim": "hello-uvicorn"}
    # 8 s, so that a replacement the supervisor's 5 s ping timeout delays is still seen;
    # how soon it comes is the drill's figure (docs/results/reliability.md), not a test's.
    load = {**HELLO, "duration_s": 8}
    cost, acted = drill_run(
        "kill-worker", {**load, **service, "kind": "kill-worker", "at_s": 1.5}, project
    )
    assert acted.figures["workers"] == 2
    assert "worker_back_s" in acted.figures, acted.marks
    assert cost.answers >= 300
    assert (cost.failed_before, cost.failed_after) == (0, 0)


def test_sigterm_finishes_what_is_in_flight_and_exits_at_once(
    project: Project, starts_servers: None
) -> None:
    service = {
        "profile": "hello-gunicorn",
        "service": "hello-gunicorn-sync",
        "victim": "hello-gunicorn-sync",
    }
    cost, acted = drill_run(
        "sigterm", {**HELLO, **service, "kind": "sigterm", "at_s": 1.5}, project
    )
    assert acted.figures["exit_code"] == 0
    assert acted.figures["exit_s"] < acted.figures["grace_s"]
    assert (cost.failed_before, cost.in_flight_failed) == (0, 0)
    assert cost.slowest_failure_ms < 1000
    assert cost.whole_again_s is not None  # answered again once started again
    assert [what for what, _ in acted.marks][-1] == "hello-gunicorn-sync healthy"


def test_a_rolling_restart_behind_nginx_loses_no_request(
    project: Project, starts_servers: None
) -> None:
    cost, acted = drill_run(
        "rolling-restart",
        {
            **HELLO,
            "duration_s": 10,
            "kind": "rolling-restart",
            "profile": "hello-replicas",
            "service": "hello-replicas",
            "victims": ["hello-replica-1", "hello-replica-2"],
            "at_s": 1,
            "env": {"REPLICAS": "2"},
        },
        project,
    )
    assert [what for what, _ in acted.marks if what.endswith("healthy")] == [
        "hello-replica-1 healthy",
        "hello-replica-2 healthy",
    ]
    assert cost.answers >= 350
    assert cost.failed == 0, cost.statuses


def test_an_nginx_reload_loses_no_request(project: Project, starts_servers: None) -> None:
    cost, acted = drill_run(
        "nginx-reload",
        {
            **HELLO,
            "kind": "nginx-reload",
            "profile": "hello-uwsgi",
            "service": "hello-uwsgi-nginx",
            "victim": "hello-uwsgi-nginx",
            "at_s": 1.5,
        },
        project,
    )
    assert acted.figures["old_workers_gone_s"] < 5
    assert cost.answers >= 150
    assert cost.failed == 0, cost.statuses
