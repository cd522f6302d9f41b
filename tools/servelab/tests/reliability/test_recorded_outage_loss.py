"""What an outage drill counts as lost, read from recorded request timelines: which answers
failed and when their request was sent (before the action, in flight at it, after it), how
long until every answer was a 2xx again, and the before / down / after windows of a
timeline. data/sigterm-hello-answers.csv is a k6 CSV as loadtests/outage.js writes it: a
hello server at 10 requests/s, SIGTERMed 1.05 s in, refusing 4 connections, then a 502 and
a 503 from the restarting stack, then 2xx again."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.reliability.outage.analysis import (
    Events,
    TimedAnswer,
    Window,
    analyse,
    per_second,
    read_answers,
)
from servelab.reliability.outage.loss import loss

RECORDED = Path(__file__).parent / "data" / "sigterm-hello-answers.csv"
# The recorded run's first request went out at T0; the signal at T0 + 1.05 s; the server
# passed its healthcheck again at T0 + 1.65 s.
T0 = 1_795_856_069_000.0
SIGNAL_MS = T0 + 1050
HEALTHY_MS = T0 + 1650
RECORDED_EVENTS = Events(killed_ms=SIGNAL_MS, restarted_ms=HEALTHY_MS, healthy_ms=HEALTHY_MS)


def answered(
    at_ms: float, status: int, duration_ms: float = 2.0, retry: bool = False
) -> TimedAnswer:
    """An answer arriving `at_ms` into the run (the action is at 1000 ms below)."""
    return TimedAnswer(at_ms, duration_ms, status, retry)


def steady(
    start_ms: float, end_ms: float, status: int = 200, every_ms: float = 100
) -> list[TimedAnswer]:
    """Answers every `every_ms` from `start_ms` up to (not including) `end_ms`."""
    count = int((end_ms - start_ms) // every_ms)
    return [answered(start_ms + n * every_ms, status) for n in range(count)]


# --- reading k6's CSV -----------------------------------------------------------------


def test_only_the_drills_own_metric_is_read_and_answers_come_sorted_by_arrival() -> None:
    answers = read_answers(RECORDED)

    # 30 requests; k6 wrote the same requests' http_reqs, http_req_duration and checks
    # rows too, and one answer late (flushed in a later batch): none of that counts twice.
    assert len(answers) == 30
    assert [a.at_ms for a in answers] == sorted(a.at_ms for a in answers)
    assert answers[0] == TimedAnswer(T0 + 1.2, 1.2, 200, False)


def test_a_request_without_an_answer_reads_as_status_0_and_retry_after_from_its_tag() -> None:
    answers = read_answers(RECORDED)

    assert [a.status for a in answers if not a.ok] == [0, 0, 0, 0, 502, 503]
    assert [a.status for a in answers if a.retry_after] == [503]


# --- the loss at the action on the recorded run ----------------------------------------


def test_the_recorded_sigterm_loses_only_requests_sent_after_the_signal() -> None:
    cost = loss(read_answers(RECORDED), SIGNAL_MS)

    assert (cost.answers, cost.failed, cost.failed_before) == (30, 6, 0)
    # The requests sent at T0 + 0.9 s (200 ms long) and T0 + 1.0 s (80 ms) were in flight at
    # the signal, and the stopping server finished both.
    assert (cost.in_flight, cost.in_flight_failed) == (2, 0)
    assert cost.failed_after == 6
    assert cost.statuses == {"0": 4, "502": 1, "503": 1}


def test_the_recorded_sigterms_slowest_refusal_and_time_until_whole_again() -> None:
    cost = loss(read_answers(RECORDED), SIGNAL_MS)

    # A reset after 7 ms was the slowest failure; the 503 at T0 + 1.602 s the last one.
    assert cost.slowest_failure_ms == 7.0
    assert cost.whole_again_s == pytest.approx(0.552)


# --- which answers count as lost, on small timelines (the action at 1000 ms) ------------


def test_a_request_answered_after_the_kill_but_sent_before_it_is_in_flight_not_lost() -> None:
    answers = [*steady(0, 1000), answered(1150, 200, duration_ms=300), *steady(1200, 2000)]

    cost = loss(answers, 1000)

    assert (cost.in_flight, cost.in_flight_failed, cost.failed) == (1, 0, 0)
    assert cost.whole_again_s == 0


def test_a_request_cut_while_in_flight_counts_as_an_in_flight_failure_not_a_later_one() -> None:
    answers = [*steady(0, 1000), answered(1004, 0, duration_ms=10), *steady(1100, 2000)]

    cost = loss(answers, 1000)

    assert (cost.in_flight_failed, cost.failed_after, cost.failed_before) == (1, 0, 0)
    # It failed after the action, so the service was whole again only after it.
    assert cost.whole_again_s == pytest.approx(0.004)


def test_an_answer_arriving_exactly_at_the_action_counts_as_after_it() -> None:
    cost = loss([answered(500, 200), answered(1000, 0, duration_ms=5), answered(1500, 200)], 1000)

    assert cost.failed_before == 0
    assert (cost.in_flight, cost.in_flight_failed) == (1, 1)
    assert cost.whole_again_s == 0.0


def test_a_request_sent_exactly_at_the_action_is_sent_after_it_not_in_flight() -> None:
    cost = loss([answered(500, 200), answered(1001, 0, duration_ms=1), answered(1500, 200)], 1000)

    assert (cost.in_flight, cost.failed_after) == (0, 1)


def test_a_failure_before_the_action_is_counted_apart_and_does_not_delay_whole_again() -> None:
    answers = [answered(300, 500), *steady(400, 1000), *steady(1000, 2000)]

    cost = loss(answers, 1000)

    assert (cost.failed, cost.failed_before, cost.failed_after) == (1, 1, 0)
    assert cost.whole_again_s == 0.0
    assert cost.statuses == {"500": 1}


@pytest.mark.parametrize(
    ("status", "lost"),
    [(199, True), (200, False), (204, False), (299, False), (300, True), (304, True), (0, True)],
)
def test_only_a_2xx_is_an_answer_that_was_not_lost(status: int, lost: bool) -> None:
    cost = loss([answered(1100, status), answered(1200, 200)], 1000)

    assert cost.failed == int(lost)


def test_every_kind_of_failure_is_counted_by_its_status_sorted() -> None:
    answers = [
        answered(1100, 503, retry=True),
        answered(1150, 0, duration_ms=5000),  # k6's request timeout
        answered(1200, 502),
        answered(1250, 0),  # connection refused
        answered(1300, 503),
        answered(1400, 200),
    ]

    cost = loss(answers, 1000)

    assert list(cost.statuses.items()) == [("0", 2), ("502", 1), ("503", 2)]
    assert cost.failed == 5


def test_the_slowest_failure_is_of_the_requests_sent_after_the_action_only() -> None:
    # A request stuck through the action until k6's 5 s timeout is an in-flight failure:
    # it says nothing about how fast the stopping server refuses new ones.
    answers = [
        answered(5900, 0, duration_ms=5000),
        answered(1100, 0, duration_ms=0.25),
        answered(1200, 0, duration_ms=12.34),
        answered(6000, 200),
    ]

    cost = loss(sorted(answers, key=lambda a: a.at_ms), 1000)

    assert cost.in_flight_failed == 1
    assert cost.slowest_failure_ms == 12.3


def test_a_run_that_ends_on_a_failure_is_never_whole_again() -> None:
    answers = [*steady(0, 2000), answered(2500, 0)]

    assert loss(answers, 1000).whole_again_s is None


def test_a_loss_at_the_last_sample_after_recovery_still_means_never_whole_again() -> None:
    # Whole again for a second, then the very last answer failed: the run ended failing.
    answers = [answered(1100, 0), *steady(1200, 2200), answered(2300, 503)]

    cost = loss(answers, 1000)

    assert cost.whole_again_s is None
    assert cost.failed_after == 2


def test_every_answer_lost_counts_them_all_and_is_never_whole_again() -> None:
    answers = [answered(1000 + 100 * n, 0, duration_ms=1) for n in range(1, 11)]

    cost = loss(answers, 1000)

    assert (cost.answers, cost.failed, cost.failed_after) == (10, 10, 10)
    assert cost.whole_again_s is None
    assert cost.statuses == {"0": 10}


def test_no_answers_at_all_count_nothing_lost_and_never_whole_again() -> None:
    cost = loss([], 1000)

    assert (cost.answers, cost.failed, cost.in_flight, cost.answered_after) == (0, 0, 0, 0)
    assert (cost.slowest_failure_ms, cost.whole_again_s, cost.statuses) == (0.0, None, {})


def test_a_load_that_ended_before_the_action_is_never_seen_whole_again() -> None:
    cost = loss(steady(0, 900), 1000)

    assert (cost.answers, cost.failed, cost.answered_after) == (9, 0, 0)
    assert cost.whole_again_s is None


def test_the_answers_after_the_action_are_counted() -> None:
    assert loss(steady(0, 2000), 1000).answered_after == 10


def test_whole_again_is_measured_from_the_action_to_the_last_failure_not_the_first_success() -> (
    None
):
    answers = [
        answered(1100, 0),
        answered(1200, 200),  # a success between two failures
        answered(1900, 503, retry=True),
        *steady(2000, 3000),
    ]

    assert loss(answers, 1000).whole_again_s == pytest.approx(0.9)


# --- the windows of a timeline (analyse) ------------------------------------------------


def test_the_recorded_timeline_in_its_before_down_and_after_windows() -> None:
    outcome = analyse(read_answers(RECORDED), RECORDED_EVENTS)

    assert (outcome.before.answers, outcome.before.ok) == (9, 9)
    down = outcome.down
    assert (down.answers, down.ok, down.status_503, down.with_retry_after, down.other) == (
        8,
        2,
        1,
        1,
        5,
    )
    assert (down.p50_ms, down.p99_ms, down.max_ms) == (2.1, 200.0, 200.0)
    assert (outcome.after.answers, outcome.after.ok) == (13, 13)
    assert outcome.unavailable_503.answers == 1


def test_the_recorded_timelines_recovery_figures() -> None:
    outcome = analyse(read_answers(RECORDED), RECORDED_EVENTS)

    assert outcome.service_back_s == 0.0  # restarted and healthy are one mark for SIGTERM
    assert outcome.first_ok_after_s == pytest.approx(0.051)
    assert outcome.recovered_after_s == 0.0
    assert outcome.start_ms == T0 + 1.2


def test_the_recorded_timelines_seconds_count_from_the_first_answer() -> None:
    outcome = analyse(read_answers(RECORDED), RECORDED_EVENTS)

    # Second 1 runs from T0 + 1.0012 s to T0 + 2.0012 s: the answer at T0 + 2.0011 s is in it.
    assert [s["answers"] for s in outcome.seconds] == [9, 12, 9]
    assert outcome.seconds[1] | {"p50_ms": 0, "max_ms": 0} == {
        "second": 1,
        "answers": 12,
        "ok": 6,
        "503": 1,
        "other": 5,
        "p50_ms": 0,
        "max_ms": 0,
    }


def test_answers_at_the_kill_are_down_and_at_the_healthcheck_are_after() -> None:
    answers = [answered(999, 200), answered(1000, 503), answered(2999, 503), answered(3000, 200)]

    outcome = analyse(answers, Events(killed_ms=1000, restarted_ms=2000, healthy_ms=3000))

    assert (outcome.before.answers, outcome.down.answers, outcome.after.answers) == (1, 2, 1)
    assert outcome.first_ok_after_s == 0.0


def test_recovered_counts_from_the_healthcheck_to_the_last_failure_after_it() -> None:
    answers = [answered(500, 200), answered(3200, 0), answered(3700, 502), *steady(3800, 4500)]

    outcome = analyse(answers, Events(killed_ms=1000, restarted_ms=2000, healthy_ms=3000))

    assert outcome.recovered_after_s == pytest.approx(0.7)
    assert outcome.first_ok_after_s == pytest.approx(0.8)
    assert outcome.after.other == 2


def test_without_a_single_answer_after_the_healthcheck_there_is_no_recovery() -> None:
    answers = [answered(500, 200), answered(1500, 503)]

    outcome = analyse(answers, Events(killed_ms=1000, restarted_ms=2000, healthy_ms=3000))

    assert outcome.recovered_after_s is None
    assert outcome.first_ok_after_s is None
    assert outcome.after.answers == 0


def test_an_empty_timeline_has_empty_windows_and_no_recovery() -> None:
    outcome = analyse([], Events(killed_ms=1000, restarted_ms=2000, healthy_ms=3000))

    assert outcome.before == outcome.down == outcome.after == Window.of([])
    assert (outcome.recovered_after_s, outcome.first_ok_after_s) == (None, None)
    assert (outcome.start_ms, outcome.seconds) == (0.0, [])


def test_retry_after_is_counted_on_503s_alone() -> None:
    window = Window.of(
        [answered(1, 503, retry=True), answered(2, 503), answered(3, 429, retry=True)]
    )

    assert (window.status_503, window.with_retry_after, window.other) == (2, 1, 1)


def test_a_window_reads_its_percentiles_by_nearest_rank() -> None:
    window = Window.of([answered(n, 200, duration_ms=float(n)) for n in range(1, 101)])

    assert (window.p50_ms, window.p99_ms, window.max_ms) == (51.0, 100.0, 100.0)
    assert Window.of([answered(1, 200, duration_ms=7.0)]).p99_ms == 7.0


def test_a_second_without_answers_is_a_gap_in_the_timeline() -> None:
    # The server answered nothing from 1 s to 3 s: those seconds have no row at all.
    answers = [*steady(0, 1000), *steady(3000, 4000)]

    seconds = per_second(answers, 0)

    assert [int(s["second"]) for s in seconds] == [0, 3]
    assert all(s["answers"] == 10 for s in seconds)
