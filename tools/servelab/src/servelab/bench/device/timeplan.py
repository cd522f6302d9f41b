"""The time plan of a device run before it runs (`python -m servelab.bench.device plan`):
each stack's seconds estimated from an earlier run's figures, so that a matrix that would not
fit the call's window is seen here, not on the GPU machine.

A stack the earlier run measured takes what it took besides its loads (start, warm-up, stop)
plus each planned load's requests at the rate it measured; a stack it did not measure takes
the most any measured stack took besides its loads and the lowest rate measured under each
load: a plan errs long, never short.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from servelab.bench.device.plan import DeviceStack, Plan
from servelab.bench.device.results import DeviceRun, StackResult

# What the run does after the stacks, in seconds each (most of it loading an engine): a
# stage profile, an accuracy check; as the first H200 run took them (8 to 14 s).
PROFILE_S = 20.0
EVAL_S = 15.0
# Without an earlier run: a stack's time besides its loads, and its rate under every load.
UNKNOWN_OVERHEAD_S = 12.0
UNKNOWN_RPS = 20.0


class StackEstimate(NamedTuple):
    """A stack's estimated seconds; `measured`: from its own earlier figures."""

    stack: DeviceStack
    seconds: float
    measured: bool


@dataclass(frozen=True)
class TimePlan:
    """Every stack's estimate, then what runs after the stacks."""

    stacks: list[StackEstimate]
    after_s: float

    @property
    def stacks_s(self) -> float:
        return sum(each.seconds for each in self.stacks)

    @property
    def total_s(self) -> float:
        return self.stacks_s + self.after_s


def _overhead(result: StackResult) -> float:
    return max(0.0, result.wall_s - sum(load.elapsed_s for load in result.loads))


def time_plan(plan: Plan, cpus: int, earlier: DeviceRun | None = None) -> TimePlan:
    """Every stack of `plan` on `cpus` CPUs, and what comes after, in estimated seconds."""
    ran = [result for result in (earlier.stacks if earlier else []) if result.ran]
    overhead = max((_overhead(result) for result in ran), default=UNKNOWN_OVERHEAD_S)
    lowest = {
        name: min((load.rps for r in ran for load in r.loads if load.name == name), default=0.0)
        for name in plan.loads
    }
    estimates = []
    for stack in plan.stacks(cpus):
        same = next(
            (r for r in ran if (r.variant, r.workers) == (stack.variant.name, stack.workers)),
            None,
        )
        rates = {load.name: load.rps for load in same.loads} if same else {}
        seconds = _overhead(same) if same else overhead
        for name, load in plan.loads.items():
            rate = rates.get(name) or lowest[name] or UNKNOWN_RPS
            seconds += load.iterations / rate
        estimates.append(StackEstimate(stack, seconds, same is not None))
    after = PROFILE_S * len(plan.spec.profile) + EVAL_S * len(plan.spec.eval)
    return TimePlan(estimates, after)


def render(timed: TimePlan, budget_s: float, reserve_s: float) -> str:
    """The plan as lines: each stack, the sums, and whether it fits the runner's budget."""
    out = [f"{'stack':<26}{'seconds':>8}  from"]
    for each in timed.stacks:
        source = "its earlier figures" if each.measured else "the slowest earlier figures"
        out.append(f"{each.stack.label:<26}{each.seconds:>8.0f}  {source}")
    room = budget_s - reserve_s
    fits = "fits" if timed.stacks_s <= room else "does NOT fit"
    out += [
        f"{'stacks':<26}{timed.stacks_s:>8.0f}  {fits} the {room:.0f} s the budget leaves them",
        f"{'profiles and accuracy':<26}{timed.after_s:>8.0f}  of {reserve_s:.0f} s kept for them",
        f"{'in all':<26}{timed.total_s:>8.0f}  of a {budget_s:.0f} s budget",
    ]
    return "\n".join(out)
