"""`servelab probe dependencies`: a family's dependencies (its [faults.dependencies]: the
entry editor's database, Redis and compute service) cut or stalled under constant load,
then back. Each stack reaches every dependency through a Proxy the probe cuts (refusing new
connections, resetting the established ones) or stalls (accepting connections, answering
nothing: a hung server or a partition) `cut_at_s` into the run, and restores at
`restore_at_s`. Goal: during the outage every answer what the dependency's `during` says
within FAST_MS, never a 500 or a timeout (a stall is ended by the clients' deadlines, then
the service's breaker); a spot request sent by hand mid-outage answered too; every answer a
success again within RECOVERY_S of the return.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from itertools import product
from typing import TextIO

import httpx2

from servelab.project import Project
from servelab.reliability.faults.proxy import Proxy
from servelab.reliability.outage.analysis import DrillOutcome, Events, analyse, per_second
from servelab.reliability.outage.report import by_second
from servelab.reliability.outage.run import Step, run_load
from servelab.reliability.rows import Row, Verdict
from servelab.reliability.stacks import started
from servelab.spec.reliability import Dependencies, Dependency, Schedule, TargetStack
from servelab.stack import Stack, databases
from servelab.stack.attached import Address
from servelab.stack.ports import LOOPBACK

FAST_MS = 1000.0
RECOVERY_S = 5.0
# How a dependency fails: a Proxy method, and what the report says it does.
MODES = {
    "cut": "cut (connections refused and reset)",
    "stall": "stalled (connections accepted, nothing answered)",
}


@dataclass
class Spot:
    """One request sent by hand in the middle of the outage."""

    status: int = 0
    ms: float = 0.0
    json: bool = False
    retry_after: bool = False


def _spot(url: str, endpoint: str, found: Spot) -> None:
    started = time.monotonic()
    try:
        response = httpx2.get(url + endpoint, timeout=5)
        found.status = response.status_code
        found.json = response.headers.get("content-type", "").startswith("application/json")
        found.retry_after = "retry-after" in response.headers
    except httpx2.HTTPError:
        pass
    found.ms = (time.monotonic() - started) * 1000


def _spot_endpoint(dependency: Dependency) -> str:
    """The spot request's endpoint, its `{n}` a number no one asked for before."""
    return (dependency.spot or dependency.endpoint).replace("{n}", str(int(time.time()) % 997 + 2))


def _verdict(
    dependency: Dependency,
    mode: str,
    label: str,
    outcome: DrillOutcome,
    spot: Spot,
    schedule: Schedule,
    slow: int,
) -> Row:
    down = outcome.down
    unlabelled = down.status_503 - down.with_retry_after
    spot_ok = spot.ms < FAST_MS and (
        spot.status == 200 or (spot.status == 503 and spot.retry_after)
        if dependency.spot_2xx
        else spot.status == 503 and spot.json and spot.retry_after
    )
    recovered = outcome.recovered_after_s
    passed = (
        down.other == 0
        and unlabelled == 0
        and down.max_ms < FAST_MS
        and spot_ok
        and recovered is not None
        and recovered <= RECOVERY_S
    )
    back = f"{recovered:g} s" if recovered is not None else "never"
    observed = (
        f"{schedule.restore_at_s - schedule.cut_at_s:g} s down: {down.answers} answers, "
        f"{down.ok} 2xx, {down.status_503} 503 ({down.with_retry_after} with Retry-After), "
        f"{down.other} other, {slow} over 1 s, max {down.max_ms:g} ms; spot request {spot.status} "
        f"in {spot.ms:.0f} ms; every answer a success again {back} after the return; "
        f"{outcome.before.other + outcome.after.other} failures outside the outage"
    )
    return Row(
        probe=f"{dependency.name} {MODES[mode]} under {schedule.rate} req/s",
        target=f"{label} behind nginx, GET {dependency.endpoint}",
        expected=(
            f"{dependency.during} within {FAST_MS / 1000:g} s, never a 500 or a timeout; "
            f"all 2xx within {RECOVERY_S:g} s of its return"
        ),
        observed=observed,
        verdict=Verdict.PASS if passed else Verdict.FAIL,
        figures={
            "down_answers": down.answers,
            "down_2xx": down.ok,
            "down_503": down.status_503,
            "down_503_retry_after": down.with_retry_after,
            "down_other": down.other,
            "down_p99_ms": down.p99_ms,
            "down_max_ms": down.max_ms,
            "down_over_1s": slow,
            "spot_status": spot.status,
            "spot_ms": round(spot.ms, 1),
            "recovered_s": recovered if recovered is not None else -1.0,
            "failed_outside": outcome.before.other + outcome.after.other,
        },
    )


