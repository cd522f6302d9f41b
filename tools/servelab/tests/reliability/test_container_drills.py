"""Container drills (servelab.reliability.containers): what clients saw read from k6's
answers, the family specs' drills, and the crash drill end to end in the private engine."""

from __future__ import annotations

import pytest

from servelab.containers.engine import Engine
from servelab.project import Project
from servelab.reliability.containers.answers import RETRY_AFTER, Answer, lost_kind, seen
from servelab.reliability.containers.cli import container_drills
from servelab.reliability.containers.objects import Entry, compare_entries
from servelab.reliability.containers.run import execute
from servelab.reliability.containers.verdicts import ADVICE, EVENTS, SECTION
from servelab.reliability.lessons import lessons
from servelab.reliability.rows import Row, Section, Verdict

ACTION_MS = 10_000.0


def _answer(at_ms: float, lost: str | None = None, duration_ms: float = 5.0) -> Answer:
    return Answer(at_ms, duration_ms, lost)


def test_failures_are_named_by_kind() -> None:
    assert lost_kind(None, retry_after=False) is None
    assert lost_kind("connect", retry_after=False) == "connection refused"
    assert lost_kind("read", retry_after=False) == "connection reset"
    assert lost_kind("timeout", retry_after=False) == "timeout"
    assert lost_kind("status 503", retry_after=True) == RETRY_AFTER
    assert lost_kind("status 503", retry_after=False) == "503 without Retry-After"
    assert lost_kind("status 502", retry_after=False) == "5xx (502)"


def test_a_restart_costs_what_was_refused_and_the_gap_until_the_first_success() -> None:
    answers = [
        _answer(9_000),
        _answer(9_950),
        _answer(10_050, "connection refused"),
        _answer(10_500, RETRY_AFTER),
        _answer(12_100, duration_ms=50),  # sent at 12 050, after the action
        _answer(12_300),
    ]
    what = seen(answers, ACTION_MS)
    assert what.lost == {"connection refused": 1, RETRY_AFTER: 1}
    assert (what.lost_total, what.bad) == (2, 1)
    assert what.longest_gap_s == pytest.approx(2.15)
    assert what.serving_again_s == pytest.approx(2.1)
    assert what.whole_again_s == pytest.approx(0.5)


def test_a_run_that_ends_failing_never_served_again_and_ends_in_its_longest_gap() -> None:
    answers = [_answer(9_000), _answer(9_500), *(_answer(at, "connection refused") for at in (
        10_100, 11_000, 14_000))]  # fmt: skip
    what = seen(answers, ACTION_MS)
    assert what.serving_again_s is None
    assert what.whole_again_s is None
    assert what.longest_gap_s == pytest.approx(4.5)


def test_the_shipped_container_drills_parse(project: Project) -> None:
    drills = container_drills(project)
    assert {"docker-kill-hello-gunicorn", "crash-hello-gunicorn"} <= set(drills)
    for drill in drills.values():
        assert drill.victim in drill.services
        assert 0 < drill.at_s < drill.duration_s


@pytest.mark.containers
@pytest.mark.timeout(600)
def test_a_crashed_app_container_is_restarted_by_its_policy_and_serves_again(
    docker_engine: Engine, base_images: object, project: Project
) -> None:
    """hello-gunicorn-sync's main process SIGKILLed under load: its restart policy brings
    it back, healthy within 30 s, with no hand; what clients lost is only what the dead
    container could not answer (refused or reset connections, never a 5xx), and every
    answer after it is a 2xx."""
    drill = container_drills(project)["crash-hello-gunicorn"].model_copy(
        update={"duration_s": 20.0}
    )
    ran = execute(project, drill, docker_engine)
    assert ran.acted.figures["restarts"] == 1
    assert ran.acted.figures["back_s"] <= drill.goal_s
    assert ran.seen.serving_again_s is not None
    assert ran.seen.serving_again_s <= drill.goal_s
    assert ran.seen.whole_again_s is not None
    assert set(ran.seen.lost) <= {"connection refused", "connection reset"}
    assert ran.seen.answers >= drill.rate * drill.duration_s * 0.9
    assert ran.row.verdict is (Verdict.PASS if not ran.seen.lost else Verdict.FAIL)
    assert ran.disk == "`hello-gunicorn-sync`'s writable layer unchanged"


def test_the_report_opens_with_a_lesson_per_container_event() -> None:
    crash = EVENTS["crash"]
    rows = [
        Row(crash, f"hello: GET /hello at 20/s (drill {name})", "goal", "seen", Verdict.FAIL,
            {"answers": 400.0, "failed": failed, "whole_again_s": 0.2})
        for name, failed in (("a", 4.0), ("b", 9.0))
    ]  # fmt: skip
    section = Section(SECTION, "Containers", "servelab container-drill --all", "now", "m", rows)
    opening = "\n".join(lessons([section]))
    assert f"[{crash}](#{SECTION})" in opening
    assert "hello: GET /hello at 20/s: 9 of 400 lost" in opening
    assert ADVICE[crash] in opening
    assert EVENTS["oom"] not in opening  # no drill of that kind ran


def test_entries_are_told_apart_kept_written_again_created_anew_or_missing() -> None:
    before = {str(n): Entry("水", 3, "t0") for n in range(1, 5)}
    after = {
        "1": Entry("水", 3, "t0"),
        "2": Entry("水", 4, "t1"),  # the database kept it; something wrote it since
        "3": Entry("水", 1, "t1"),  # what was there is gone
    }
    assert compare_entries(before, after) == {
        "same": 1, "written again": 1, "created anew": 1, "missing": 1
    }  # fmt: skip
