"""The time left follows each remaining cell's plan plus what cells cost beyond it so far:
one slow first cell (a stack's cold start) does not multiply into every cell left."""

from __future__ import annotations

import io

from servelab.bench.progress import OVERHEAD_S, Progress, clock, time_left


def test_before_any_cell_the_plan_and_the_default_overhead() -> None:
    assert time_left([10.0, 20.0], []) == 30.0 + 2 * OVERHEAD_S


def test_a_slow_first_cell_counts_once_not_for_every_cell_left() -> None:
    planned = [5.0] * 10
    # The first cell took 65 s (a cold start), the next two 7 s: 2 s over plan is typical.
    left = time_left(planned, [65.0, 7.0, 7.0])
    assert left == 7 * (5.0 + 2.0)
    # A mean of the cells done would have said 7 x 26.3 s.


def test_counted_cells_have_no_estimate_until_one_is_done() -> None:
    assert time_left([None, None, 5.0], []) is None
    assert time_left([None, None, 5.0], [12.0]) == 12.0 + 5.0 + OVERHEAD_S


def test_clock() -> None:
    assert clock(0) == "0:00"
    assert clock(61.4) == "1:01"
    assert clock(3600) == "60:00"


def test_progress_names_the_cell_and_time_left() -> None:
    out = io.StringIO()
    progress = Progress([25.5, 25.5], stream=out)
    progress.begin(0, "uvicorn w1 upload/single")
    progress.end("123.4 req/s")
    lines = out.getvalue().splitlines()
    assert lines == ["[1/2] uvicorn w1 upload/single  (about 1:00 left)", "    123.4 req/s"]


def test_progress_without_a_plan_names_no_time_until_a_cell_is_done() -> None:
    out = io.StringIO()
    progress = Progress([None, None], stream=out)
    progress.begin(0, "uvicorn w1 hey /sync")
    progress.end("done")
    progress.begin(1, "uvicorn w1 hey /async")
    first, _, second = out.getvalue().splitlines()
    assert first == "[1/2] uvicorn w1 hey /sync"
    assert second.startswith("[2/2] uvicorn w1 hey /async  (about 0:")
