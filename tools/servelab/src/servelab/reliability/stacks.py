"""The stacks the reliability suite starts, as a family's spec names them (a bench variant's
profile, service and env), on a scratch database where they need one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any, TextIO

from servelab.project import Project
from servelab.spec.reliability import TargetStack
from servelab.stack import Stack, databases
from servelab.stack.databases import scratch_database


@contextmanager
def started(
    project: Project,
    target: TargetStack,
    log: TextIO,
    scratch: str | None = None,
    env: Mapping[str, str] | None = None,
    **options: Any,
) -> Iterator[tuple[Stack, str | None]]:
    """The target's stack (`env` over its own; `options` Stack's), on a scratch database
    named from the prefix `scratch` where one is given, its Redis keys (EE_REDIS_DB) cleared
    afterwards; the stack, and the database's name."""
    settings = {**target.env, **(env or {})}
    with ExitStack() as cleanup:
        database = None
        if scratch:
            database = cleanup.enter_context(scratch_database(scratch))
            redis_db = int(settings.get("EE_REDIS_DB", "0"))
            cleanup.callback(databases.clear_redis_keys, database, redis_db)
            settings["EE_DATABASE"] = database
        stack = Stack(
            target.profile, only=[target.service], env=settings, log=log, project=project, **options
        )
        yield cleanup.enter_context(stack), database
