"""Test support: run one compose service and check that it stops cleanly; the MariaDB and
Redis the stacks use (the machine's, the ones SERVELAB_MARIADB and SERVELAB_REDIS name, or
private ones: servelab.stack.databases, which the reliability suite uses too) and scratch
databases on that MariaDB; a log sink that keeps what a stack's processes write.
The fixtures are in servelab.testing.plugin."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager

from servelab.stack import Stack
from servelab.stack.databases import mariadb as mariadb
from servelab.stack.databases import mariadb_url as mariadb_url
from servelab.stack.databases import redis as redis
from servelab.stack.databases import redis_url as redis_url
from servelab.stack.databases import scratch_database as scratch_database
from servelab.stack.groups import members

# serve_service's type: what the `serve` fixture gives a test.
Serve = Callable[..., AbstractContextManager[Stack]]


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


class LogLines:
    """A Stack's log sink keeping every line its processes write (`<service> | <line>`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.extend(text.splitlines())

    def flush(self) -> None:
        pass

    def json_of(self, service: str) -> list[dict[str, object]]:
        """The JSON lines `service` wrote (access log lines, nginx's), in order."""
        lines = (line.partition(" | ") for line in self.lines)
        return [
            json.loads(rest) for who, _, rest in lines if who.strip() == service and rest[:1] == "{"
        ]
