"""Run a soak: the family's target at half its measured capacity for a while, sampled every
few seconds; a verdict per measure (flat after warm-up, within a stated tolerance)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import httpx2

from servelab.project import Project
from servelab.reliability.outage.run import Step, run_load
from servelab.reliability.rows import Row, Verdict
from servelab.reliability.soak.sampling import Sample, sample
from servelab.reliability.soak.targets import SoakError, measured_capacity, soaks
from servelab.reliability.stacks import started
from servelab.spec.reliability import Soak
from servelab.stack import Stack

# form -> (duration_s, interval_s)
FORMS = {"quick": (60.0, 3.0), "full": (600.0, 10.0)}
# The first WARMUP_SHARE of the samples are the warm-up: not judged; at least MIN_JUDGED
# samples after it are compared.
WARMUP_SHARE = 0.2
MIN_JUDGED = 2
PAYLOAD_BYTES = 256 * 1024
# Without a measured capacity, a short run of this many clients back to back measures it.
PROBE_VUS = 16
PROBE_S = 5.0
# k6's preallocated VUs: one per VUS_PER requests/s (it adds more if answers slow down), so
# the server's connections, each a descriptor, reach their number in the warm-up.
VUS_PER = 20


@dataclass(frozen=True)
class Measure:
    name: str
    unit: str
    value: Callable[[Sample], float]
    tolerance: Callable[[float], float]  # the growth allowed over a baseline
    stated: str


MEASURES = (
    Measure(
        "memory (RSS)",
        "MiB",
        lambda s: s.rss_mib,
        lambda base: max(0.1 * base, 16.0),
        "10 % or 16 MiB, whichever is more",
    ),
    Measure("file descriptors (not sockets)", "", lambda s: s.fds, lambda base: 5.0, "5"),
    Measure("sockets left in CLOSE_WAIT", "", lambda s: s.close_wait, lambda base: 2.0, "2"),
    Measure("DB connections", "", lambda s: s.db_connections, lambda base: 2.0, "2"),
    Measure("temp files", "", lambda s: s.temp_files, lambda base: 2.0, "2"),
)


@dataclass(frozen=True)
class Soaked:
    probes: list[Row]
    samples: list[Sample]
    rate: int
    capacity: float
    capacity_from: str  # where the capacity comes from
    command: list[str]


def judge(target: Soak, samples: Sequence[Sample], duration_s: float) -> list[Row]:
    """Flat or growing: the median of the last third of the samples after warm-up against
    the median of the first third; too few samples after it to compare is a failure."""
    judged = samples[max(1, int(len(samples) * WARMUP_SHARE)) :]
    third = max(1, len(judged) // 3)
    rows = []
    for measure in MEASURES:
        if measure.name == "DB connections" and not target.database:
            continue
        values = [measure.value(s) for s in judged]
        expected = f"flat after warm-up: growth within {measure.stated}"
        name = f"soak {duration_s:g} s: {measure.name}"
        where = f"{target.family} {target.variant} ({', '.join(target.watched)})"
        if len(values) < MIN_JUDGED:
            observed = (
                f"too few samples to judge: {len(samples)} in all, {len(values)} after the "
                f"warm-up, where at least {MIN_JUDGED} are needed to compare early with late"
            )
            rows.append(
                Row(name, where, expected, observed, Verdict.FAIL, {"samples": len(values)})
            )
            continue
        baseline = statistics.median(values[:third])
        final = statistics.median(values[-third:])
        growth = final - baseline
        unit = f" {measure.unit}" if measure.unit else ""
        observed = (
            f"{baseline:g}{unit} early, {final:g}{unit} late (growth {growth:+g}); "
            f"range {min(values):g} to {max(values):g} over {len(values)} samples"
        )
        figures = {
            "baseline": baseline,
            "final": final,
            "growth": round(growth, 2),
            "max": max(values),
            "samples": len(values),
        }
        verdict = Verdict.PASS if growth <= measure.tolerance(baseline) else Verdict.FAIL
        rows.append(Row(name, where, expected, observed, verdict, figures))
    return rows


def _endpoint(stack: Stack, target: Soak) -> str:
    """The target's endpoint, with {id} a file uploaded for it."""
    if "{id}" not in target.endpoint:
        return target.endpoint
    created = httpx2.post(
        stack.url(target.service) + "/files",
        content=os.urandom(PAYLOAD_BYTES),
        headers={"Authorization": f"Bearer {stack.api_token}"},
        timeout=30,
    )
    created.raise_for_status()
    return target.endpoint.replace("{id}", created.json()["id"])


def run_soak(
    project: Project,
    family: str,
    duration_s: float,
    interval_s: float,
    rate: int | None = None,
) -> Soaked:
    chosen = soaks(project, [family])[family]
    capacity = measured_capacity(project, chosen)
    capacity_from = f"docs/results/{family}.json" if capacity else ""
    work = project.work("soak", family)
    work.mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    scratch = "ee_soak_" if chosen.database else None
    with (
        (work / "server.log").open("w") as log,
        started(project, chosen, log, scratch) as (stack, database),
    ):
        url, endpoint = stack.url(chosen.service), _endpoint(stack, chosen)
        load = partial(run_load, project, url, endpoint, json_body=chosen.json_body)
        if rate is None and capacity is None:
            # Successful answers per second of PROBE_VUS clients back to back for PROBE_S.
            probed = load(
                rate=None, duration_s=PROBE_S, steps=[], work=work / "capacity", vus=PROBE_VUS
            )
            capacity = sum(answer.ok for answer in probed.answers) / PROBE_S
            capacity_from = f"a {PROBE_S:g} s run of {PROBE_VUS} clients back to back"
        if rate is None:
            if not capacity:
                raise SoakError(f"{family}: no successful answer to measure a capacity by")
            rate = max(1, int(capacity / 2))
        dirs = [stack.run_dir / "tmp", *(stack.run_dir / "volumes" / d for d in chosen.temp_dirs)]
        begun = time.monotonic()

        def take() -> None:
            samples.append(sample(stack, chosen.watched, database, dirs, begun))

        every = [
            Step(n * interval_s, f"sample {n}", take)
            for n in range(int(duration_s // interval_s) + 1)
        ]
        loaded = load(
            rate=rate, duration_s=duration_s, steps=every, work=work, vus=max(2, rate // VUS_PER)
        )
    probes = judge(chosen, samples, duration_s)
    failed = sum(not answer.ok for answer in loaded.answers)
    sent = int(rate * duration_s)
    sockets = [s.sockets for s in samples]
    observed = (
        f"{len(loaded.answers)} answers of {sent} scheduled ({failed} not 2xx); the servers "
        f"held {min(sockets, default=0)} to {max(sockets, default=0)} sockets, as many as k6 "
        "opened connections"
    )
    figures = {
        "answers": len(loaded.answers),
        "scheduled": sent,
        "failed": failed,
        "rate": rate,
        "sockets_max": max(sockets, default=0),
    }
    probes.append(
        Row(
            f"soak {duration_s:g} s: answers at {rate} req/s",
            f"{chosen.family} {chosen.variant}, {chosen.request}",
            "every answer a 2xx at half the measured capacity",
            observed,
            Verdict.PASS if failed == 0 and loaded.answers else Verdict.FAIL,
            figures,
        )
    )
    return Soaked(probes, samples, rate, capacity or 0.0, capacity_from, loaded.command)
