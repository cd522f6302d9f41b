"""CPU time of process groups from /proc: real processes burning a known amount of CPU."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servelab.bench.cpu_time import Snapshot, Times, seen, snapshot, spent
from servelab.stack import groups

# A process that burns CPU (its own process time, whatever else the machine runs) on
# command: `burn S` burns S s itself, `fork S` forks a child (same process group) that
# burns S s and waits for `go`, `go T` lets the child burn T s more and exit, and the
# parent reaps it. Every command answers `ok` once done.
_SCRIPT = r"""
import os, sys, time

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

child = None
print("ok", flush=True)
for line in sys.stdin:
    command, seconds = line.split()
    seconds = float(seconds)
    if command == "burn":
        burn(seconds)
    elif command == "fork":
        read, write = os.pipe()
        back_read, back_write = os.pipe()
        child = os.fork()
        if child == 0:
            burn(seconds)
            os.write(back_write, b"1")
            more = float(os.read(read, 64).decode())
            burn(more)
            os._exit(0)
        os.read(back_read, 1)
        go = write
    elif command == "go":
        os.write(go, str(seconds).encode())
        os.waitpid(child, 0)
    print("ok", flush=True)
"""


class Burner:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    @property
    def pgid(self) -> int:
        return self.process.pid

    def send(self, command: str) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == "ok"


@pytest.fixture
def burner() -> Iterator[Burner]:
    process = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ok"
    try:
        yield Burner(process)
    finally:
        groups.stop_group(process.pid, 5.0, process)
        process.wait()


# Clock ticks are 10 ms; the interpreter's own work between commands adds a few more.
TOLERANCE_S = 0.06


def test_the_cpu_a_process_burns_in_the_window_is_what_is_measured(burner: Burner) -> None:
    before = snapshot([burner.pgid])
    burner.send("burn 0.2")
    after = snapshot([burner.pgid])
    assert 0.2 - 0.01 <= spent(before, after) <= 0.2 + TOLERANCE_S
    assert seen(before, after) == 1


def test_a_child_reaped_in_the_group_counts_only_its_time_in_the_window(burner: Burner) -> None:
    """The child burns 0.2 s before the window and 0.2 s in it, then its parent reaps it:
    its whole 0.4 s lands in the parent's cutime, and only 0.2 s is the window's."""
    burner.send("fork 0.2")
    before = snapshot([burner.pgid])
    assert seen(before, before) == 2
    burner.send("go 0.2")
    after = snapshot([burner.pgid])
    assert seen(before, after) == 2
    assert 0.2 - 0.01 <= spent(before, after) <= 0.2 + TOLERANCE_S


def test_other_groups_are_not_counted(burner: Burner) -> None:
    before = snapshot([burner.pgid + 10_000_000])
    burner.send("burn 0.1")
    assert spent(before, snapshot([burner.pgid + 10_000_000])) == 0.0


def test_a_process_reaped_outside_the_groups_is_lost_not_subtracted() -> None:
    """The group's leader exits and is reaped by the runner: what it used in the window is
    lost, and its time before the window is not taken off what the others used."""
    worker = (101, 7)
    before = Snapshot({(100, 5): Times(ppid=1, ticks=500), worker: Times(ppid=100, ticks=100)})
    after = Snapshot({worker: Times(ppid=1, ticks=150)})
    assert spent(before, after) == pytest.approx(50 / _ticks())


def test_a_reused_pid_is_a_new_process() -> None:
    before = Snapshot({(100, 5): Times(ppid=1, ticks=500)})
    after = Snapshot({(100, 9): Times(ppid=1, ticks=20)})
    assert spent(before, after) == pytest.approx(20 / _ticks())
    assert seen(before, after) == 2


def test_a_fake_proc_with_spaces_and_parentheses_in_the_name(tmp_path: Path) -> None:
    """pid 43 moved to a process group of its own but stays in the session of 42."""
    stats = {
        42: "42 (a (b) c) S 1 42 42 0 -1 0 0 0 0 0 7 3 2 1 20 0 1 0 999 0 0",
        43: "43 (w) S 42 43 42 0 -1 0 0 0 0 0 5 0 0 0 20 0 1 0 1000 0 0",
        44: "44 (other) S 1 44 44 0 -1 0 0 0 0 0 5 0 0 0 20 0 1 0 1001 0 0",
    }
    for pid, stat in stats.items():
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(stat)
    (tmp_path / "self").mkdir()
    assert snapshot([42], proc=tmp_path).processes == {
        (42, 999): Times(ppid=1, ticks=13),
        (43, 1000): Times(ppid=42, ticks=5),
    }


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")
