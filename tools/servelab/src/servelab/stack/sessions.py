"""Records of running `servelab up` sessions, so `servelab down` can stop them."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from servelab.project import Project
from servelab.stack import groups


def start_time(pid: int) -> int | None:
    """The kernel's start time of `pid` (clock ticks after boot), None if it is gone."""
    fields = groups.stat(pid)
    return int(fields[19]) if fields else None


def exited(pid: int) -> bool:
    """Whether `pid` has exited: gone, or a zombie that its parent has not reaped yet (a runner
    started by a program that waits on it later)."""
    fields = groups.stat(pid)
    return fields is None or fields[0] == "Z"


@dataclass(frozen=True)
class Session:
    pid: int
    started: int
    profiles: list[str]
    groups: dict[str, list[int]]


def record(project: Project, profiles: list[str], leaders: Mapping[str, int]) -> Path:
    """Write this process's session record; the caller removes it when it stops."""
    directory = project.work("sessions")
    directory.mkdir(parents=True, exist_ok=True)
    pid = os.getpid()
    session = Session(
        pid=pid,
        started=start_time(pid) or 0,
        profiles=profiles,
        groups={name: [leader, start_time(leader) or 0] for name, leader in leaders.items()},
    )
    path = directory / f"{pid}.json"
    path.write_text(json.dumps(asdict(session)))
    return path


def stop_all(project: Project, grace: float = 15.0) -> list[Session]:
    """Stop every recorded session: ask its runner to stop, kill orphaned groups otherwise."""
    stopped = []
    for path in sorted(project.work("sessions").glob("*.json")):
        session = Session(**json.loads(path.read_text()))
        if start_time(session.pid) == session.started:
            os.kill(session.pid, signal.SIGTERM)
            deadline = time.monotonic() + grace
            while not exited(session.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
        for pgid, started in session.groups.values():
            if start_time(pgid) == started:
                groups.stop_group(pgid, grace=5.0)
        path.unlink(missing_ok=True)
        stopped.append(session)
    return stopped
