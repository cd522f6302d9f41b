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


def stat(pid: int) -> list[str] | None:
    """The fields of /proc/`pid`/stat after the command name (state, ppid, pgrp, ...; index
    19 is the start time), or None once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def processes() -> dict[int, list[str]]:
    """Every live (non-zombie) process's stat fields, by pid."""
    found = {int(entry.name): stat(int(entry.name)) for entry in Path("/proc").glob("[0-9]*")}
    return {pid: fields for pid, fields in found.items() if fields and fields[0] != "Z"}


def members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`, read from /proc."""
    return [pid for pid, fields in processes().items() if int(fields[2]) == pgid]


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    return True


def stop_group(pgid: int, grace: float, leader: subprocess.Popen[Any] | None = None) -> None:
    """SIGTERM the group, wait up to `grace` for every member, then SIGKILL what is left.
    The group's leader, where this process started it, is reaped as it exits (a zombie
    would keep the group alive until the deadline)."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if _wait_gone(pgid, grace, leader):
        return
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
        _wait_gone(pgid, 5, leader)


def kill_group(pgid: int, leader: subprocess.Popen[bytes]) -> None:
    """SIGKILL every member of the group at once and reap the leader."""
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    leader.wait()
    _wait_gone(pgid, 5)


def _wait_gone(pgid: int, timeout: float, leader: subprocess.Popen[Any] | None = None) -> bool:
    """Wait up to `timeout` for the group to be gone, reaping its leader as it exits (a zombie
    would keep the group alive); whether it is."""
    deadline = time.monotonic() + timeout
    while True:
        if leader is not None:
            leader.poll()
        if not group_alive(pgid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
