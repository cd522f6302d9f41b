"""`servelab probe dependencies`: the entry editor's database, Redis and compute service
cut or stalled under constant load, then back.

The stack (nginx + uWSGI or gunicorn, a scratch database on the machine's MariaDB, Redis
DB 2 under its own key prefix) reaches MariaDB, Redis and the Thrift compute service
through a Proxy each: the probe cuts one (refusing new connections and resetting the
established ones) or stalls it (accepting connections, answering nothing: a hung server or
a partition) `cut_at_s` into a constant-rate run and restores it at `restore_at_s`.

Goal: every answer during the outage a 2xx or a 503 JSON with Retry-After, none slower than
1 s, never a 500 or a timeout, and every answer a success again within 5 s of the
dependency's return, stalled or cut. A stalled dependency gives no refusal to answer at
once: what ends the wait is the client's deadline (the app servers' DB_DEADLINE for
MariaDB, COMPUTE_TIMEOUT for the compute service), after which the service's breaker
answers the others at once. A Redis outage is meant to cost nothing but speed (the cache is
bypassed), so a request for a key no one has cached yet is sent during it and must be a 200
within that second too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx2

from servelab.project import work_dir
from servelab.reliability.faults.load import Step, run_load
from servelab.reliability.faults.proxy import Proxy
from servelab.reliability.faults.timeline import seconds_table
from servelab.reliability.outage.analysis import Events, Outcome, analyse
from servelab.reliability.rows import Row, Verdict
from servelab.stack import Stack, databases
from servelab.stack.attached import Address
from servelab.stack.databases import scratch_database
from servelab.stack.ports import LOOPBACK

REDIS_DB = 2
CORPUS_LIMIT = 300
WORD = quote("水")
# The deploy variants: profile -> the nginx in front.
VARIANTS = {"uwsgi": "entryeditor-nginx", "gunicorn": "entryeditor-gunicorn-nginx"}
FAST_MS = 1000.0
RECOVERY_S = 5.0


@dataclass(frozen=True)
class Dependency:
    name: str  # what the report calls it
    service: str  # its compose service
    endpoint: str  # what the load asks for: an answer that needs the dependency
    during: str  # what each answer during the outage should be


DEPENDENCIES = (
    Dependency(
        "database",
        "entryeditor-mariadb",
        "/entryeditor/entryeditor/47",
        "a 503 JSON with Retry-After",
    ),
    Dependency(
        "redis",
        "entryeditor-redis",
        f"/corpus/statistics/get_pmi/?word={WORD}",
        "a 2xx (the cache bypassed) or a 503 JSON with Retry-After",
    ),
    Dependency(
        "compute",
        "entryeditor-compute",
        "/corpus/sentence/100/neighbors/",
        "a 503 JSON with Retry-After",
    ),
)


# How a dependency fails: a Proxy method, and what the report says it does.
MODES = {
    "cut": "cut (connections refused and reset)",
    "stall": "stalled (connections accepted, nothing answered)",
}


@dataclass(frozen=True)
class Schedule:
    """When, into a run of `duration_s` at `rate` requests/s, the dependency goes and comes
    back: 4 s of answers before (every worker's caches warm), 4 s down, then 6 s, one more
    than RECOVERY_S, to see every answer a success again."""

    rate: int = 20
    duration_s: float = 14.0
    cut_at_s: float = 4.0
    restore_at_s: float = 8.0


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


def _cold_endpoint(dependency: Dependency) -> str:
    """An answer no one asked for before (a cold cache key), for the spot check."""
    if dependency.name == "redis":
        return f"/corpus/statistics/get_pmi/?word={WORD}&min_count={int(time.time()) % 997 + 2}"
    return dependency.endpoint


def _verdict(
    dependency: Dependency,
    mode: str,
    variant: str,
    outcome: Outcome,
    spot: Spot,
    schedule: Schedule,
    slow: int,
) -> Row:
    down = outcome.down
    unlabelled = down.status_503 - down.with_retry_after
    spot_ok = spot.ms < FAST_MS and (
        spot.status == 503 and spot.json and spot.retry_after
        if dependency.name == "database"
        else spot.status == 200 or (spot.status == 503 and spot.retry_after)
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
        target=f"entryeditor {variant} behind nginx, GET {dependency.endpoint}",
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
    profile: str, database: str, log: Path, env: Mapping[str, str]
) -> Iterator[tuple[Stack, dict[str, Proxy]]]:
    """The profile's stack with MariaDB, Redis and the compute service behind a Proxy each
    (the compute service's, pointed at it once the stack has given it a port)."""
    targets = {
        "entryeditor-mariadb": databases.mariadb(),
        "entryeditor-redis": databases.redis(),
        "entryeditor-compute": Address(LOOPBACK, 0),
    }
    with ExitStack() as running:
        proxies = {name: running.enter_context(Proxy(target)) for name, target in targets.items()}
        settings = {"EE_DATABASE": database, "EE_REDIS_DB": str(REDIS_DB)}
        stack = Stack(
            profile,
            only=[VARIANTS[profile]],
            env={**settings, "CORPUS_LIMIT": str(CORPUS_LIMIT), **env},
            through={name: proxy.port for name, proxy in proxies.items()},
            log=running.enter_context(log.open("w")),
        )
        running.enter_context(stack)
        proxies["entryeditor-compute"].target = Address(LOOPBACK, stack.port("entryeditor-compute"))
        yield stack, proxies


def probe_dependency(
    project_dir: Path,
    stack: Stack,
    proxy: Proxy,
    dependency: Dependency,
    mode: str,
    variant: str,
    schedule: Schedule,
) -> tuple[Row, str, list[str]]:
    """One outage of one dependency under load: the row, its second-by-second table and
    k6's command."""
    url = stack.url(VARIANTS[variant])
    spot = Spot()
    middle = (schedule.cut_at_s + schedule.restore_at_s) / 2
    loaded = run_load(
        project_dir,
        url,
        dependency.endpoint,
        rate=schedule.rate,
        duration_s=schedule.duration_s,
        steps=[
            Step(schedule.cut_at_s, mode, getattr(proxy, mode)),
            Step(middle, "spot", lambda: _spot(url, _cold_endpoint(dependency), spot)),
            Step(schedule.restore_at_s, "restored", proxy.restore),
        ],
        work=work_dir(project_dir, "probe", "dependencies", variant, dependency.name),
    )
    down_ms, back_ms = loaded.events_ms[mode], loaded.events_ms["restored"]
    outcome = analyse(loaded.answers, Events(down_ms, back_ms, back_ms))
    slow = sum(
        down_ms <= answer.at_ms < back_ms and answer.duration_ms >= FAST_MS
        for answer in loaded.answers
    )
    title = f"{dependency.name} {MODES[mode]}, entryeditor {variant} (GET {dependency.endpoint})"
    probe = _verdict(dependency, mode, variant, outcome, spot, schedule, slow)
    return probe, seconds_table(title, loaded.answers, loaded.events_ms), loaded.command


def probe_dependencies(
    project_dir: Path,
    variants: Sequence[str] = tuple(VARIANTS),
    schedule: Schedule | None = None,
    modes: Sequence[str] = tuple(MODES),
    env: Mapping[str, str] | None = None,
) -> tuple[list[Row], list[str], list[str]]:
    """Every dependency of the entry editor cut and stalled under load, for each variant, as
    compose runs it (`env`: settings over compose's, e.g. fewer workers): the rows, the
    second-by-second tables and the last k6 command."""
    schedule = schedule or Schedule()
    probes: list[Row] = []
    tables: list[str] = []
    command: list[str] = []
    for variant in variants:
        log = work_dir(project_dir, "probe", "dependencies", variant) / "server.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with scratch_database("ee_deps_") as database:
            try:
                with proxied_stack(variant, database, log, env or {}) as (stack, proxies):
                    for dependency in DEPENDENCIES:
                        for mode in modes:
                            proxy = proxies[dependency.service]
                            probe, table, command = probe_dependency(
                                project_dir, stack, proxy, dependency, mode, variant, schedule
                            )
                            probes.append(probe)
                            tables.append(table)
            finally:
                databases.clear_redis_keys(database, REDIS_DB)
    return probes, tables, command
