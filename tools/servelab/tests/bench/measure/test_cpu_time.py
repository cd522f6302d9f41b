"""CPU time of process groups from /proc: real processes burning a known amount of CPU."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servelab.bench.measure.cpu_time import WHOLE_PROCESS, Snapshot, Times, seen, snapshot, spent
from servelab.stack import groups

# A process that burns CPU (its own process time, whatever else the machine runs) on
# command: `burn S` burns S s itself, `thread S` burns S s in a new thread (which then
# sleeps), `fork S` forks a child (same process group) that burns S s and waits for `go`,
# `go T` lets the child burn T s more and exit, and the parent reaps it. Every command
# answers `ok` once done.
_SCRIPT = r"""
import os, sys, threading, time

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
    elif command == "thread":
        done = threading.Event()
        work = lambda: (burn(seconds), done.set(), time.sleep(3600))
        threading.Thread(target=work, daemon=True).start()
        done.wait()
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


# The interpreter's own work between commands (reading the command, answering) adds a
# little.
TOLERANCE_S = 0.03
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def test_the_cpu_a_process_burns_in_the_window_is_what_is_measured(burner: Burner) -> None:
    before = snapshot([burner.pgid])
    burner.send("burn 0.2")
    after = snapshot([burner.pgid])
    assert 0.2 <= spent(before, after) <= 0.2 + TOLERANCE_S
    assert seen(before, after) == 1


def test_small_amounts_are_measured_finer_than_a_clock_tick(burner: Burner) -> None:
    """Ten windows of 3 ms each: clock ticks would read most of them as 0 or 10 ms."""
    for _ in range(10):
        before = snapshot([burner.pgid])
        burner.send("burn 0.003")
        assert 0.003 <= spent(before, snapshot([burner.pgid])) <= 0.006


def test_a_thread_started_in_the_window_counts_all_it_used(burner: Burner) -> None:
    before = snapshot([burner.pgid])
    burner.send("thread 0.1")
    after = snapshot([burner.pgid])
    assert 0.1 <= spent(before, after) <= 0.1 + TOLERANCE_S
    assert len(after.processes[next(iter(after.processes))].threads) == 2


def test_a_child_reaped_in_the_group_counts_only_its_time_in_the_window(burner: Burner) -> None:
    """The child burns 0.2 s before the window and 0.2 s in it, then its parent reaps it:
    its whole 0.4 s lands in the parent's cutime, and only 0.2 s is the window's."""
    burner.send("fork 0.2")
    before = snapshot([burner.pgid])
    assert seen(before, before) == 2
    burner.send("go 0.2")
    after = snapshot([burner.pgid])
    assert seen(before, after) == 2
    # The parent's cutime and cstime are whole clock ticks, each rounded down.
    assert 0.2 - 2 * TICK_S <= spent(before, after) <= 0.2 + TOLERANCE_S


def test_other_groups_are_not_counted(burner: Burner) -> None:
    before = snapshot([burner.pgid + 10_000_000])
    burner.send("burn 0.1")
    assert spent(before, snapshot([burner.pgid + 10_000_000])) == 0.0


def test_a_process_reaped_outside_the_groups_is_lost_not_subtracted() -> None:
    """The group's leader exits and is reaped by the runner: what it used in the window is
    lost, and its time before the window is not taken off what the others used."""
    worker = (101, 7)
    before = Snapshot(
        {(100, 5): Times(ppid=1, threads={100: 5 * S}), worker: Times(ppid=100, threads={101: S})}
    )
    after = Snapshot({worker: Times(ppid=1, threads={101: S + S // 2})})
    assert spent(before, after) == pytest.approx(0.5)


def test_a_reused_pid_is_a_new_process() -> None:
    before = Snapshot({(100, 5): Times(ppid=1, threads={100: 5 * S})})
    after = Snapshot({(100, 9): Times(ppid=1, threads={100: S // 5})})
    assert spent(before, after) == pytest.approx(0.2)
    assert seen(before, after) == 2


def test_threads_are_counted_each_and_a_reused_thread_id_is_a_new_thread() -> None:
    """Thread 11 ran 0.3 s in the window and thread 12 is new with 0.2 s; 13's count went
    down, so its id was reused by a new thread that ran 0.1 s."""
    before = Snapshot({(10, 1): Times(ppid=1, threads={10: S, 11: S, 13: 2 * S})})
    after = Snapshot(
        {(10, 1): Times(ppid=1, threads={10: S, 11: S + 3 * S // 10, 12: S // 5, 13: S // 10})}
    )
    assert spent(before, after) == pytest.approx(0.6)


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
    (tmp_path / "42" / "task" / "42").mkdir(parents=True)
    (tmp_path / "42" / "task" / "42" / "schedstat").write_text("123456789 0 4\n")
    tick = S // _ticks()
    assert snapshot([42], proc=tmp_path).processes == {
        (42, 999): Times(ppid=1, threads={42: 123_456_789}, children_ns=3 * tick),
        (43, 1000): Times(ppid=42, threads={WHOLE_PROCESS: 5 * tick}),
    }


S = 1_000_000_000  # a second in nanoseconds


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")
