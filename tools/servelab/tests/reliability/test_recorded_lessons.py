"""The report's opening (servelab.reliability.lessons) on recorded drill rows: per drill
kind, the worst and best case by requests lost, then by time until every answer was a 2xx
again. The rows are shaped after the saved kill-worker section
(docs/results/reliability/kill-worker.json): 1,501 answers at 100 requests/s."""

from __future__ import annotations

from servelab.reliability.lessons import lessons
from servelab.reliability.rows import Row, Section, Verdict


def drill_row(target: str, failed: int, answers: int = 1501, back_s: float | None = 0.0) -> Row:
    """A drill's row; `back_s` None: the run ended failing (left out of the figures, as the
    verdict leaves it)."""
    figures = {"answers": float(answers), "failed": float(failed)}
    if back_s is not None:
        figures["whole_again_s"] = back_s
    return Row(
        probe="SIGTERM (docker stop) under constant load",
        target=f"{target}: GET /hello at 100/s (drill sigterm-{target})",
        expected="0 failed of the requests in flight at the signal",
        observed="",
        verdict=Verdict.PASS,
        figures=figures,
    )


def section(name: str, *probes: Row) -> Section:
    return Section(name, f"{name} drills", f"servelab outage --kind {name}", "w", "m", probes)


def lesson_rows(sections: list[Section]) -> list[str]:
    return [line for line in lessons(sections) if line.startswith("| [")]


def opening(*rows: Row) -> list[str]:
    """The cells of the opening's one row: event, worst case, best case, what to do."""
    (line,) = lesson_rows([section("kill-worker", *rows)])
    return [cell.strip() for cell in line.split("|")[1:-1]]


def test_a_run_never_whole_again_says_so_instead_of_zero_seconds() -> None:
    _, worst, _, _ = opening(drill_row("hello-granian", 3, back_s=None))

    assert worst == "hello-granian: GET /hello at 100/s: 3 of 1,501 lost, never whole again"


def test_a_run_never_whole_again_is_the_worst_of_equal_losses_never_the_best() -> None:
    _, worst, best, _ = opening(
        drill_row("hello-uvicorn", 3, back_s=0.4),
        drill_row("hello-granian", 3, back_s=None),
        drill_row("hello-gunicorn", 3, back_s=1.2),
    )

    assert worst.startswith("hello-granian: ")
    assert best.startswith("hello-uvicorn: ")


def test_the_share_lost_ranks_before_the_time_until_whole_again() -> None:
    _, worst, best, _ = opening(
        drill_row("hello-uvicorn", 9, back_s=0.1), drill_row("hello-granian", 3, back_s=None)
    )

    assert worst.endswith("9 of 1,501 lost, every answer a 2xx again after 0.1 s")
    assert best.startswith("hello-granian: ")


def test_the_worst_case_is_the_largest_share_lost_not_the_most_requests() -> None:
    sigterm = section(
        "sigterm",
        drill_row("hello-granian", 50, back_s=0.495),  # 3.3 %
        drill_row("wait-gunicorn", 26, answers=301, back_s=1.376),  # 8.6 %
        drill_row("hello-uwsgi-nginx", 1, back_s=0.009),  # 0.07 %
    )

    (line,) = lesson_rows([sigterm])

    worst, best = line.split(" | ")[1:3]
    assert worst.startswith("wait-gunicorn: GET /hello at 100/s: 26 of 301 lost")
    assert "every answer a 2xx again after 1.4 s" in worst
    assert best.startswith("hello-uwsgi-nginx: GET /hello at 100/s: 1 of 1,501 lost")


def test_equal_shares_lost_are_ranked_by_the_time_to_be_whole_again() -> None:
    reload = section("nginx-reload", drill_row("slow-back", 0, back_s=0.3), drill_row("at-once", 0))

    (line,) = lesson_rows([reload])

    worst, best = line.split(" | ")[1:3]
    assert worst.startswith("slow-back")
    assert best.startswith("at-once")


def test_the_kinds_are_ordered_by_their_worst_share_lost() -> None:
    sections = [
        section("kill-worker", drill_row("wait-uvicorn", 7, answers=301)),  # 2.3 %
        section("rolling-restart", drill_row("hello-replicas", 0, answers=2001)),
        section("sigterm", drill_row("hello-uvicorn", 230)),  # 15.3 %
    ]

    names = [line.split("](#")[1].split(")")[0] for line in lesson_rows(sections)]

    assert names == ["sigterm", "kill-worker", "rolling-restart"]


def test_only_drill_kinds_with_a_lesson_and_rows_with_losses_open_the_report() -> None:
    fuzz = section("fuzz-files", drill_row("files-uvicorn", 3))
    no_figures = Row("p", "t", "e", "o", Verdict.PASS, {"workers": 2.0})
    empty_kill = section("kill-worker", no_figures)

    assert lessons([fuzz, empty_kill]) == []
    assert lessons([]) == []


def test_a_drill_without_answers_counts_as_nothing_lost_not_a_division_by_zero() -> None:
    (line,) = lesson_rows([section("sigterm", drill_row("hello-uvicorn", 0, answers=0))])

    assert "hello-uvicorn: GET /hello at 100/s: 0 of 0 lost" in line
