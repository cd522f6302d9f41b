"""`servelab probe coldstart`: each family's stack started cold and sent its rated load the
moment the runner says it is up, as a deploy, a restart or a scale-out meets traffic.

The runner's readiness is what `servelab up` waits for: every service's compose
healthcheck passes (servelab.stack). From then on k6 runs the family's own script at a
constant arrival rate (vegeta's shape) for a few seconds, with every request recorded.
Goal: not one request failed (no error status, no connection refused or reset, no
timeout), not one the client could not start for want of a free connection, not one wrong
answer. A listen queue too short for the first burst, a worker that passes the
healthcheck before it can serve, a cache or pool filled by the first requests: each shows
here as failures in the first second.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from servelab.bench.load.k6 import k6_argv, k6_binary, run_k6
from servelab.project import LOADTESTS, Project
from servelab.reliability.faults.k6_requests import Requests, read_requests
from servelab.reliability.rows import Row, Verdict
from servelab.reliability.stacks import started
from servelab.spec.reliability import Coldstart, TargetStack, chosen

DEFAULT_SECONDS = 5.0
# How long k6 may run past the load's end (the requests in flight, its own start and exit).
_K6_GRACE_S = 60.0


@dataclass(frozen=True)
class Target:
    """One stack of a family's [coldstart] (servelab.spec.reliability.Coldstart) and the load
    sent to it."""

    load: Coldstart
    stack: TargetStack

    @property
    def label(self) -> str:
        return f"{self.load.family} {self.stack.variant}"


def targets(project: Project, families: Sequence[str] = ()) -> list[Target]:
    """Every stack of the families' [coldstart] (default: every family that has one)."""
    loads = chosen(project, lambda spec: spec.coldstart, "coldstart", families)
    return [Target(load, stack) for load in loads.values() for stack in load.stacks]


@dataclass(frozen=True)
class ColdRun:
    """What the load after `up_ms` (unix ms: the runner's readiness) saw."""

    requests: Requests
    up_ms: float
    seconds: float


def _seconds_after(at_ms: float | None, up_ms: float) -> float:
    return round((at_ms - up_ms) / 1000, 3) if at_ms is not None else -1.0


def coldstart_row(target: Target, run: ColdRun) -> Row:
    """The row of one cold start: a pass only with every request sent and answered well."""
    sent = run.requests.sent
    failures = run.requests.failures()
    failed = sum(failures.values())
    first_ok = next((r.at_ms for r in sent if r.ok), None)
    first_sent = min((r.at_ms - r.duration_ms for r in sent), default=None)
    p99 = round(run.requests.p99_ms(), 1)
    passed = (
        bool(sent)
        and failed == 0
        and run.requests.dropped == 0
        and run.requests.failed_checks == 0
        and first_ok is not None
    )
    by_kind = ", ".join(f"{count} {kind}" for kind, count in sorted(failures.items()))
    first = (
        f"first success {_seconds_after(first_ok, run.up_ms):g} s after up"
        if first_ok is not None
        else "no success"
    )
    started = f"{_seconds_after(first_sent, run.up_ms):g} s" if first_sent is not None else "never"
    observed = (
        f"{len(sent)} requests in {run.seconds:g} s: {failed} failed"
        f"{f' ({by_kind})' if by_kind else ''}, {run.requests.dropped} never started (no free "
        f"VU), {run.requests.failed_checks} failed checks; p99 {p99:g} ms; {first} "
        f"(first request sent {started} after up)"
    )
    return Row(
        probe=f"cold start, then {target.load.rate} requests/s for {run.seconds:g} s",
        target=f"{target.label} ({target.stack.service}): {target.load.request}, "
        f"loadtests/{target.load.script}",
        expected="every request sent and answered with a 2xx that passes the script's checks, "
        "from the first second",
        observed=observed,
        verdict=Verdict.PASS if passed else Verdict.FAIL,
        figures={
            "sent": len(sent),
            "failed": failed,
            **{f"failed_{kind.replace(' ', '_')}": count for kind, count in failures.items()},
            "dropped": run.requests.dropped,
            "failed_checks": run.requests.failed_checks,
            "p99_ms": p99,
            "first_ok_s": _seconds_after(first_ok, run.up_ms),
            "first_sent_s": _seconds_after(first_sent, run.up_ms),
        },
    )


def k6_env(load: Coldstart, url: str, seconds: float, token: str) -> dict[str, str]:
    """The script's environment: the stack's settings and the load's, vegeta's shape at
    its rate, failures recorded rather than failing k6 (as `servelab bench`)."""
    return {
        "BASE_URL": url,
        **load.server_env,
        **load.env,
        "SHAPE": "vegeta",
        "RATE": str(load.rate),
        "DURATION": f"{seconds:g}s",
        "VUS": str(load.vus),
        "MAX_VUS": str(load.max_vus),
        "THRESHOLD_FAILED": "1",
        "THRESHOLD_CHECKS": "0",
        "API_TOKEN": token,
    }


def probe_target(project: Project, target: Target, seconds: float) -> Row:
    work = project.work("probe", "coldstart", target.load.family, target.stack.variant)
    work.mkdir(parents=True, exist_ok=True)
    answers = work / "requests.csv"
    answers.unlink(missing_ok=True)
    scratch = "ee_cold_" if target.load.database else None
    with (
        (work / "server.log").open("w") as log,
        started(project, target.stack, log, scratch, target.load.server_env) as (stack, _),
    ):
        up_ms = time.time() * 1000
        env = k6_env(target.load, stack.url(target.stack.service), seconds, stack.api_token)
        argv = k6_argv(
            k6_binary(),
            LOADTESTS / target.load.script,
            env,
            options=["--out", f"csv=fileName={answers},timeFormat=unix_milli"],
        )
        run_k6(argv, cwd=project.root, log=work / "k6.log", timeout_s=seconds + _K6_GRACE_S)
    return coldstart_row(target, ColdRun(read_requests(answers), up_ms, seconds))


def probe_coldstart(
    project: Project, families: Sequence[str] = (), seconds: float = DEFAULT_SECONDS
) -> list[Row]:
    """A cold start of every target of `families` (default: every family with a
    [coldstart]), one after another."""
    return [probe_target(project, target, seconds) for target in targets(project, families)]
