"""The drill verdicts (servelab.reliability.outage.verdicts.judge): each drill kind held to
its goal on recorded request timelines: a killed worker costs at most its in-flight
requests and the service is whole again within 2 s; a SIGTERM loses nothing in flight,
refuses the rest in under 0.5 s and exits within its grace period; a rolling restart and an
nginx reload lose nothing at all. The timelines are shaped after the saved drills
(docs/results/outage-*.json): a 1 s wait at 20 requests/s with 20 in flight at the kill,
hello at 100 requests/s refused for a few hundred ms while it restarts."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from servelab.reliability.outage.analysis import TimedAnswer
from servelab.reliability.outage.drill import Drill, parse_drill
from servelab.reliability.outage.loss import Loss, loss
from servelab.reliability.outage.verdicts import FAST_FAILURE_MS, WHOLE_AGAIN_S, judge
from servelab.reliability.rows import Verdict

# The action, in ms into the run.
ACTION_MS = 5000.0


def drill(kind: str, **fields: object) -> Drill:
    """A drill of `kind` on hello-uvicorn at 100 requests/s, acting 5 s into 15."""
    defaults: dict[str, object] = {
        "profile": "hello-uvicorn",
        "service": "hello-uvicorn",
        "victim": "hello-uvicorn",
        "endpoint": "/hello",
        "rate": 100,
        "duration_s": 15.0,
        "kind": kind,
        "at_s": 5.0,
    }
    if kind == "rolling-restart":
        defaults["victims"] = ["hello-replica-1", "hello-replica-2"]
    return parse_drill(f"{kind}-test", defaults | fields)


def answer(at_ms: float, status: int = 200, duration_ms: float = 1.0) -> TimedAnswer:
    return TimedAnswer(at_ms, duration_ms, status, status == 503)


def hello_at_100(
    start_ms: float = 0.0, end_ms: float = 15_000.0, status: int = 200
) -> list[TimedAnswer]:
    """One answer every 10 ms, each 1 ms after its request."""
    return [answer(at + 1, status) for at in range(int(start_ms), int(end_ms), 10)]


def timeline(*parts: list[TimedAnswer]) -> list[TimedAnswer]:
    return sorted((a for part in parts for a in part), key=lambda a: a.at_ms)


def waits_killed(lost_in_flight: int) -> list[TimedAnswer]:
    """The wait service at 20 requests/s, each answered after 1 s: 20 in flight at the
    kill, `lost_in_flight` of them cut (no answer) 3 ms after it, the rest answered."""
    answers = []
    for sent in range(0, 15_000, 50):
        in_flight = sent < ACTION_MS <= sent + 1000
        lost = in_flight and (ACTION_MS - sent) // 50 <= lost_in_flight
        answers.append(
            answer(ACTION_MS + 3, 0, ACTION_MS + 3 - sent)
            if lost
            else answer(sent + 1000, 200, 1000)
        )
    return timeline(answers)


def judged(kind: str, answers: list[TimedAnswer], measured: Mapping[str, float]) -> Verdict:
    return judge(drill(kind), loss(answers, ACTION_MS), measured).verdict


WORKER_BACK = {"workers": 2.0, "worker_back_s": 0.03}
EXITED = {"exit_s": 0.27, "exit_code": 0.0, "grace_s": 10.0, "back_s": 0.47}


# --- kill-worker ------------------------------------------------------------------------


def test_a_killed_worker_that_loses_only_its_in_flight_requests_meets_the_goal() -> None:
    answers = waits_killed(lost_in_flight=8)
    cost = loss(answers, ACTION_MS)

    probe = judge(drill("kill-worker", endpoint="/async", rate=20), cost, WORKER_BACK)

    assert (cost.in_flight, cost.in_flight_failed, cost.failed_after) == (20, 8, 0)
    assert probe.verdict is Verdict.PASS
    assert probe.figures["in_flight_failed"] == 8
    assert probe.figures["whole_again_s"] == pytest.approx(0.003)
    assert "8 of the 20 in flight at the kill failed" in probe.observed
    assert "worker replaced after 0.03 s" in probe.observed


def test_a_killed_worker_losing_a_request_sent_after_the_kill_misses_the_goal() -> None:
    answers = timeline(waits_killed(lost_in_flight=0), [answer(ACTION_MS + 400, 502, 20)])

    assert judged("kill-worker", answers, WORKER_BACK) is Verdict.FAIL


def test_a_failure_before_the_kill_misses_the_kill_worker_goal() -> None:
    answers = timeline(hello_at_100(), [answer(1234, 500)])

    assert judged("kill-worker", answers, WORKER_BACK) is Verdict.FAIL


def test_a_worker_never_replaced_misses_the_goal_however_clean_the_answers() -> None:
    probe = judge(drill("kill-worker"), loss(hello_at_100(), ACTION_MS), {"workers": 2.0})

    assert probe.verdict is Verdict.FAIL
    assert "never replaced" in probe.observed
    assert "worker_back_s" not in probe.figures


@pytest.mark.parametrize(
    ("back_s", "verdict"),
    [(WHOLE_AGAIN_S - 0.001, Verdict.PASS), (WHOLE_AGAIN_S, Verdict.PASS), (2.001, Verdict.FAIL)],
)
def test_a_worker_must_be_back_within_two_seconds(back_s: float, verdict: Verdict) -> None:
    measured = {"workers": 2.0, "worker_back_s": back_s}

    assert judged("kill-worker", hello_at_100(), measured) is verdict


@pytest.mark.parametrize(
    ("last_failure_ms", "verdict"),
    [(ACTION_MS + 2000, Verdict.PASS), (ACTION_MS + 2010, Verdict.FAIL)],
)
def test_every_answer_must_be_a_2xx_again_within_two_seconds_of_the_kill(
    last_failure_ms: float, verdict: Verdict
) -> None:
    # A request in flight at the kill, re-sent by k6 on a new connection, failing late.
    late = answer(last_failure_ms, 0, duration_ms=last_failure_ms - ACTION_MS + 5)
    answers = timeline(hello_at_100(), [late])

    assert judged("kill-worker", answers, WORKER_BACK) is verdict


def test_a_kill_worker_run_that_ends_failing_misses_the_goal_and_says_so() -> None:
    answers = timeline(hello_at_100(0, ACTION_MS), hello_at_100(ACTION_MS + 100, 6000, status=0))

    probe = judge(drill("kill-worker"), loss(answers, ACTION_MS), WORKER_BACK)

    assert probe.verdict is Verdict.FAIL
    assert "not by the end of the run" in probe.observed
    assert "whole_again_s" not in probe.figures


def test_the_kill_worker_row_carries_the_runners_own_figures() -> None:
    probe = judge(drill("kill-worker"), loss(hello_at_100(), ACTION_MS), WORKER_BACK)

    assert probe.figures["answers"] == 1500
    assert probe.figures["workers"] == 2.0
    assert probe.figures["worker_back_s"] == 0.03
    assert probe.target == "hello-uvicorn: GET /hello at 100/s (drill kill-worker-test)"


# --- sigterm ----------------------------------------------------------------------------


def refused_while_restarting(
    duration_ms: float = 0.3, until_ms: float = ACTION_MS + 500
) -> list[TimedAnswer]:
    """hello at 100 requests/s, every request from the signal until `until_ms` refused."""
    return timeline(
        hello_at_100(0, ACTION_MS),
        [
            answer(at + duration_ms, 0, duration_ms)
            for at in range(int(ACTION_MS), int(until_ms), 10)
        ],
        hello_at_100(until_ms),
    )


def test_a_sigterm_that_refuses_new_requests_at_once_meets_the_servers_goal() -> None:
    answers = refused_while_restarting()
    cost = loss(answers, ACTION_MS)

    probe = judge(drill("sigterm"), cost, EXITED)

    # The server's goal is met though 50 requests were lost: the report's opening judges
    # the drill by those (reliability.lessons).
    assert probe.verdict is Verdict.PASS
    assert (cost.failed, cost.failed_after, cost.in_flight_failed) == (50, 50, 0)
    assert probe.figures["failed"] == 50
    assert "exit 0 after 0.27 s (grace 10 s)" in probe.observed
    assert "serving again 0.47 s after the signal" in probe.observed


def test_a_request_in_flight_at_the_sigterm_that_fails_misses_the_goal() -> None:
    cut = answer(ACTION_MS + 2, 0, duration_ms=30)  # sent 28 ms before the signal
    answers = timeline(hello_at_100(0, ACTION_MS), [cut], hello_at_100(ACTION_MS + 100))
    cost = loss(answers, ACTION_MS)

    assert cost.in_flight_failed == 1
    assert judge(drill("sigterm"), cost, EXITED).verdict is Verdict.FAIL


def test_a_request_in_flight_at_the_sigterm_answered_in_full_is_not_held_against_it() -> None:
    finished = answer(ACTION_MS + 240, 200, duration_ms=250)
    answers = timeline(hello_at_100(0, ACTION_MS), [finished], hello_at_100(ACTION_MS + 300))

    assert judged("sigterm", answers, EXITED) is Verdict.PASS


@pytest.mark.parametrize(
    ("refusal_ms", "verdict"),
    [(FAST_FAILURE_MS, Verdict.PASS), (FAST_FAILURE_MS + 0.1, Verdict.FAIL), (5000, Verdict.FAIL)],
)
def test_requests_a_stopping_server_refuses_must_fail_fast(
    refusal_ms: float, verdict: Verdict
) -> None:
    answers = refused_while_restarting(duration_ms=refusal_ms)

    assert judged("sigterm", answers, EXITED) is verdict


@pytest.mark.parametrize(
    ("exit_s", "exit_code", "verdict"),
    [(9.99, 0.0, Verdict.PASS), (10.0, -9.0, Verdict.FAIL), (10.0, 0.0, Verdict.FAIL)],
)
def test_the_server_must_exit_within_its_grace_period(
    exit_s: float, exit_code: float, verdict: Verdict
) -> None:
    # A server still running at its stop_grace_period is SIGKILLed then: exit_s == grace.
    measured = {**EXITED, "exit_s": exit_s, "exit_code": exit_code}

    assert judged("sigterm", refused_while_restarting(), measured) is verdict


def test_a_failure_before_the_signal_misses_the_sigterm_goal() -> None:
    answers = timeline(refused_while_restarting(), [answer(2000, 503, 3)])

    assert judged("sigterm", answers, EXITED) is Verdict.FAIL


def test_a_sigterm_drill_names_the_images_stop_signal() -> None:
    nginx = drill("sigterm", victim="hello-uwsgi-nginx", stop_signal="SIGQUIT")

    probe = judge(nginx, loss(hello_at_100(), ACTION_MS), EXITED)

    assert probe.probe == "SIGQUIT (docker stop) under constant load"
    assert probe.verdict is Verdict.PASS


def test_a_sigterm_after_which_the_server_never_serves_again_misses_the_goal() -> None:
    # Every request from the signal to the end refused at once: fast failures, a clean exit,
    # but the service never came back.
    answers = refused_while_restarting(until_ms=15_000)
    cost = loss(answers, ACTION_MS)

    probe = judge(drill("sigterm"), cost, EXITED)

    assert (cost.in_flight_failed, cost.slowest_failure_ms) == (0, 0.3)
    assert cost.whole_again_s is None
    assert probe.verdict is Verdict.FAIL
    assert "whole_again_s" not in probe.figures
    assert "never whole again" in probe.observed


# --- rolling restart and nginx reload ---------------------------------------------------


@pytest.mark.parametrize("kind", ["rolling-restart", "nginx-reload"])
def test_a_restart_or_reload_without_a_failed_request_meets_the_goal(kind: str) -> None:
    slow_but_answered = answer(ACTION_MS + 300, 200, duration_ms=310)
    answers = timeline(hello_at_100(), [slow_but_answered])

    probe = judge(drill(kind, victims=("a", "b")), loss(answers, ACTION_MS), {"exit_s": 0.16})

    assert probe.verdict is Verdict.PASS
    assert probe.figures["in_flight"] == 1
    assert probe.figures["exit_s"] == 0.16


@pytest.mark.parametrize("kind", ["rolling-restart", "nginx-reload"])
@pytest.mark.parametrize("failed_at_ms", [1000.0, ACTION_MS + 1, 14_990.0])
def test_one_failed_request_anywhere_in_the_run_misses_a_lossless_goal(
    kind: str, failed_at_ms: float
) -> None:
    answers = timeline(hello_at_100(), [answer(failed_at_ms, 503, 2)])

    assert judged(kind, answers, {}) is Verdict.FAIL


def test_a_rolling_restart_names_its_replicas_in_order() -> None:
    rolling = drill("rolling-restart", victim="", victims=("hello-replica-1", "hello-replica-2"))

    probe = judge(rolling, loss(hello_at_100(), ACTION_MS), {})

    assert probe.target.startswith("hello-replica-1 then hello-replica-2: GET /hello at 100/s")


def test_a_lossless_goal_row_says_how_many_failed_and_of_what_kind() -> None:
    answers = timeline(
        hello_at_100(), [answer(ACTION_MS + 5, 0), answer(ACTION_MS + 7, 503), answer(6000, 503)]
    )

    probe = judge(drill("nginx-reload"), loss(answers, ACTION_MS), {})

    assert probe.observed.startswith("3 failed of 1503 (1 without an answer, 2 503)")


def test_every_kind_judges_its_losses_on_the_same_figures() -> None:
    cost = Loss(
        answers=100,
        failed=3,
        failed_before=0,
        in_flight=2,
        in_flight_failed=1,
        failed_after=2,
        slowest_failure_ms=3.0,
        answered_after=60,
        whole_again_s=0.5,
        statuses={"0": 3},
    )

    for kind, measured in (
        ("kill-worker", WORKER_BACK),
        ("sigterm", EXITED),
        ("rolling-restart", {}),
        ("nginx-reload", {}),
    ):
        figures = judge(drill(kind), cost, measured).figures
        assert {k: figures[k] for k in ("answers", "failed", "in_flight_failed")} == {
            "answers": 100,
            "failed": 3,
            "in_flight_failed": 1,
        }
        assert figures["whole_again_s"] == 0.5


# --- no answers after the action --------------------------------------------------------


KINDS_MEASURED = (
    ("kill-worker", WORKER_BACK),
    ("sigterm", EXITED),
    ("rolling-restart", {}),
    ("nginx-reload", {}),
)


@pytest.mark.parametrize(("kind", "measured"), KINDS_MEASURED)
def test_a_drill_without_a_single_answer_misses_the_goal_and_says_why(
    kind: str, measured: Mapping[str, float]
) -> None:
    probe = judge(drill(kind, victims=("a", "b")), loss([], ACTION_MS), measured)

    assert probe.verdict is Verdict.FAIL
    assert probe.observed.startswith("no answers came after the action")


@pytest.mark.parametrize(("kind", "measured"), KINDS_MEASURED)
def test_a_drill_whose_load_ended_before_the_action_misses_the_goal(
    kind: str, measured: Mapping[str, float]
) -> None:
    # k6 stopped 1 s before the action: every answer a 2xx, none after it.
    answers = hello_at_100(0, ACTION_MS - 1000)

    probe = judge(drill(kind, victims=("a", "b")), loss(answers, ACTION_MS), measured)

    assert probe.figures["failed"] == 0
    assert probe.verdict is Verdict.FAIL
    assert probe.observed.startswith("no answers came after the action")
