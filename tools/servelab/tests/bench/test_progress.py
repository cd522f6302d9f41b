"""The time left follows each remaining cell's plan (its reference time, or its load time
and the overhead) times how this machine compares so far: one slow first cell (a stack's
cold start) does not multiply into every cell left."""

from __future__ import annotations

import io

from servelab.bench.progress import Progress, clock, time_left


def test_before_any_cell_the_plans_themselves() -> None:
    assert time_left([10.0, 20.0], []) == 30.0


def test_a_slow_first_cell_counts_once_not_for_every_cell_left() -> None:
    planned = [5.0] * 10
    # The first cell took 65 s (a cold start), the next two 6 s: 1.2 times the plan.
    left = time_left(planned, [65.0, 6.0, 6.0])
    assert left is not None
    assert 7 * 5.0 < left < 7 * 6.5
    # A mean of the cells done would have said 7 x 25.7 s.


def test_a_slower_machine_scales_every_plan() -> None:
    # Past its first cell (which counts as at most COLD_CAP), every cell twice its plan.
    left = time_left([10.0] * 20, [20.0] * 10)
    assert left is not None
    assert 10 * 17.0 < left <= 10 * 20.0


def test_counted_cells_count_as_those_of_their_endpoint_once_one_is_done() -> None:
    planned = ["hey /sync", "hey /sync", "hey /async", 5.0]
    assert time_left(planned, []) is None
    # One /sync burst took 30 s: the other /sync takes as long, /async as any counted one.
    assert time_left(planned, [30.0]) == 30.0 + 30.0 + 5.0
    assert time_left(planned, [30.0, 30.0, 3.0]) == 5.0


def test_clock() -> None:
    assert clock(0) == "0:00"
    assert clock(61.4) == "1:01"
    assert clock(3600) == "60:00"


def test_progress_names_the_cell_and_time_left() -> None:
    out = io.StringIO()
    progress = Progress([30.0, 30.0], stream=out)
    progress.begin(0, "uvicorn w1 upload/single")
    progress.end("123.4 req/s")
    lines = out.getvalue().splitlines()
    assert lines == ["[1/2] uvicorn w1 upload/single  (about 1:00 left)", "    123.4 req/s"]


def test_progress_without_a_plan_names_no_time_until_a_cell_is_done() -> None:
    out = io.StringIO()
    progress = Progress(["hey /sync", "hey /async"], stream=out)
    progress.begin(0, "uvicorn w1 hey /sync")
    progress.end("done")
    progress.begin(1, "uvicorn w1 hey /async")
    first, _, second = out.getvalue().splitlines()
    assert first == "[1/2] uvicorn w1 hey /sync"
    assert second.startswith("[2/2] uvicorn w1 hey /async  (about 0:")
