"""Which CPUs the server and k6 get: disjoint sets where the machine has room, or the sets
given on the command line (`--cpus server=0-3,k6=4-7`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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
    ordered = sorted(set(cpus))
    parts: list[str] = []
    start = previous = None
    for cpu in [*ordered, None]:
        if previous is not None and cpu == previous + 1:
            previous = cpu
            continue
        if start is not None and previous is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = cpu
    return ",".join(parts)


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
    lists: dict[str, list[str]] = {}
    current: list[str] | None = None
    for token in text.split(","):
        role, equals, rest = token.partition("=")
        if equals:
            role = role.strip()
            if role not in _ROLES or role in lists:
                raise CpusError(f"--cpus: expected server=LIST,k6=LIST, got {role!r}= in {text!r}")
            current = lists[role] = [rest]
        elif current is None:
            raise CpusError(f"--cpus: {text!r} must start with server= or k6=")
        else:
            current.append(token)
    missing = [role for role in _ROLES if role not in lists]
    if missing:
        raise CpusError(f"--cpus: {text!r} names no {missing[0]}= list")
    server, client = (_parse_list(",".join(lists[role]), f"--cpus {role}") for role in _ROLES)
    outside = (server | client) - set(available)
    if outside:
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
