"""Test support: run one compose service and check that it stops cleanly."""

from __future__ import annotations

import signal
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from servelab.groups import members
from servelab.stack import Stack


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
        assert members(run.pgid) == [], f"{run.service.name} left processes behind"
