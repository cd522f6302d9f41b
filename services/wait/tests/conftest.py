"""Fixtures: run one compose service through the servelab runner; send a burst of requests."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import httpx
import pytest

from servelab.stack import Stack

Serve = Callable[..., AbstractContextManager[Stack]]
Burst = Callable[[str, int], tuple[float, list[float]]]


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


async def _burst(url: str, count: int) -> tuple[float, list[float]]:
    async with httpx.AsyncClient(timeout=30) as client:
        started = time.perf_counter()
        responses = await asyncio.gather(*(client.get(url) for _ in range(count)))
        elapsed = time.perf_counter() - started
    assert [response.status_code for response in responses] == [200] * count
    return elapsed, [response.json()["wait"] for response in responses]


def send_burst(url: str, count: int) -> tuple[float, list[float]]:
    """GET `url` `count` times at once: the wall time for all, and each answer's "wait"."""
    return asyncio.run(_burst(url, count))


@pytest.fixture
def burst() -> Burst:
    return send_burst
