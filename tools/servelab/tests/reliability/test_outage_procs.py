"""A drill finds a server's workers in /proc, and names what it saw where it found none."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from servelab.reliability.outage.procs import group_processes, wait_until, workers

# A master that forks two workers and waits: `python -c` with a title in its arguments.
MASTER = """
import os, sys, time
for _ in range(2):
    if os.fork() == 0:
        os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", "worker"])
time.sleep(60)
"""


@pytest.fixture
def group() -> Iterator[int]:
    master = subprocess.Popen([sys.executable, "-c", MASTER, "master"], start_new_session=True)
    try:
        yield master.pid
    finally:
        os.killpg(master.pid, signal.SIGKILL)
        master.wait()


def test_the_workers_below_the_master_are_found_by_their_command_line(group: int) -> None:
    assert wait_until(lambda: len(workers(group, 1, "worker")) == 2, 10.0) is not None
    assert workers(group, 1, "no such title") == []
    assert workers(group, 2, "worker") == []


def test_the_group_is_named_pid_parent_and_command_line(group: int) -> None:
    assert wait_until(lambda: len(workers(group, 1, "worker")) == 2, 10.0) is not None
    rows = group_processes(group)
    assert len(rows) == 3
    assert rows[0].startswith(f"{group}<") and rows[0].endswith(" master")
    assert all(row.endswith(" worker") and f"<{group}: " in row for row in rows[1:])
    assert group_processes(2**22 + 1) == []
