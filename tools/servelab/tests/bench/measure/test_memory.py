"""The server's memory: summed PSS of the stack's process groups, so forked workers'
shared pages count once."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from servelab.bench.measure.memory import MemoryWatch, groups_mib, process_kib
from servelab.stack import groups

# A parent that writes 64 MiB, forks `children` processes that keep it, and prints "ready".
_HOLD = """
import os, sys, time
block = b"x" * (64 << 20)
for _ in range({children}):
    if os.fork() == 0:
        break
os.write(1, b"ready\\n")
time.sleep(60)
"""


@contextmanager
def holding(children: int) -> Iterator[int]:
    """A process group holding 64 MiB, shared by the leader and `children` forks."""
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLD.format(children=children)],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        ready = [process.stdout.readline() for _ in range(children + 1)]
        assert all(line.strip() == b"ready" for line in ready)
        deadline = time.monotonic() + 5
        while len(groups.members(process.pid)) < children + 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        yield process.pid
    finally:
        groups.kill_group(process.pid, process)


def test_a_process_counts_its_pss_else_its_rss_and_nothing_once_gone(tmp_path: Path) -> None:
    (tmp_path / "10").mkdir()
    (tmp_path / "10" / "smaps_rollup").write_text("Rss:  2048 kB\nPss:  1024 kB\n")
    (tmp_path / "11").mkdir()
    (tmp_path / "11" / "status").write_text("Name:\tpython\nVmRSS:\t   512 kB\n")
    assert process_kib(10, tmp_path) == 1024
    assert process_kib(11, tmp_path) == 512
    assert process_kib(12, tmp_path) is None


def test_a_group_holding_64_mib_measures_at_least_that_while_the_watch_runs() -> None:
    with holding(children=0) as pgid, MemoryWatch([pgid], interval_s=0.1) as watch:
        time.sleep(0.3)
    assert watch.peak is not None
    assert 64 <= watch.peak < 64 + 64


def test_forked_processes_count_the_pages_they_share_once() -> None:
    """Three processes keep the same 64 MiB: summed RSS would say 192 MiB or more."""
    with holding(children=2) as pgid:
        size = groups_mib([pgid])
    assert size is not None
    assert 64 <= size < 2 * 64


def test_no_process_to_read_is_no_figure() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    process.wait()
    assert groups_mib([process.pid]) is None
    with MemoryWatch([process.pid], interval_s=0.1) as watch:
        pass
    assert watch.peak is None
