"""The report's opening (servelab.reliability.lessons) on recorded drill rows: per drill
kind, the worst and best case by requests lost, then by time until every answer was a 2xx
again. The rows are shaped after the saved kill-worker section
(docs/results/reliability/kill-worker.json): 1,501 answers at 100 requests/s."""

from __future__ import annotations

from servelab.reliability.lessons import lessons
from servelab.reliability.rows import Row, Section, Verdict


def drill(target: str, failed: int, whole_again_s: float | None) -> Row:
    """A kill-worker row; `whole_again_s` None: the run ended failing (left out of the
    figures, as the verdict leaves it)."""
    figures = {"answers": 1501.0, "failed": float(failed)}
    if whole_again_s is not None:
        figures["whole_again_s"] = whole_again_s
    return Row(
        probe="one worker SIGKILLed under constant load",
        target=f"{target}: GET /hello at 100/s (drill kill-worker-{target})",
        expected="at most the in-flight requests lost",
        observed="...",
        verdict=Verdict.PASS,
        figures=figures,
    )


def opening(*rows: Row) -> list[str]:
    """The cells of the opening's one row: event, worst case, best case, what to do."""
    section = Section(
        "kill-worker", "One worker SIGKILLed", "servelab outage", "today", "here", rows
    )
    last = [line for line in lessons([section]) if line.startswith("|")][-1]
    return [cell.strip() for cell in last.split("|")[1:-1]]


def test_a_run_never_whole_again_says_so_instead_of_zero_seconds() -> None:
    _, worst, _, _ = opening(drill("hello-granian", 3, None))

    assert worst == "hello-granian: GET /hello at 100/s: 3 of 1,501 lost, never whole again"


def test_a_run_never_whole_again_is_the_worst_of_equal_losses_never_the_best() -> None:
    _, worst, best, _ = opening(
        drill("hello-uvicorn", 3, 0.4),
        drill("hello-granian", 3, None),
        drill("hello-gunicorn", 3, 1.2),
    )

    assert worst.startswith("hello-granian: ")
    assert best.startswith("hello-uvicorn: ")


def test_the_share_lost_ranks_before_the_time_until_whole_again() -> None:
    _, worst, best, _ = opening(drill("hello-uvicorn", 9, 0.1), drill("hello-granian", 3, None))

    assert worst.endswith("9 of 1,501 lost, every answer a 2xx again after 0.1 s")
    assert best.startswith("hello-granian: ")