@contextmanager
def proxied_stack(
    project: Project,
    target: TargetStack,
    outages: Sequence[Dependency],
    log: TextIO,
    env: Mapping[str, str],
) -> Iterator[tuple[Stack, dict[str, Proxy]]]:
    """The target's stack on a scratch database, each dependency behind a Proxy (a service
    of the stack's own, pointed at once the stack has given it a port)."""
    attached = {"mariadb": databases.mariadb, "redis": databases.redis}
    with ExitStack() as running:
        proxies = {
            d.service: running.enter_context(
                Proxy(attached[d.attached]() if d.attached else Address(LOOPBACK, 0))
            )
            for d in outages
        }
        through = {name: proxy.port for name, proxy in proxies.items()}
        stack, _ = running.enter_context(
            started(project, target, log, "ee_deps_", env, through=through)
        )
        for d in outages:
            if not d.attached:
                proxies[d.service].target = Address(LOOPBACK, stack.port(d.service))
        yield stack, proxies


def probe_dependency(
    project: Project,
    url: str,
    proxy: Proxy,
    dependency: Dependency,
    mode: str,
    label: str,
    schedule: Schedule,
) -> tuple[Row, str, list[str]]:
    """One outage of one dependency under load: the row, its second-by-second table and
    k6's command."""
    spot = Spot()
    middle = (schedule.cut_at_s + schedule.restore_at_s) / 2
    loaded = run_load(
        project,
        url,
        dependency.endpoint,
        rate=schedule.rate,
        duration_s=schedule.duration_s,
        steps=[
            Step(schedule.cut_at_s, mode, getattr(proxy, mode)),
            Step(middle, "spot", lambda: _spot(url, _spot_endpoint(dependency), spot)),
            Step(schedule.restore_at_s, "restored", proxy.restore),
        ],
        work=project.work("probe", "dependencies", *label.split(), dependency.name),
    )
    down_ms, back_ms = loaded.events_ms[mode], loaded.events_ms["restored"]
    outcome = analyse(loaded.answers, Events(down_ms, back_ms, back_ms))
    slow = sum(
        down_ms <= answer.at_ms < back_ms and answer.duration_ms >= FAST_MS
        for answer in loaded.answers
    )
    title = f"{dependency.name} {MODES[mode]}, {label} (GET {dependency.endpoint})"
    row = _verdict(dependency, mode, label, outcome, spot, schedule, slow)
    start = loaded.answers[0].at_ms if loaded.answers else 0.0
    seconds = by_second(per_second(loaded.answers, start), start, loaded.events_ms.items(), "probe")
    return row, "\n".join([f"{title}:", "", *seconds]).rstrip(), loaded.command


def probe_dependencies(
    project: Project,
    target: Dependencies,
    modes: Sequence[str] = tuple(MODES),
    env: Mapping[str, str] | None = None,
) -> tuple[list[Row], list[str], list[str]]:
    """Every dependency of the target's cut and stalled under load, for each of its stacks,
    as compose runs it (`env`: settings over the stack's, e.g. fewer workers): the rows,
    the second-by-second tables and the last k6 command."""
    rows: list[Row] = []
    tables: list[str] = []
    command: list[str] = []
    for served in target.stacks:
        label = f"{target.family} {served.variant}"
        log = project.work("probe", "dependencies", *label.split()) / "server.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with (
            log.open("w") as server_log,
            proxied_stack(project, served, target.outages, server_log, env or {}) as running,
        ):
            stack, proxies = running
            for dependency, mode in product(target.outages, modes):
                row, table, command = probe_dependency(
                    project,
                    stack.url(served.service),
                    proxies[dependency.service],
                    dependency,
                    mode,
                    label,
                    target.schedule,
                )
                rows.append(row)
                tables.append(table)
    return rows, tables, command
