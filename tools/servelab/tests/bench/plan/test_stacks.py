"""Kept stacks: one start per variant and worker count, emptied volumes, a fresh start after
a crash; and a real run where two cells share one server."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TextIO

import pytest

from servelab.bench.measure.cpus import Pinning
from servelab.bench.plan.matrix import Cell, Matrix, parse_matrix
from servelab.bench.plan.stacks import Stacks
from servelab.bench.runner import run_matrix
from servelab.project import Project

_UNPINNED = Pinning(None, None)


class _FakeStack:
    """Start, stop, a volume and whether its server has exited: what Stacks uses."""

    def __init__(self, root: Path, name: str) -> None:
        self.run_dir = root / name
        self.stopped = False
        self.crashed = False

    def start(self) -> None:
        self.volume("data").mkdir(parents=True)

    def stop(self) -> None:
        self.stopped = True

    def exited(self) -> list[str]:
        return ["server"] if self.crashed else []

    def volume(self, name: str) -> Path:
        return self.run_dir / "volumes" / name


def _matrix(workers: list[int]) -> Matrix:
    return parse_matrix(
        {
            "family": "stacks-test",
            "write_up": "loadtests/reference/hello.toml",
            "stacks": {"keep": True, "clear": ["data"]},
            "load": {"quick": {"vus": 1, "duration_s": 1}},
            "variants": {
                name: {
                    "profile": name,
                    "service": name,
                    "endpoints": "e",
                    "workers": {"quick": workers},
                }
                for name in ("a", "b")
            },
            "endpoints": {"e": [{"key": k, "script": "hello.js"} for k in ("one", "two")]},
        }
    )


def _stacks(tmp_path: Path, started: list[_FakeStack], *, keep: bool = True) -> Stacks:
    def start(cell: Cell, pinning: Pinning, log: TextIO) -> _FakeStack:
        stack = _FakeStack(tmp_path, f"{cell.variant.name}-{cell.workers}-{len(started)}")
        started.append(stack)
        return stack

    def prepare(stack: object) -> None:
        return None

    return Stacks(start, prepare, tmp_path, keep=keep, clear=("data",))  # type: ignore[arg-type]


def test_each_variant_starts_once_per_worker_count_and_its_uploads_are_removed(
    tmp_path: Path,
) -> None:
    started: list[_FakeStack] = []
    with _stacks(tmp_path, started) as stacks:
        for cell in _matrix([1, 2]).cells("quick"):
            with stacks.serving(cell, _UNPINNED, "slug") as serving:
                stack = serving.stack
                assert not serving.warm
                (stack.volume("data") / "objects").mkdir(exist_ok=True)
                (stack.volume("data") / "objects" / "upload").write_bytes(b"x")
            assert list((stack.volume("data") / "objects").iterdir()) == []
            if cell.workers == 2:
                assert all(s.stopped for s in started[:2])
    assert [s.run_dir.name for s in started] == ["a-1-0", "b-1-1", "a-2-2", "b-2-3"]
    assert all(s.stopped for s in started)


def test_a_crashed_server_gets_a_new_stack_at_its_next_cell(tmp_path: Path) -> None:
    started: list[_FakeStack] = []
    cells = _matrix([1]).cells("quick")
    with _stacks(tmp_path, started) as stacks:
        with stacks.serving(cells[0], _UNPINNED, "slug") as first:
            pass
        started[0].crashed = True
        with stacks.serving(cells[0], _UNPINNED, "slug") as second:
            assert second.stack is not first.stack
            assert not second.warm
    assert started[0].stopped and len(started) == 2


def test_a_cell_a_kept_stack_served_before_is_warm(tmp_path: Path) -> None:
    started: list[_FakeStack] = []
    cells = _matrix([1]).cells("quick")
    with _stacks(tmp_path, started) as stacks:
        warm = []
        for cell in cells + cells:
            with stacks.serving(cell, _UNPINNED, "slug") as serving:
                warm.append(serving.warm)
    assert warm == [False] * 4 + [True] * 4
    assert len(started) == 2


def test_a_failed_cell_stops_its_stack(tmp_path: Path) -> None:
    started: list[_FakeStack] = []
    cells = _matrix([1]).cells("quick")
    with _stacks(tmp_path, started) as stacks:
        with pytest.raises(RuntimeError), stacks.serving(cells[0], _UNPINNED, "slug"):
            raise RuntimeError("k6 hung")
        assert started[0].stopped
        with stacks.serving(cells[2], _UNPINNED, "slug"):
            pass
    assert len(started) == 2


@pytest.mark.stack
def test_rounds_of_a_kept_stack_are_measured_by_one_warmed_up_server(project_root: Path) -> None:
    """Two endpoints, two and three rounds: one server start, one warm-up per endpoint,
    each cell's rounds recorded beside the median one, and the third pass over the endpoint
    whose shape asks for three alone."""
    hello = {"ENDPOINT": "/hello"}
    matrix = parse_matrix(
        {
            "family": "stacks-run-test",
            "write_up": "loadtests/reference/hello.toml",
            "pin": False,
            "stacks": {"keep": True},
            "load": {"quick": {"vus": 2, "duration_s": 1, "warmup_s": 1, "rounds": 2}},
            "shapes": {
                "more": {
                    "quick": {"shape": "wrk", "vus": 2, "duration_s": 1, "warmup_s": 1, "rounds": 3}
                }
            },
            "variants": {
                "empty-asgi": {
                    "profile": "reference",
                    "service": "hello-empty-asgi",
                    "endpoints": "hello",
                    "workers": {"quick": [1]},
                }
            },
            "endpoints": {
                "hello": [
                    {"key": "first", "script": "hello.js", "env": hello},
                    {"key": "second", "script": "hello.js", "env": hello, "shape": "more"},
                ]
            },
        }
    )
    progress = io.StringIO()
    run = run_matrix(Project(project_root), matrix, "quick", stream=progress)
    assert run.rounds == 3
    for cell, rounds in zip(run.cells, (2, 3), strict=True):
        assert cell.measurement is not None and cell.measurement.requests > 0, cell.error
        assert len(cell.rounds_cpu_us) == rounds and cell.cpu_us_per_request in cell.rounds_cpu_us
    logs = [p.name for p in Project(project_root).work("bench", "stacks-run-test").glob("*.log")]
    assert [name for name in logs if name.endswith(".server.log")] == ["empty-asgi-w1.server.log"]
    assert len([name for name in logs if ".warmup." in name]) == 2
    lines = progress.getvalue().splitlines()
    assert [line for line in lines if "(round 3 of 3)" in line] == [
        line for line in lines if "round 3" in line
    ]
    assert any("first (round 2 of 2)" in line for line in lines)
    assert sum("(round 3 of 3)" in line for line in lines) == 1
