"""The time left, replayed on committed runs: the plan from one run of a family, the cells'
times from another run of the same matrix, and at every cell boundary after the first minute
(elapsed plus the estimate of the time left) against the run's actual total."""

from __future__ import annotations

import io

import pytest

from servelab.bench.progress import Progress, time_left

# (plan, took) in seconds per cell, in the order the runner runs them (bench.runner._in_rounds:
# each worker count's cells, round after round), from docs/results/<family>.json of the two
# commits named: the plan is the first run's wall_s of the same cell (variant, workers,
# endpoint), the time taken the second run's. A cell of several rounds records one round's
# wall_s and appears once per round. Rounded to 0.1 s.
RUNS: dict[str, list[tuple[float, float]]] = {
    # entryeditor: plan from b0cc3c7 (2026-11-25), took from 5460259 (2026-11-26)
    "entryeditor": [
        (41.2, 13.0),
        (4.4, 4.4),
        (5.0, 5.4),
        (4.3, 4.3),
        (4.3, 4.4),
        (4.9, 5.3),
        (4.3, 4.3),
        (4.3, 4.4),
        (5.1, 5.5),
        (4.3, 4.4),
        (4.4, 4.4),
        (5.1, 5.5),
        (4.3, 4.3),
        (4.4, 4.5),
        (4.3, 4.3),
        (4.4, 4.4),
        (5.3, 5.4),
        (4.3, 4.4),
        (4.4, 4.4),
        (5.0, 5.3),
        (4.3, 4.3),
        (4.2, 4.3),
        (4.2, 4.3),
        (25.4, 13.5),
        (4.4, 4.4),
        (4.9, 5.2),
        (4.3, 4.3),
        (4.3, 4.4),
        (4.9, 5.2),
    ],
    # files: plan from 4da818b (2026-11-22), took from 377905a (2026-11-22)
    "files": [
        (5.5, 5.2),
        (5.5, 5.1),
        (5.5, 5.0),
        (5.6, 5.1),
        (5.3, 5.1),
        (5.6, 5.1),
        (5.5, 5.0),
        (5.5, 5.1),
        (5.5, 5.0),
        (5.7, 5.3),
        (5.4, 4.9),
        (5.6, 5.1),
        (5.4, 5.1),
        (5.6, 5.3),
        (5.5, 5.1),
        (5.6, 5.5),
        (6.4, 6.2),
        (6.6, 6.4),
        (5.6, 5.1),
        (5.7, 5.4),
        (5.4, 5.0),
        (5.6, 5.5),
        (5.4, 5.2),
        (5.6, 5.3),
        (5.6, 5.2),
        (5.6, 5.5),
        (5.8, 5.7),
        (6.0, 5.5),
        (5.8, 5.4),
        (5.8, 5.6),
        (6.0, 5.8),
        (6.0, 5.4),
        (5.3, 5.2),
        (5.5, 5.4),
        (5.4, 5.1),
        (5.4, 5.6),
        (4.6, 4.7),
        (5.0, 4.9),
        (4.6, 4.5),
    ],
    # health-code: plan from b0cc3c7 (2026-11-25), took from 5460259 (2026-11-26)
    "health-code": [
        (11.0, 10.3),
        (5.9, 7.5),
        (6.8, 9.8),
        (7.4, 8.1),
        (7.9, 9.8),
        (5.7, 8.5),
        (8.0, 8.6),
        (9.2, 8.5),
        (6.3, 8.6),
        (12.5, 15.9),
        (9.0, 12.0),
        (8.0, 11.0),
        (11.0, 15.0),
        (9.0, 13.3),
        (6.4, 9.0),
        (8.6, 10.7),
        (9.6, 11.0),
        (8.4, 10.0),
    ],
    # hello: plan from ed16f39 (2026-11-23), took from 74e93db (2026-11-23)
    "hello": [
        (9.6, 8.8),
        (10.1, 8.8),
        (11.0, 9.8),
        (9.6, 9.5),
        (10.5, 9.5),
        (10.1, 8.8),
        (9.8, 8.8),
        (10.1, 8.7),
        (10.4, 8.8),
        (10.0, 8.9),
        (10.3, 8.7),
        (9.8, 8.3),
        (9.0, 8.3),
        (9.2, 8.4),
    ],
    # observability: plan from f701578 (2026-11-23), took from b0cc3c7 (2026-11-25)
    "observability": [
        (8.9, 8.6),
        (9.3, 8.6),
        (8.8, 8.5),
        (8.9, 8.7),
        (8.1, 7.5),
        (8.1, 7.6),
        (9.0, 8.3),
        (9.2, 8.3),
    ],
    # replicas: plan from f701578 (2026-11-23), took from b0cc3c7 (2026-11-25)
    "replicas": [
        (6.8, 6.1),
        (6.9, 5.7),
        (6.9, 5.8),
        (7.3, 5.2),
        (7.0, 5.2),
        (7.0, 5.2),
        (11.6, 6.4),
        (11.0, 5.9),
        (12.0, 6.4),
        (7.6, 6.1),
        (8.6, 8.1),
        (7.0, 5.6),
        (7.3, 5.2),
        (8.7, 6.2),
        (6.5, 4.9),
        (12.2, 7.0),
        (13.3, 8.1),
        (10.9, 6.5),
    ],
    # wait: plan from b0cc3c7 (2026-11-25), took from 5460259 (2026-11-26)
    "wait": [
        (26.9, 27.8),
        (27.0, 28.2),
        (3.3, 4.0),
        (3.4, 3.8),
        (3.1, 3.7),
        (3.1, 3.9),
        (1.9, 2.2),
        (2.2, 2.7),
        (3.0, 3.3),
        (2.2, 2.2),
        (2.2, 2.5),
        (3.1, 3.4),
        (10.9, 11.2),
        (1.3, 1.6),
    ],
}

