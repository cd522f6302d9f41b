"""`python -m compute_service.loadgen --port 9090`: closed-loop load on a compute server.

CLIENTS connections (spread over PROCESSES client processes, so that the client's own GIL
is not the limit), each sending neighbors(id, K) back to back for SECONDS, the ids cycling
through the corpus; prints calls/s, latency percentiles and errors as one JSON line. This is
how services/compute/README.md compares the Thrift server kinds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from multiprocessing.queues import Queue

from compute_contract import TException, connect

TIMEOUT_S = 10.0

# What one client process reports: its call latencies (s) and its errors.
Outcome = tuple[list[float], list[str]]


@dataclass(frozen=True)
class Plan:
    port: int
    connections: int
    seconds: float
    k: int


def _connection_loop(plan: Plan, index: int, latencies: list[float], errors: list[str]) -> None:
    try:
        with connect("127.0.0.1", plan.port, timeout_s=TIMEOUT_S) as connection:
            client = connection.client
            sentences = client.info().sentences
            deadline = time.perf_counter() + plan.seconds
            call = 0
            while (started := time.perf_counter()) < deadline:
                sentence_id = 1 + (index * 7919 + call * 104_729) % sentences
                client.neighbors(sentence_id, plan.k)
                latencies.append(time.perf_counter() - started)
                call += 1
    except (TException, OSError) as error:
        errors.append(f"{type(error).__name__}: {error}")


def _process(plan: Plan, offset: int, results: Queue[Outcome]) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=_connection_loop, args=(plan, offset + n, latencies, errors))
        for n in range(plan.connections)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put((latencies, errors))


def _percentile(ordered: Sequence[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


@dataclass(frozen=True)
class Result:
    clients: int
    seconds: float
    k: int
    calls: int
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    errors: list[str]


def run(port: int, clients: int, processes: int, seconds: float, k: int) -> Result:
    results: Queue[Outcome] = multiprocessing.Queue()
    shares = [clients // processes + (n < clients % processes) for n in range(processes)]
    workers = []
    offset = 0
    for share in shares:
        plan = Plan(port, share, seconds, k)
        workers.append(multiprocessing.Process(target=_process, args=(plan, offset, results)))
        offset += share
    for worker in workers:
        worker.start()
    latencies: list[float] = []
    errors: list[str] = []
    for _ in workers:
        got, failed = results.get()
        latencies += got
        errors += failed
    for worker in workers:
        worker.join()
    ordered = sorted(latencies)
    return Result(
        clients=clients,
        seconds=seconds,
        k=k,
        calls=len(ordered),
        calls_per_s=round(len(ordered) / seconds, 1),
        p50_ms=round(_percentile(ordered, 0.50) * 1000, 2),
        p99_ms=round(_percentile(ordered, 0.99) * 1000, 2),
        max_ms=round((ordered[-1] if ordered else 0.0) * 1000, 2),
        errors=errors,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compute_service.loadgen")
    parser.add_argument("--port", type=int, default=9090)
    parser.add_argument("--clients", type=int, default=16, help="connections, all busy")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    result = run(args.port, args.clients, max(1, args.processes), args.seconds, args.k)
    print(json.dumps({**asdict(result), "errors": result.errors[:5]}))
    return 1 if result.errors else 0


if __name__ == "__main__":
    sys.exit(main())
