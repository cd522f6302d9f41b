from __future__ import annotations

import io

from servelab.bench.progress import Progress, clock, eta_s


def test_eta_uses_the_estimate_until_cells_are_done() -> None:
    assert eta_s([], remaining=10, estimate_s=7.5) == 75.0
    assert eta_s([4.0, 6.0], remaining=3, estimate_s=100.0) == 15.0
    assert eta_s([], remaining=3, estimate_s=None) is None
    assert eta_s([4.0], remaining=3, estimate_s=None) == 12.0


def test_clock() -> None:
    assert clock(0) == "0:00"
    assert clock(61.4) == "1:01"
    assert clock(3600) == "60:00"


def test_progress_names_the_cell_and_time_left() -> None:
    out = io.StringIO()
    progress = Progress(total=2, estimate_s=30.0, stream=out)
    progress.begin(0, "uvicorn w1 upload/single")
    progress.end("123.4 req/s")
    lines = out.getvalue().splitlines()
    assert lines == ["[1/2] uvicorn w1 upload/single  (about 1:00 left)", "    123.4 req/s"]


def test_progress_without_an_estimate_names_no_time_until_a_cell_is_done() -> None:
    out = io.StringIO()
    progress = Progress(total=2, estimate_s=None, stream=out)
    progress.begin(0, "uvicorn w1 hey /sync")
    progress.end("done")
    progress.begin(1, "uvicorn w1 hey /async")
    first, _, second = out.getvalue().splitlines()
    assert first == "[1/2] uvicorn w1 hey /sync"
    assert second.startswith("[2/2] uvicorn w1 hey /async  (about 0:")
