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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from servelab.bench.load.k6 import k6_argv, k6_binary, run_k6
from servelab.project import LOADTESTS, work_dir
from servelab.reliability import Probe, Verdict
from servelab.reliability.probe.k6_requests import Requests, read_requests
from servelab.stack import Stack, databases
from servelab.stack.databases import scratch_database

DEFAULT_SECONDS = 5.0
# How long k6 may run past the load's end (the requests in flight, its own start and exit).
_K6_GRACE_S = 60.0
# The entry editor's cache (its keys carry the scratch database's name as their prefix).
REDIS_DB = 4


@dataclass(frozen=True)
class Target:
    """One deploy variant of a family: compose service `service` of `profile` (what
    `servelab up --profile P` starts), loaded with `script` (loadtests/) and its `env` at
    `rate` requests/s from `vus` pre-allocated VUs up to `max_vus`. The VUs ready at the
    start hold a quarter second of requests in flight (a wait's whole second): k6 makes
    more only after a request finds none free, and drops the requests meanwhile.
    `server_env` is what the stack starts with (and k6 reads too, as the benchmark hands
    it); `database`: the stack needs a scratch database on the machine's MariaDB."""

    family: str
    variant: str
    profile: str
    service: str
    script: str
    request: str  # what the report says is sent
    rate: int
    vus: int
    max_vus: int
    env: Mapping[str, str] = field(default_factory=dict)
    server_env: Mapping[str, str] = field(default_factory=dict)
    database: bool = False

    @property
    def label(self) -> str:
        return f"{self.family} {self.variant}"


def _hello(variant: str, profile: str, service: str) -> Target:
    # loadtests/matrix/hello.toml [shapes.steady]: 400 requests/s, "which every variant
    # sustains" on the 2-CPU machine (docs/results/hello.md), up to its 400 VUs.
    return Target(
        "hello",
        variant,
        profile,
        service,
        script="hello.js",
        request="GET /hello",
        rate=400,
        vus=100,
        max_vus=400,
        env={"ENDPOINT": "/hello"},
    )


def _files(variant: str, profile: str, service: str) -> Target:
    # loadtests/matrix/files.toml [shapes.steady]: 100 requests/s up to its 100 VUs, the
    # rate its CPU ratios are measured at; GET /files/{id} of the 256 KiB payload that
    # download.js stores in its setup.
    return Target(
        "files",
        variant,
        profile,
        service,
        script="download.js",
        request="GET /files/{id} (256 KiB)",
        rate=100,
        vus=25,
        max_vus=100,
        env={"ENDPOINT": "/files/{id}"},
    )


def _entryeditor(variant: str, profile: str, service: str) -> Target:
    # loadtests/matrix/entryeditor.toml's goal "100% success at 200 requests/s" (met on the
    # 2-CPU machine, docs/results/entryeditor.md), its VUs at 0.5 per request/s; compose's
    # own workers, a scratch database loaded with CORPUS_LIMIT sentences as the other probes.
    return Target(
        "entryeditor",
        variant,
        profile,
        service,
        script="entryeditor.js",
        request="GET /entryeditor/entryeditor/47 through nginx",
        rate=200,
        vus=100,
        max_vus=1000,
        env={"NAME": "detail"},
        server_env={"CORPUS_LIMIT": "300", "EE_REDIS_DB": str(REDIS_DB)},
        database=True,
    )


def _wait(variant: str, profile: str, service: str) -> Target:
    # No rate in loadtests/matrix/wait.toml (its loads are bursts: 1000 at once, 10 at
    # once): 100 requests/s of the 1 s `async def` wait keep 100 in flight, a tenth of the
    # burst every FastAPI variant answers in about a second (docs/results/wait.md). Flask on
    # one sync worker answers one a second and is left out.
    return Target(
        "wait",
        variant,
        profile,
        service,
        script="wait.js",
        request="GET /async (a 1 s wait)",
        rate=100,
        vus=120,
        max_vus=300,
        env={"ENDPOINT": "/async"},
        server_env={"WAITING_TIME": "1"},
    )


def _health_code(variant: str, profile: str, service: str) -> Target:
    # No rate in loadtests/matrix/health-code.toml (ab's 20 clients sharing 200 requests):
    # 4 requests/s, about half the 7-8 successful requests/s its best mode reached on the
    # 2-CPU machine (docs/results/health-code.md), the rate of its outage drill
    # (loadtests/outage/kill-worker-health-code-pool.toml).
    return Target(
        "health-code",
        variant,
        profile,
        service,
        script="health-code.js",
        request="POST /analysis/health-code (a JPEG as base64 JSON)",
        rate=4,
        vus=10,
        max_vus=40,
    )