FIRST_MINUTE_S = 60.0


def _errors(
    cells: list[tuple[float, float]], cold: tuple[int, ...] = (0,), start: float = 0.0
) -> list[float]:
    """Relative error of elapsed + time left vs the actual total, at every boundary a
    minute after `start` (seconds into the run) or later."""
    planned = [plan for plan, _ in cells]
    took = [seconds for _, seconds in cells]
    total = sum(took)
    errors = []
    for done in range(1, len(cells)):
        elapsed = sum(took[:done])
        if elapsed < start + FIRST_MINUTE_S:
            continue
        left = time_left(planned, took[:done], cold)
        assert left is not None
        errors.append(abs(elapsed + left - total) / total)
    return errors


@pytest.mark.parametrize("family", sorted(RUNS))
def test_a_family_estimate_stays_within_a_fifth_after_the_first_minute(family: str) -> None:
    errors = _errors(RUNS[family])
    assert all(error <= 0.2 for error in errors), max(errors)


def test_a_run_of_every_family_stays_within_a_fifth_after_the_first_minute() -> None:
    # One process runs the families one after another: each family's first cell is a cold start.
    cells: list[tuple[float, float]] = []
    cold: list[int] = []
    for family in sorted(RUNS):
        cold.append(len(cells))
        cells += RUNS[family]
    errors = _errors(cells, tuple(cold))
    assert errors and max(errors) <= 0.2


def test_a_cold_first_cell_counts_for_itself_not_for_every_cell_left() -> None:
    # A fresh clone: the first cell ten times its plan (compiles, a database load), the
    # rest 1.3 times theirs.
    planned = [13.0] * 20
    took = [130.0]
    left = time_left(planned, took)
    assert left is not None
    remaining = 1.3 * 13.0 * 19
    assert abs(left - remaining) / remaining <= 0.2


def test_a_cold_start_added_to_each_family_of_the_committed_runs() -> None:
    # The committed runs with 140 s more in their first cell: its ratio is not multiplied
    # into every plan left, and from a minute after it the estimate is as good as without
    # it. (Right after the cold cell alone nothing tells a cold start from a slow machine.)
    for family, cells in RUNS.items():
        (plan, took), *rest = cells
        errors = _errors([(plan, took + 140.0), *rest], start=took + 140.0)
        assert max(errors, default=0.0) <= 0.2, family


def test_the_line_of_a_run_of_several_families_names_what_it_covers() -> None:
    out = io.StringIO()
    progress = Progress([10.0, 10.0, 20.0], out, parts=[("files", 2), ("hello", 1)])
    progress.begin(0, "uvicorn w1 upload")
    progress.end("done")
    progress.begin(1, "uvicorn w1 download")
    progress.end("done")
    progress.begin(0, "gunicorn w1 hello")
    lines = out.getvalue().splitlines()
    assert (
        lines[0]
        == "[files 1/2] uvicorn w1 upload  (about 0:20 left in files, 0:40 in all 2 families)"
    )
    assert lines[2].startswith("[files 2/2] uvicorn w1 download  (about 0:")
    assert lines[4].startswith("[hello 1/1] gunicorn w1 hello  (about 0:")
    assert "in hello" in lines[4] and "in all 2 families" in lines[4]
