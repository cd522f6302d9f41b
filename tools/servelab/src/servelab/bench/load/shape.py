"""A load shape (loadtests/lib/options.js): how k6 drives one cell, as its environment.

Timed shapes (wrk's and boom's `-c -d`: constant VUs for a duration; vegeta's `-rate
-duration`: a constant rate of new requests) measure a fixed time after a warm-up; counted
shapes (hey's `-n -c`: every VU sends its requests, all at once; ab's `-n -c`: the VUs
share the requests) run until every request is answered, and their measured time is that
whole run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from servelab.spec.family import SpecError, validate
from servelab.spec.matrix import LoadTable

TIMED = "constant-vus"
COUNTED = "per-vu-iterations"
ARRIVAL = "constant-arrival-rate"
SHARED = "shared-iterations"

# lib/options.js SHAPES: each shape (servelab.spec.matrix.Shape) and its k6 executor.
SHAPES: Mapping[str, str] = {
    "wrk": TIMED,
    "hey": COUNTED,
    "client": COUNTED,
    "vegeta": ARRIVAL,
    "boom": TIMED,
    "ab": SHARED,
}
# The shortest duration k6 runs a timed scenario for.
_K6_SHORTEST_S = 1.0
# Shapes that send a fixed number of requests: ITERATIONS per VU, or in all (shared).
COUNTED_EXECUTORS = frozenset({COUNTED, SHARED})


@dataclass(frozen=True)
class Load:
    vus: int
    duration_s: float = 0.0
    warmup_s: float = 0.0
    shape: str = "wrk"
    iterations: int = 0
    max_duration_s: float = 0.0
    # vegeta: requests started per second, from `vus` pre-allocated VUs up to `max_vus`.
    rate: int = 0
    max_vus: int = 0
    # How many times the run measures each cell of this shape (bench.load.rounds): the rounds
    # pass over the matrix one after another, the later ones only over the cells that
    # run more of them.
    rounds: int = 1

    @property
    def counted(self) -> bool:
        return SHAPES[self.shape] in COUNTED_EXECUTORS

    @property
    def arrival(self) -> bool:
        return SHAPES[self.shape] == ARRIVAL

    @property
    def seconds(self) -> float:
        """The longest the load itself runs: warm-up and duration, or the counted limit."""
        return self.max_duration_s if self.counted else self.warmup_s + self.duration_s

    def phases(self) -> tuple[Load | None, Load]:
        """The warm-up as a run of its own (None without one; at least the 1 s k6 runs a
        timed scenario for) and the measured run, which then has no warm-up: the runner
        reads the server's CPU time around the measured run alone."""
        if self.counted or not self.warmup_s:
            return None, self
        return (
            replace(self, duration_s=max(self.warmup_s, _K6_SHORTEST_S), warmup_s=0.0),
            replace(self, warmup_s=0.0),
        )

    def k6_env(self) -> dict[str, str]:
        """The variables lib/options.js reads for this shape."""
        env = {"SHAPE": self.shape, "VUS": str(self.vus)}
        if self.counted:
            return env | {
                "ITERATIONS": str(self.iterations),
                "MAX_DURATION": f"{self.max_duration_s:g}s",
            }
        env |= {"DURATION": f"{self.duration_s:g}s", "WARMUP": f"{self.warmup_s:g}s"}
        if self.arrival:
            env |= {"RATE": str(self.rate), "MAX_VUS": str(self.max_vus)}
        return env

    def describe(self) -> str:
        if SHAPES[self.shape] == SHARED:
            text = (
                f"{self.vus} VUs sharing {self.iterations} requests, each on a new connection, "
                "measured until the last answer (k6 shared-iterations, stopped after "
                f"{self.max_duration_s:g} s)"
            )
        elif self.counted:
            text = (
                f"{self.vus} VUs at once, {self.iterations} request(s) each, measured until the "
                f"last answer (k6 per-vu-iterations, stopped after {self.max_duration_s:g} s)"
            )
        elif self.arrival:
            text = (
                f"{self.rate} requests/s started whatever the answers take ({self.vus} to "
                f"{self.max_vus} VUs), {self.warmup_s:g} s warm-up + {self.duration_s:g} s "
                "measured (k6 constant-arrival-rate)"
            )
        else:
            text = (
                f"{self.vus} VUs (connections), {self.warmup_s:g} s warm-up "
                f"+ {self.duration_s:g} s measured (k6 constant-vus)"
            )
        return f"{self.shape}: {text}" + (f", {self.rounds} rounds" if self.rounds > 1 else "")


def _field(table: LoadTable, key: str, where: str) -> Any:
    value = getattr(table, key)
    if value is None:
        raise SpecError(f"{where}: missing `{key}`")
    return value


def _arrival_vus(table: LoadTable, where: str) -> int:
    """vegeta's VUs ready at the start: `vus`, or `vus_per_rate` x `rate` (at least
    `min_vus`), so that one rule serves every rate of a sweep."""
    if table.vus is not None or table.vus_per_rate is None:
        return int(_field(table, "vus", where))
    wanted = math.ceil(table.vus_per_rate * int(_field(table, "rate", where)))
    return max(table.min_vus or 1, wanted)


def parse_load(raw: Mapping[str, Any] | LoadTable, where: str, shape: str = "wrk") -> Load:
    """A load table (servelab.spec.matrix.LoadTable; SpecError where it is wrong): `shape`
    (default `shape`), `vus`, and `duration_s` / `warmup_s` for a timed shape (plus `rate`
    and `max_vus` for vegeta's, whose `vus` may instead follow the rate: `vus_per_rate`,
    `min_vus`) or `iterations` / `max_duration_s` for a counted one; `rounds` for any."""
    table = raw if isinstance(raw, LoadTable) else validate(LoadTable, raw, where)
    name = table.shape or shape
    if name not in SHAPES:
        raise SpecError(f"{where}: shape {name!r} is none of {', '.join(SHAPES)}")
    rounds = table.rounds or 1
    if SHAPES[name] in COUNTED_EXECUTORS:
        if stray := [key for key in ("duration_s", "warmup_s") if getattr(table, key) is not None]:
            raise SpecError(f"{where}: {name} is counted, {stray[0]} does not apply")
        return Load(
            vus=_field(table, "vus", where),
            shape=name,
            iterations=_field(table, "iterations", where),
            max_duration_s=_field(table, "max_duration_s", where),
            rounds=rounds,
        )
    arrival = SHAPES[name] == ARRIVAL
    vus = _arrival_vus(table, where) if arrival else _field(table, "vus", where)
    duration_s = _field(table, "duration_s", where)
    if duration_s < _K6_SHORTEST_S:
        raise SpecError(
            f"{where}: duration_s {duration_s:g} is shorter than the {_K6_SHORTEST_S:g} s "
            f"k6 runs a {SHAPES[name]} scenario for"
        )
    return Load(
        vus=vus,
        shape=name,
        duration_s=duration_s,
        warmup_s=table.warmup_s or 0.0,
        rate=_field(table, "rate", where) if arrival else 0,
        max_vus=max(vus, table.max_vus or vus) if arrival else 0,
        rounds=rounds,
    )