TARGETS: tuple[Target, ...] = (
    _hello("uvicorn", "hello-uvicorn", "hello-uvicorn"),
    _hello("gunicorn-sync", "hello-gunicorn", "hello-gunicorn-sync"),
    _hello("uwsgi-nginx", "hello-uwsgi", "hello-uwsgi-nginx"),
    _hello("tornado", "hello-tornado", "hello-tornado"),
    _hello("granian", "hello-granian", "hello-granian"),
    _files("uvicorn", "files-uvicorn", "files-uvicorn"),
    _files("gunicorn", "files-gunicorn", "files-gunicorn"),
    _files("granian", "files-granian", "files-granian"),
    _files("nginx", "files-nginx", "files-nginx"),
    _wait("uvicorn", "wait-uvicorn", "wait-uvicorn"),
    _wait("gunicorn", "wait-gunicorn", "wait-gunicorn"),
    _health_code("uvicorn", "health-code-uvicorn", "health-code-uvicorn"),
    _health_code("gunicorn", "health-code-gunicorn", "health-code-gunicorn"),
    _entryeditor("uwsgi", "entryeditor-uwsgi", "entryeditor-nginx"),
    _entryeditor("gunicorn", "entryeditor-gunicorn", "entryeditor-gunicorn-nginx"),
)
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(target.family for target in TARGETS))


@dataclass(frozen=True)
class ColdRun:
    """What the load after `up_ms` (unix ms: the runner's readiness) saw."""

    requests: Requests
    up_ms: float
    seconds: float


def _seconds_after(at_ms: float | None, up_ms: float) -> float:
    return round((at_ms - up_ms) / 1000, 3) if at_ms is not None else -1.0


def coldstart_row(target: Target, run: ColdRun) -> Probe:
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
    return Probe(
        probe=f"cold start, then {target.rate} requests/s for {run.seconds:g} s",
        target=f"{target.label} ({target.service}): {target.request}, loadtests/{target.script}",
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


def k6_env(target: Target, url: str, seconds: float, token: str) -> dict[str, str]:
    """The script's environment: the stack's settings and the target's, vegeta's shape at
    the target's rate, failures recorded rather than failing k6 (as `servelab bench`)."""
    return {
        "BASE_URL": url,
        **target.server_env,
        **target.env,
        "SHAPE": "vegeta",
        "RATE": str(target.rate),
        "DURATION": f"{seconds:g}s",
        "VUS": str(target.vus),
        "MAX_VUS": str(target.max_vus),
        "THRESHOLD_FAILED": "1",
        "THRESHOLD_CHECKS": "0",
        "API_TOKEN": token,
    }


@contextmanager
def cold_stack(target: Target, log: Path) -> Iterator[Stack]:
    """The target's stack, started from nothing (a scratch database where it needs one)."""
    with ExitStack() as cleanup:
        env = dict(target.server_env)
        if target.database:
            database = cleanup.enter_context(scratch_database("ee_cold_"))
            cleanup.callback(databases.clear_redis_keys, database, REDIS_DB)
            env["EE_DATABASE"] = database
        server_log = cleanup.enter_context(log.open("w"))
        yield cleanup.enter_context(
            Stack(target.profile, only=[target.service], env=env, log=server_log)
        )


def probe_target(project_dir: Path, target: Target, seconds: float) -> Probe:
    work = work_dir(project_dir, "probe", "coldstart", target.family, target.variant)
    work.mkdir(parents=True, exist_ok=True)
    answers = work / "requests.csv"
    answers.unlink(missing_ok=True)
    with cold_stack(target, work / "server.log") as stack:
        up_ms = time.time() * 1000
        env = k6_env(target, stack.url(target.service), seconds, stack.api_token)
        argv = k6_argv(
            k6_binary(),
            LOADTESTS / target.script,
            env,
            options=["--out", f"csv=fileName={answers},timeFormat=unix_milli"],
        )
        run_k6(argv, cwd=project_dir, log=work / "k6.log", timeout_s=seconds + _K6_GRACE_S)
    return coldstart_row(target, ColdRun(read_requests(answers), up_ms, seconds))


def probe_coldstart(
    project_dir: Path, families: Sequence[str] = FAMILIES, seconds: float = DEFAULT_SECONDS
) -> list[Probe]:
    """A cold start of every target of `families`, one after another."""
    return [
        probe_target(project_dir, target, seconds)
        for target in TARGETS
        if target.family in families
    ]
