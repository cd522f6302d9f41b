"""How many requests one worker runs at once: bounded by THREADPOOL_SIZE for `def`
endpoints, and by the CPU itself for MODEL=cpu, in threads and on the event loop."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import httpx2

from servelab.stack import Stack

Serve = Callable[..., AbstractContextManager[Stack]]
Burst = Callable[[str, int], tuple[float, list[float]]]


def sync_burst(serve: Serve, burst: Burst, *, wait: float, requests: int, threads: int) -> float:
    env = {"WEB_CONCURRENCY": "1", "WAITING_TIME": str(wait), "THREADPOOL_SIZE": str(threads)}
    with serve("uvicorn", "wait-uvicorn", env) as stack:
        url = stack.url("wait-uvicorn")
        assert httpx2.get(url + "/healthz").json()["threadpool_size"] == threads
        elapsed, _ = burst(url + "/sync", requests)
    return elapsed


def test_the_thread_pool_size_sets_how_many_sync_requests_run_at_once(
    serve: Serve, burst: Burst
) -> None:
    """20 requests of 0.5 s: 20/5 = 4 rounds on 5 threads, one round on 20 (the write-up's
    1000 requests on anyio's default of 40 threads took 1000/40 = 25 rounds)."""
    wait = 0.5
    four_rounds = sync_burst(serve, burst, wait=wait, requests=20, threads=5)
    one_round = sync_burst(serve, burst, wait=wait, requests=20, threads=20)
    assert one_round < 2.5 * wait, f"20 requests on 20 threads took {one_round:.2f}s"
    assert four_rounds >= 3.5 * wait, f"20 requests on 5 threads took {four_rounds:.2f}s"
    assert four_rounds / one_round > 2.0


def test_cpu_work_runs_one_request_at_a_time_where_waits_overlap(
    serve: Serve, burst: Burst
) -> None:
    work, concurrent = 0.2, 4
    timings: dict[tuple[str, str], float] = {}
    for model in ("wait", "cpu"):
        env = {"WEB_CONCURRENCY": "1", "WAITING_TIME": str(work), "MODEL": model}
        with serve("uvicorn", "wait-uvicorn", env) as stack:
            for path in ("/async", "/sync"):
                timings[model, path], _ = burst(stack.url("wait-uvicorn") + path, concurrent)
    for path in ("/async", "/sync"):
        assert timings["wait", path] < 2 * work, timings
        # On the event loop one burn blocks every other request; in threads the GIL
        # lets one burn at a time.
        assert timings["cpu", path] >= (concurrent - 1) * work, timings
