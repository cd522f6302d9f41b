"""Measuring a scenario's steps in rounds, and each layer's cost with its interval.

Every round answers `count` requests through each step in turn, seconds apart, so a drift
of the machine touches every step of a round alike. A step's cost is the difference of CPU
per request between it and the step before; its interval is that of the findings page
(servelab.bench.findings.spread): Student's t over the logarithms of the per-round ratios of
the two steps, paired round by round, here scaled back to microseconds by the step before's
geometric mean.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import Callable
from dataclasses import dataclass

from servelab.bench.findings.spread import Spread
from servelab.layers.drive import ASGIApp, cpu_per_request
from servelab.layers.scenarios import Scenario

# The first row of each account: the driver and an app that does nothing.
FLOOR = "empty ASGI app (the driver's own cost)"


@dataclass(frozen=True)
class Row:
    name: str
    # CPU µs per request, one value per round.
    rounds: tuple[float, ...]

    @property
    def spread(self) -> Spread | None:
        return Spread.of(self.rounds)


@dataclass(frozen=True)
class Cost:
    """A step over the one before: its ratio, and the difference in µs per request."""

    ratio: Spread
    micros: float
    low: float
    high: float


@dataclass(frozen=True)
class Account:
    scenario: Scenario
    count: int
    rows: tuple[Row, ...]

    def cost(self, index: int, base: int | None = None) -> Cost | None:
        """Row `index` over row `base` (the row before it by default)."""
        before = self.rows[index - 1 if base is None else base]
        ratio = Spread.ratio(self.rows[index].rounds, before.rounds)
        under = before.spread
        if ratio is None or under is None:
            return None
        scale = under.value
        return Cost(
            ratio, scale * (ratio.value - 1), scale * (ratio.low - 1), scale * (ratio.high - 1)
        )


def measure(
    scenario: Scenario,
    floor: ASGIApp,
    *,
    rounds: int,
    count: int,
    progress: Callable[[str], None] = lambda _: None,
) -> Account:
    """`rounds` rounds of `count` requests through the floor app and each step."""
    # The empty app answers 200 to anything.
    to_floor = dataclasses.replace(scenario.request, expect=200)
    apps = [
        (FLOOR, floor, to_floor),
        *((step.name, step.app, scenario.request) for step in scenario.steps),
    ]
    loop = asyncio.new_event_loop()
    try:
        # A warm-up batch each: imports, caches, the first files of the metrics.
        for _, app, request in apps:
            cpu_per_request(loop, app, request, max(1, count // 10))
            scenario.tidy()
        values: list[list[float]] = [[] for _ in apps]
        for number in range(rounds):
            progress(f"{scenario.key}: round {number + 1}/{rounds}")
            for index, (_, app, request) in enumerate(apps):
                gc.collect()
                values[index].append(cpu_per_request(loop, app, request, count) * 1e6)
                scenario.tidy()
    finally:
        loop.close()
    rows = tuple(Row(name, tuple(found)) for (name, _, _), found in zip(apps, values, strict=True))
    return Account(scenario, count, rows)
