"""How long the reliability suite takes, phase by phase, before it runs: what each phase
loads, for how long, from the drills, probes and the families' fuzz and soak targets
themselves (their specs), plus what starting and stopping each stack and client costs.

Almost all of it is wall-clock windows (a drill's 15 s at a constant rate, a soak's minute,
the full form's schema runs repeated for a set time) that last as long on any machine, so
the plan is not scaled by the machine's pace as the benchmarks' estimate is. The costs
around the windows (`*_OVERHEAD_S`) and the quick form's one pass of the schema runs (each
family's [fuzz] schema_pass_s) were read off whole runs on the 2-CPU development VMs; in the last
`make reliability`, the phases took 418, 319, 262 and 344 s where this plan says 412, 309, 302 and
330.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from servelab.bench.progress import clock
from servelab.project import Project
from servelab.reliability.faults import coldstart
from servelab.reliability.faults.dependencies import MODES
from servelab.reliability.faults.sections import NEEDS_ROOT, PROBES, dependency_targets
from servelab.reliability.fuzz.run import FuzzOptions
from servelab.reliability.outage.drill import DrillError, drills
from servelab.reliability.soak.run import FORMS as SOAK_FORMS
from servelab.reliability.soak.targets import soaks
from servelab.spec.reliability import Fuzz, chosen

# A drill's stack started and stopped, k6 started and its answers read.
DRILL_OVERHEAD_S = 2.5
# The dependency probe: each variant's stack (a scratch database and its corpus), and each
# outage's k6 start and analysis.
DEPENDENCIES_STACK_S = 3.0
DEPENDENCY_OUTAGE_OVERHEAD_S = 1.0
# The probes that run no load of a set length: their whole run.
PROBE_S = {"disk-full": 3.0, "aborts": 15.0}
# A cold start's load window includes its stack's start; what remains is k6's start and
# the stack's stop.
COLDSTART_OVERHEAD_S = 2.0
# A fuzz target's hand-written cases, its stack's share, the download race. One pass of the
# schema runs (the quick form) is each family's [fuzz] schema_pass_s.
FUZZ_TARGET_OVERHEAD_S = 3.0
# How `make reliability` fuzzes in each form of the suite: each phase once a target, or,
# with FORM=full, the phases repeated for 60 s (`servelab fuzz --seconds 60`).
FUZZ_FORMS = {"quick": FuzzOptions(), "full": FuzzOptions(time_limit_s=60)}
# A soak's stack, its load started and stopped, its last sample.
SOAK_OVERHEAD_S = 6.0


def drills_s(project: Project, names: Sequence[str]) -> float:
    every = drills(project)
    if unknown := [name for name in names if name not in every]:
        raise DrillError(f"no outage drill {unknown[0]!r} (known: {', '.join(every)})")
    return sum(every[name].duration_s + DRILL_OVERHEAD_S for name in names)


def probes_s(
    project: Project, names: Sequence[str], families: Sequence[str], seconds: float
) -> float:
    """`servelab probe` running `names`, its cold starts over `families` for `seconds`."""
    total = 0.0
    for name in names:
        if name == "dependencies":
            for target in dependency_targets(project):
                outages = len(target.outages) * len(MODES)
                per_outage = target.schedule.duration_s + DEPENDENCY_OUTAGE_OVERHEAD_S
                total += len(target.stacks) * (DEPENDENCIES_STACK_S + outages * per_outage)
        elif name == "coldstart":
            targets = coldstart.targets(project, families)
            total += len(targets) * (seconds + COLDSTART_OVERHEAD_S)
        else:
            total += PROBE_S[name]
    return total


def fuzz_s(families: Sequence[Fuzz], options: FuzzOptions) -> float:
    repeated = options.max_time_s
    total = 0.0
    for family in families:
        schema_s = family.schema_pass_s if repeated is None else repeated
        for stack in family.stacks:
            for target in stack.targets:
                schema = schema_s if target.openapi else 0.0
                total += schema + options.slowloris_s + FUZZ_TARGET_OVERHEAD_S
    return total


def soaks_s(families: Sequence[str], form: str) -> float:
    duration_s, _ = SOAK_FORMS[form]
    return len(families) * (duration_s + SOAK_OVERHEAD_S)


def probe_names(root: bool | None = None) -> list[str]:
    """What `servelab probe` with no name runs: those that need root only as root."""
    root = os.geteuid() == 0 if root is None else root
    return [name for name in PROBES if root or name not in NEEDS_ROOT]


def suite_plan(project: Project, form: str = "quick") -> dict[str, float]:
    """`make reliability FORM=<form>` (quick or full): each phase's seconds, in the order it
    runs them."""
    fuzzed = chosen(project, lambda spec: spec.fuzz, "fuzz").values()
    return {
        "drills": drills_s(project, list(drills(project))),
        "probes": probes_s(project, probe_names(), (), coldstart.DEFAULT_SECONDS),
        "fuzzing": fuzz_s(list(fuzzed), FUZZ_FORMS[form]),
        "soaks": soaks_s(list(soaks(project)), form),
    }


def announce(what: str, seconds: float) -> str:
    """The line a phase prints as it starts."""
    return f"servelab: {what}: about {clock(seconds)}"
