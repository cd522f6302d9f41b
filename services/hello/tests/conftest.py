"""Fixtures: run one compose service through the servelab runner; list a process group."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from servelab.stack import Stack

Serve = Callable[..., AbstractContextManager[Stack]]


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


@contextmanager
def serve_service(
    profile: str, service: str, env: Mapping[str, str] | None = None
) -> Iterator[Stack]:
    """Start `service` as compose.yaml runs it and yield the stack; then check it stopped
    on SIGTERM alone (no SIGKILL) and left no process behind."""
    stack = Stack(profile, only=[service], env=env, log=None)
    with stack:
        running = list(stack.running.values())
        yield stack
    for run in running:
        assert run.process.returncode != -signal.SIGKILL, f"{run.service.name} needed SIGKILL"
        assert group_members(run.pgid) == [], f"{run.service.name} left processes behind"


@pytest.fixture
def serve() -> Serve:
    return serve_service


@pytest.fixture
def processes_in_group() -> Callable[[int], list[int]]:
    return group_members
