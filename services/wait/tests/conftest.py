"""Fixtures: send a burst of requests. `serve` (one compose service through the servelab
runner) comes from servelab's pytest plugin."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx2
import pytest

Burst = Callable[[str, int], tuple[float, list[float]]]


async def _burst(url: str, count: int) -> tuple[float, list[float]]:
    async with httpx2.AsyncClient(timeout=30) as client:
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
