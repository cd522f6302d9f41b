"""Which CPUs the server and k6 get: disjoint sets where the machine has room, or the sets
given on the command line (`--cpus server=0-3,k6=4-7`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from servelab.bench.errors import BenchError

_RANGE = re.compile(r"(\d+)(?:-(\d+))?")
_ROLES = ("server", "k6")


class CpusError(BenchError):
    """A CPU list that does not parse or names CPUs this process may not use."""


@dataclass(frozen=True)
class Pinning:
    server: frozenset[int] | None
    client: frozenset[int] | None

    @property
    def shared(self) -> frozenset[int] | None:
        """The CPUs the server and k6 both run on; None where either is not pinned (they
        may then share any CPU)."""
        if self.server is None or self.client is None:
            return None
        return self.server & self.client

    def describe(self) -> str:
        if self.server is None and self.client is not None:
            return f"server not pinned, k6 on CPU {cpu_list(self.client)}"
        if self.server is None or self.client is None:
            return "not pinned (server and k6 share every CPU)"
        where = f"server on CPU {cpu_list(self.server)}, k6 on CPU {cpu_list(self.client)}"
        if self.shared:
            return f"{where} (sharing CPU {cpu_list(self.shared)})"
        return where


def cpu_list(cpus: Iterable[int]) -> str:
    """`0-3,6`: the sorted CPUs with runs written as ranges."""
    runs = [
        [cpu for _, cpu in run]
        for _, run in groupby(enumerate(sorted(set(cpus))), lambda pair: pair[1] - pair[0])
    ]
    return ",".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def plan(available: Sequence[int], workers: int) -> Pinning:
    """One CPU per server worker (the last ones), the rest to k6; no pinning when that
    would leave k6 nothing."""
    cpus = sorted(available)
    if workers < 1 or len(cpus) <= workers:
        return Pinning(None, None)
    return Pinning(frozenset(cpus[-workers:]), frozenset(cpus[:-workers]))


def available_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def _parse_list(text: str, where: str) -> set[int]:
    cpus: set[int] = set()
    for part in text.split(","):
        match = _RANGE.fullmatch(part.strip())
        if match is None:
            raise CpusError(f"{where}: {part!r} is not a CPU or a range like 0-3")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if high < low:
            raise CpusError(f"{where}: range {part!r} runs backwards")
        cpus.update(range(low, high + 1))
    return cpus


def parse_cpus(text: str, available: Sequence[int]) -> Pinning:
    """`server=0-3,k6=4-7` (either part may come first; a list may name several CPUs and
    ranges, `server=0-3,6,k6=4,5`): the server's and k6's CPUs. Both parts are needed,
    and every CPU must be one this process may run on."""
    lists: dict[str, set[int]] = {}
    for part in re.split(r",(?=[^,]*=)", text):
        role, equals, cpus = part.partition("=")
        role = role.strip()
        if not equals:
            raise CpusError(f"--cpus: {text!r} must start with server= or k6=")
        if role not in _ROLES or role in lists:
            raise CpusError(f"--cpus: expected server=LIST,k6=LIST, got {role!r}= in {text!r}")
        lists[role] = _parse_list(cpus, f"--cpus {role}")
    if missing := [role for role in _ROLES if role not in lists]:
        raise CpusError(f"--cpus: {text!r} names no {missing[0]}= list")
    server, client = lists["server"], lists["k6"]
    if outside := (server | client) - set(available):
        raise CpusError(
            f"--cpus: CPU {cpu_list(outside)} not available here (this process may use "
            f"CPU {cpu_list(available)})"
        )
    return Pinning(frozenset(server), frozenset(client))


def parse_workers(text: str, available: Sequence[int]) -> tuple[int, ...]:
    """`1,2,4,8`, or `auto`: 1, 2, 4 ... below the number of CPUs, and that number."""
    if text.strip() == "auto":
        count = len(available)
        doubling = [1 << power for power in range(count.bit_length()) if 1 << power < count]
        return (*doubling, count)
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise CpusError(f"--workers: {text!r} is not `auto` nor a list like 1,2,4") from None
    if any(count < 1 for count in counts):
        raise CpusError(f"--workers: {text!r}: every count must be 1 or more")
    return tuple(sorted(set(counts)))
