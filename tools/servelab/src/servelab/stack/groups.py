"""Start commands in their own process group and stop the whole group."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any


def pin(cpus: frozenset[int] | None) -> None:
    """Runs in the child before exec, so every process it forks keeps to `cpus` too."""
    if cpus:
        os.sched_setaffinity(0, cpus)


def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    cpus: frozenset[int] | None = None,
    stdout: int | IO[bytes] | None = subprocess.PIPE,
) -> subprocess.Popen[bytes]:
    """Start `argv` as the leader of a new session (and so a new process group)."""
    return subprocess.Popen(
        list(argv),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=lambda: pin(cpus),
    )


def members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`, read from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(pgid: int, grace: float, leader: subprocess.Popen[Any] | None = None) -> None:
    """SIGTERM the group, wait up to `grace` for every member, then SIGKILL what is left.
    The group's leader, where this process started it, is reaped as it exits (a zombie
    would keep the group alive until the deadline)."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if leader is not None:
            leader.poll()
        if not group_alive(pgid):
            return
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return
    while group_alive(pgid) and time.monotonic() < deadline + 5:
        if leader is not None:
            leader.poll()
        time.sleep(0.05)


def kill_group(pgid: int, leader: subprocess.Popen[bytes]) -> None:
    """SIGKILL every member of the group at once and reap the leader."""
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    leader.wait()
    deadline = time.monotonic() + 5
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
