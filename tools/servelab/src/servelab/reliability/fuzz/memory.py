"""The memory of every process serving a fuzzed target, sampled while it is fuzzed, against
the memory limit its compose recipe sets: a bad input that takes a worker past its
container's limit would get it killed under Docker, which a local run does not enforce.

Each container (a service's process group, or each replica's) is read on its own as the
benchmarks read a server (bench.measure.memory: summed PSS over the group, in MiB), every
quarter of a second in a thread of its own, and its peak compared with its own limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

from servelab.bench.measure.memory import MemoryWatch
from servelab.reliability.rows import Row, Verdict
from servelab.stack import Stack

INTERVAL_S = 0.25
_MIB = 1 << 20


@dataclass(frozen=True)
class Container:
    """A process group the stack started (`name`: the service's, or `<service>-<n>` for
    a replica) and the limit its recipe sets in MiB (None: the recipe sets none)."""

    name: str
    pgid: int
    limit_mib: float | None


@dataclass(frozen=True)
class Peak:
    """The most a container held while it was watched; `peak_mib` None: never read."""

    container: Container
    peak_mib: float | None

    @property
    def share(self) -> float:
        """The peak as a share of the limit: 0 without a limit, infinite when never read (past
        1: over it, or nothing says it stayed under)."""
        limit = self.container.limit_mib
        if self.peak_mib is None:
            return float("inf")
        return self.peak_mib / limit if limit else 0.0

    def shown(self) -> str:
        peak = "not read" if self.peak_mib is None else f"peak {self.peak_mib:,.0f} MiB"
        limit = self.container.limit_mib
        return f"{self.container.name} {peak} of " + (
            "no limit" if limit is None else f"a {limit:,.0f} MiB limit"
        )


def serving(stack: Stack, service: str) -> list[Container]:
    """Every process group of `stack` that serves `service`: its own (each replica's) and
    those of the services it depends on that the stack started (not the machine's
    database and cache servers it attached to)."""
    groups = stack.process_groups()
    names: set[str] = set()
    pending = [service]
    while pending:
        name = pending.pop()
        if name in names:
            continue
        names.add(name)
        pending += [
            dependency
            for running in stack.running.values()
            if running.service.name == name
            for dependency in running.service.depends_on
        ]
    return [
        Container(
            name,
            running.pgid,
            None if running.service.memory_limit is None else running.service.memory_limit / _MIB,
        )
        for name, running in stack.running.items()
        if running.service.name in names and name in groups
    ]


@contextmanager
def ceiling_watch(
    containers: Iterable[Container], interval_s: float = INTERVAL_S
) -> Iterator[Callable[[], list[Peak]]]:
    """`with ceiling_watch(containers) as peaks: ...`, then `peaks()`: each container's
    memory sampled every `interval_s` in a background thread."""
    watches = [(container, MemoryWatch([container.pgid], interval_s)) for container in containers]
    with ExitStack() as running:
        for _, watch in watches:
            running.enter_context(watch)
        yield lambda: [Peak(container, watch.peak) for container, watch in watches]


def memory_probe(label: str, peaks: Sequence[Peak]) -> Row:
    """The row: every container's peak against its recipe's limit, failing when one went
    past it (or none could be read); the figures are the container's closest to its limit."""
    over = [peak for peak in peaks if peak.share > 1.0]
    closest = max(peaks, key=lambda peak: peak.share, default=None)
    return Row(
        "memory under the recipe's limit",
        label,
        "every process group's peak summed PSS, sampled every "
        f"{INTERVAL_S} s while the cases ran, under its compose memory limit",
        "; ".join(peak.shown() for peak in peaks) or "no process to read",
        Verdict.FAIL if over or closest is None else Verdict.PASS,
        {
            "peak_mib": round((closest and closest.peak_mib) or 0.0, 1),
            "limit_mib": round((closest and closest.container.limit_mib) or 0.0, 1),
            "over_limit": len(over),
        },
    )
