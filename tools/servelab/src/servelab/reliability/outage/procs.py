"""A server's processes as /proc shows them: its workers below the master, and when a
process has exited."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from servelab.stack.groups import members

# The helper processes Python's multiprocessing starts beside the workers it spawns.
_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(fields[1]), fields[0]


def command_line(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except (FileNotFoundError, ProcessLookupError):
        return ""


def workers(pgid: int, depth: int = 1, match: str = "") -> list[int]:
    """The live processes of the group `pgid` `depth` levels below its leader (the master:
    1 for its workers), whose command line contains `match`, and that are not
    multiprocessing's helpers; oldest (lowest pid) first."""
    parents = {}
    for pid in members(pgid):
        stat = _stat(pid)
        if stat is not None and stat[1] != "Z":
            parents[pid] = stat[0]

    def level(pid: int) -> int:
        steps = 0
        while pid != pgid and pid in parents and steps <= depth:
            pid, steps = parents[pid], steps + 1
        return steps if pid == pgid else -1

    return sorted(
        pid
        for pid in parents
        if level(pid) == depth
        and match in command_line(pid)
        and not any(helper in command_line(pid) for helper in _HELPERS)
    )


def group_processes(pgid: int) -> list[str]:
    """The group's live processes as `pid<parent: command line`, for an error message."""
    rows = []
    for pid in sorted(members(pgid)):
        stat = _stat(pid)
        parent = stat[0] if stat is not None else "?"
        rows.append(f"{pid}<{parent}: {command_line(pid).strip() or '(no command line)'}")
    return rows


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[1] != "Z"


def wait_until(
    condition: Callable[[], bool], timeout_s: float, poll_s: float = 0.02
) -> float | None:
    """Poll `condition` until it holds; the time.time() it did, None if it did not within
    `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return time.time()
        time.sleep(poll_s)
    return None


def signal_process(pid: int, signum: int) -> float:
    """Send `signum` to one process (not its group); the time.time() it was sent."""
    at = time.time()
    os.kill(pid, signum)
    return at
