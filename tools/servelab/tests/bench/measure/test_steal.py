"""CPU steal from /proc/stat: the share of the CPUs' time stolen between two readings."""

from __future__ import annotations

from pathlib import Path

from servelab.bench.measure import steal


def _stat(tmp_path: Path, steal_ticks: int, idle: int) -> Path:
    path = tmp_path / "stat"
    path.write_text(f"cpu  100 0 50 {idle} 0 0 0 {steal_ticks} 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
    return path


def test_the_stolen_share_between_two_readings(tmp_path: Path) -> None:
    before = steal.read(_stat(tmp_path, steal_ticks=10, idle=840))
    after = steal.read(_stat(tmp_path, steal_ticks=60, idle=1290))
    assert before == steal.CpuTimes(steal=10, total=1000)
    assert steal.percent(before, after) == 10.0


def test_no_figure_without_readings_or_time(tmp_path: Path) -> None:
    reading = steal.read(_stat(tmp_path, steal_ticks=10, idle=840))
    assert steal.percent(reading, reading) is None
    assert steal.percent(None, reading) is None
    (tmp_path / "empty").write_text("")
    assert steal.read(tmp_path / "empty") is None
    assert steal.read(tmp_path / "missing") is None


def test_this_machine_has_a_reading() -> None:
    reading = steal.read()
    assert reading is not None and reading.total > 0 and 0 <= reading.steal <= reading.total
