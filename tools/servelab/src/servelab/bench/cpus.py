"""Which CPUs the server and k6 get: disjoint sets where the machine has room."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pinning:
    server: frozenset[int] | None
    client: frozenset[int] | None

    def describe(self) -> str:
        if self.server is None or self.client is None:
            return "not pinned (server and k6 share every CPU)"
        return f"server on CPU {_cpu_list(self.server)}, k6 on CPU {_cpu_list(self.client)}"


def _cpu_list(cpus: frozenset[int]) -> str:
    return ",".join(str(cpu) for cpu in sorted(cpus))


def plan(available: Sequence[int], workers: int) -> Pinning:
    """One CPU per server worker (the last ones), the rest to k6; no pinning when that
    would leave k6 nothing."""
    cpus = sorted(available)
    if workers < 1 or len(cpus) <= workers:
        return Pinning(None, None)
    return Pinning(frozenset(cpus[-workers:]), frozenset(cpus[:-workers]))


def available_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))
