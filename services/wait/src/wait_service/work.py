"""The work a request does: sleep or burn CPU for a while, and report how long it took."""

import asyncio
import time

from wait_service.settings import Settings


def burn(seconds: float) -> None:
    """Use `seconds` of this thread's CPU time, holding the GIL while it runs.

    CPU time, not wall time: threads burning at once share the GIL, so each one takes
    longer on the clock, as real CPU-bound work would.
    """
    deadline = time.thread_time() + seconds
    while time.thread_time() < deadline:
        pass


def blocking_work(settings: Settings) -> float:
    """The work in the calling thread; returns the seconds it took."""
    started = time.perf_counter()
    if settings.model == "cpu":
        burn(settings.waiting_time)
    else:
        time.sleep(settings.waiting_time)
    return time.perf_counter() - started


async def async_work(settings: Settings) -> float:
    """The work on the event loop: sleeping yields to other requests, burning CPU does not."""
    started = time.perf_counter()
    if settings.model == "cpu":
        burn(settings.waiting_time)
    else:
        await asyncio.sleep(settings.waiting_time)
    return time.perf_counter() - started
