"""Run a benchmark matrix cell by cell: start the stack (or use the variant's kept one,
bench.plan.stacks), warm up and measure with k6, stop; once, or once per round (bench.load.rounds).

The warm-up is a k6 run of its own, before the measured one: the server's CPU time
(bench.measure.cpu_time) is read right before and right after the measured run, so it covers that
run alone, with no clock to guess where a single run's warm-up ended (k6 starts its VUs
only after its init phase, which takes a variable while). The measured run opens its
connections afresh, as wrk does, and runs its script's setup() again (download.js stores
its file once more: one request in the window among thousands). With a target (--target
URL) only the load runs, against a stack that is already up elsewhere: no local stack, and
no server CPU time.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TextIO

from servelab.bench.errors import BenchError
from servelab.bench.load.k6 import K6Error, K6Run, k6_argv, k6_binary, k6_version, run_k6
from servelab.bench.load.payload import write_payload
from servelab.bench.load.rounds import median_round
from servelab.bench.load.shape import Load
from servelab.bench.load.tool_requests import Source, tool_request
from servelab.bench.load.tools import ToolResult, run_tool, tool_argv
from servelab.bench.measure import cpu_time, steal
from servelab.bench.measure.cpus import Pinning, available_cpus, cpu_list, plan
from servelab.bench.measure.dbwatch import ConnectionWatch
from servelab.bench.measure.machine import this_machine
from servelab.bench.measure.memory import MemoryWatch
from servelab.bench.measure.summary import Measurement, measurement
from servelab.bench.plan.matrix import Cell, Matrix
from servelab.bench.plan.scratch import server_files
from servelab.bench.plan.stacks import Stacks
from servelab.bench.progress import OVERHEAD_S, Plan, Progress
from servelab.bench.report.results import BenchRun, CellResult, load_run
from servelab.project import LOADTESTS, Project
from servelab.spec.matrix import Payload
from servelab.stack import Stack, StackError

# How long k6 may run past its load before it counts as hung.
_K6_GRACE_S = 90.0
# The scripts fail a run on a single failed request or check (lib/options.js); a cell
# records them as data instead (a load-shedding nginx's 503s, an overloaded server's timeouts),
# so k6 exits 0 and a non-zero exit means k6 itself failed.
RECORD_FAILURES = {"THRESHOLD_FAILED": "1", "THRESHOLD_CHECKS": "0"}


@dataclass(frozen=True)
class Context:
    """What every cell of a run shares: where it runs and writes, k6, the CPUs, the token."""

    project: Project
    work_dir: Path
    payload_file: Path | None
    k6: str
    cpus: Sequence[int]
    # Where the stacks' run directories go: their volumes, sockets and nginx's request
    # bodies (bench.plan.scratch: a tmpfs, or the work directory).
    server_files: Path
    # --cpus: the server's and k6's CPUs for every cell, instead of cpus.plan's.
    pinning: Pinning | None = None
    # --target: the base URL of a stack already up elsewhere; None runs a local stack.
    target: str | None = None
    # The bearer token the stacks require for writes and k6 sends (docs/security.md):
    # API_TOKEN from the environment (a --target stack's), else one made for this run.
    api_token: str = ""
    # The matrix's payload file, copied into each new stack's volume.
    payload: Payload | None = None


def _slug(index: int, cell: Cell, round_: int = 0) -> str:
    name = re.sub(r"[^A-Za-z0-9]+", "-", cell.endpoint.key).strip("-").lower()
    again = f"-r{round_ + 1}" if round_ else ""
    return f"{index + 1:03d}{again}-{cell.variant.name}-w{cell.workers}-{name}"


def k6_env(
    cell: Cell, base_url: str, summary: Path, payload: Path | None, load: Load | None = None
) -> dict[str, str]:
    """The script's environment: the service, the settings its server started with (a
    script may check the answers against them, e.g. WAITING_TIME), the endpoint's own
    variables, the load shape (the cell's, or `load`: one phase of it), and where the
    summary goes."""
    env = {
        "BASE_URL": base_url,
        **RECORD_FAILURES,
        **cell.server_env,
        **cell.endpoint.env,
        **(load or cell.load).k6_env(),
    }
    if payload is not None:
        env["PAYLOAD_FILE"] = str(payload)
    env["SUMMARY_JSON"] = str(summary)
    return env


@dataclass(frozen=True)
class Measured:
    """What measure_cell read: the figures of the measured k6 run and the server's."""

    measurement: Measurement
    k6: K6Run
    commands: Mapping[str, Sequence[str]]
    db_connections: int | None
    server_cpu_s: float | None
    server_processes: int | None
    tools: tuple[ToolResult, ...]
    server_memory_mib: float | None
    steal_pct: float | None


def _commands(stack: Stack) -> dict[str, list[str]]:
    """Each service's command line, its private run directory written as <run dir>."""
    run_dir = str(stack.run_dir)
    return {
        name: [arg.replace(run_dir, "<run dir>") for arg in stack.command(name)]
        for name in stack.running
    }


def _copy_payload(ctx: Context, stack: Stack) -> None:
    payload = ctx.payload
    if payload is None or ctx.payload_file is None:
        return
    volume = stack.volume(payload.volume)
    if volume.is_dir():
        shutil.copyfile(ctx.payload_file, volume / payload.name)


def _k6(
    ctx: Context, cell: Cell, load: Load, base_url: str, name: str, pinning: Pinning
) -> tuple[Path, K6Run]:
    """One k6 run of the cell with `load`: its summary's path and k6's own figures."""
    summary = ctx.work_dir / f"{name}.summary.json"
    log = ctx.work_dir / f"{name}.k6.log"
    env = {**k6_env(cell, base_url, summary, ctx.payload_file, load), "API_TOKEN": ctx.api_token}
    run = run_k6(
        k6_argv(ctx.k6, LOADTESTS / cell.endpoint.script, env),
        cwd=ctx.project.root,
        log=log,
        timeout_s=load.seconds + _K6_GRACE_S,
        cpus=pinning.client,
    )
    if run.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise K6Error(f"k6 exited with status {run.returncode} (log: {log})\n{tail}")
    return summary, run


def _tool(
    ctx: Context,
    cell: Cell,
    tool: str,
    load: Load,
    base_url: str,
    pinning: Pinning,
    pgids: Collection[int],
    slug: str,
) -> ToolResult:
    """The cell's request sent by `tool` with the measured run's load, the server's CPU
    time read around it as around k6."""
    endpoint_env = {**cell.endpoint.env, "API_TOKEN": ctx.api_token}
    source = Source(base_url, endpoint_env, ctx.payload_file, ctx.project.loadtests, ctx.work_dir)
    request = tool_request(cell.endpoint.script, source)
    argv, env = tool_argv(tool, request, load, len(pinning.client or ctx.cpus), LOADTESTS)
    before = cpu_time.snapshot(pgids)
    figures = run_tool(
        argv,
        env,
        load,
        cwd=ctx.project.root,
        log=ctx.work_dir / f"{slug}.{tool}.log",
        cpus=pinning.client,
    )
    after = cpu_time.snapshot(pgids)
    work_dir = str(ctx.work_dir)
    shown = [f"{key}={value}" for key, value in env.items()] + argv
    return ToolResult(
        tool=tool,
        # The report shows the command, never the token.
        argv=[_redact(arg.replace(work_dir, "<work dir>"), ctx.api_token) for arg in shown],
        requests=figures.requests,
        rps=figures.rps,
        p50_ms=figures.p50_ms,
        p99_ms=figures.p99_ms,
        errors=figures.errors,
        server_cpu_s=_cpu_seconds(before, after) if pgids else None,
    )


def _cpu_seconds(before: cpu_time.Snapshot, after: cpu_time.Snapshot) -> float:
    """The CPU seconds spent in between, to the microsecond: a 1 s window of nginx at 400
    requests/s spends about 20 ms, which whole milliseconds would round by up to 5%."""
    return round(cpu_time.spent(before, after), 6)


def _redact(text: str, token: str) -> str:
    return text.replace(token, "<API_TOKEN>") if token else text


def measure_cell(
    ctx: Context,
    cell: Cell,
    slug: str,
    pinning: Pinning,
    base_url: str,
    stack: Stack | None,
    warm: bool = False,
    tools: bool = True,
) -> Measured:
    """Warm up (unless the stack is `warm`: it ran this cell in an earlier round), then the
    measured k6 run with the stack's CPU time, memory and database connections read around
    it, and the cell's tools after it (unless `tools` is False: a later round, the tools
    having run in the first); `stack` None: a target's, nothing read of it."""
    warmup, measured = cell.load.phases()
    if warmup is not None and not warm:
        _k6(ctx, cell, warmup, base_url, f"{slug}.warmup", pinning)
    pgids: Collection[int] = stack.process_groups().values() if stack is not None else ()
    watch = ConnectionWatch(stack) if stack is not None else None
    memory = MemoryWatch(pgids) if stack is not None else None
    before, stolen = cpu_time.snapshot(pgids), steal.read()
    with watch or nullcontext(), memory or nullcontext():
        summary, run = _k6(ctx, cell, measured, base_url, slug, pinning)
    after, stolen_after = cpu_time.snapshot(pgids), steal.read()
    ran = tuple(
        _tool(ctx, cell, tool, measured, base_url, pinning, pgids, slug)
        for tool in (cell.tools if tools else ())
    )
    return Measured(
        measurement=measurement(json.loads(summary.read_text()), measured),
        k6=run,
        commands=_commands(stack) if stack is not None else {},
        db_connections=watch.peak if watch is not None else None,
        server_cpu_s=_cpu_seconds(before, after) if stack is not None else None,
        server_processes=cpu_time.seen(before, after) if stack is not None else None,
        tools=ran,
        server_memory_mib=round(memory.peak, 1) if memory and memory.peak is not None else None,
        steal_pct=steal.percent(stolen, stolen_after),
    )


def cell_stack(ctx: Context, cell: Cell, pinning: Pinning, server_log: TextIO) -> Stack:
    """The cell's stack, not yet started: its variant's service alone, with its settings."""
    return Stack(
        cell.variant.profile,
        only=[cell.variant.service],
        env={**cell.server_env, "API_TOKEN": ctx.api_token},
        cpus=pinning.server,
        project=ctx.project,
        run_parent=ctx.server_files,
        log=server_log,
    )


def _pinning(ctx: Context, cell: Cell) -> Pinning:
    """--cpus where given (k6's part only against a target), else the plan's for a
    variant that pins."""
    if ctx.target is not None:
        return Pinning(None, ctx.pinning.client if ctx.pinning else None)
    if ctx.pinning is not None:
        return ctx.pinning
    return plan(ctx.cpus, cell.workers) if cell.variant.pin else Pinning(None, None)


def _describe(ctx: Context, pinning: Pinning) -> str:
    if ctx.target is None:
        return pinning.describe()
    where = f"CPU {cpu_list(pinning.client)}" if pinning.client else "every CPU"
    return f"server at {ctx.target} (not this machine's), k6 on {where}"


def _measure(
    ctx: Context, stacks: Stacks, cell: Cell, slug: str, pinning: Pinning, round_: int
) -> Measured:
    """The cell's round `round_`: the write-up's tools (wrk, ab) run in its first round
    only, their figures beside k6's once, as in the write-up; the later rounds give k6's
    figures the interval the findings read."""
    first = round_ == 0
    if ctx.target is not None:
        return measure_cell(ctx, cell, slug, pinning, ctx.target, None, tools=first)
    with stacks.serving(cell, pinning, slug) as serving:
        url = serving.stack.url(cell.variant.service)
        return measure_cell(ctx, cell, slug, pinning, url, serving.stack, serving.warm, tools=first)


def run_cell(ctx: Context, stacks: Stacks, index: int, cell: Cell, round_: int = 0) -> CellResult:
    slug = _slug(index, cell, round_)
    pinning = _pinning(ctx, cell)
    started = time.monotonic()
    result = CellResult(
        variant=cell.variant.name,
        workers=cell.workers,
        endpoint=cell.endpoint.key,
        script=cell.endpoint.script,
        env=dict(cell.endpoint.env),
        pinning=_describe(ctx, pinning),
        commands={},
        k6_cpu_s=0.0,
        k6_wall_s=0.0,
        k6_cpus=len(pinning.client or ctx.cpus),
        wall_s=0.0,
        measurement=None,
        load=cell.load,
        settings=cell.server_env,
        target=ctx.target,
    )
    try:
        measured = _measure(ctx, stacks, cell, slug, pinning, round_)
    except (StackError, BenchError, OSError, ValueError) as failure:
        return replace(result, error=str(failure), wall_s=_since(started))
    return replace(
        result,
        commands=measured.commands,
        k6_cpu_s=round(measured.k6.cpu_s, 3),
        k6_wall_s=round(measured.k6.wall_s, 3),
        wall_s=_since(started),
        measurement=measured.measurement,
        db_connections=measured.db_connections,
        server_cpu_s=measured.server_cpu_s,
        server_processes=measured.server_processes,
        server_memory_mib=measured.server_memory_mib,
        tools=measured.tools,
        steal_pct=measured.steal_pct,
    )


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)


def _outcome(result: CellResult) -> str:
    m = result.measurement
    if m is None:
        first = (result.error or "failed").splitlines()[0]
        return f"FAILED: {first}"
    errors = f", {m.error_count} errors" if m.error_count else ""
    total = f", total {m.elapsed_s:.2f} s" if result.load.counted else ""
    cpu = result.cpu_us_per_request
    count = result.server_processes
    processes = f"{count} process" + ("" if count == 1 else "es")
    server = f"server CPU {cpu:,.0f} µs/request ({processes}); " if cpu is not None else ""
    tools = "".join(f"\n    {_tool_outcome(tool)}" for tool in result.tools)
    stolen = f"; CPU steal {result.steal_pct:.0f}%" if result.steal_pct else ""
    return (
        f"{m.rps:.1f} req/s, avg {m.avg_ms:.1f} ms, p99 {m.p99_ms:.1f} ms{total}{errors}; "
        f"{server}k6 CPU {result.k6_cpu_s:.1f} s ({result.k6_load:.0%} of its CPUs)"
        f"{stolen}{tools}"
    )


def _tool_outcome(tool: ToolResult) -> str:
    errors = f", {tool.errors} errors" if tool.errors else ""
    p99 = f", p99 {tool.p99_ms:.1f} ms" if tool.p99_ms is not None else ""
    cpu = tool.cpu_us_per_request
    server = f"; server CPU {cpu:,.0f} µs/request" if cpu is not None else ""
    return f"{tool.tool}: {tool.rps:.1f} req/s{p99}{errors}{server}"


def _plan(cell: Cell, reference: BenchRun | None) -> Plan:
    """A cell's time as planned (progress.Plan): what the same cell took in the reference
    run, else its load time (warm-up, duration, the tools after k6) and OVERHEAD_S; for a
    counted shape, which runs until its requests are answered, its endpoint."""
    same = reference.cell(cell.variant.name, cell.workers, cell.endpoint.key) if reference else None
    if same is not None and same.wall_s > 0:
        return same.wall_s
    if cell.load.counted:
        return cell.endpoint.key
    return cell.load.seconds + cell.load.duration_s * len(cell.tools) + OVERHEAD_S


def planned(project: Project, matrix: Matrix, form: str) -> list[Plan]:
    """Each cell's plan (progress.Plan) in the order the cells run, rounds included."""
    reference = _reference(project, matrix.family, form)
    return [_plan(cell, reference) for _, _, cell in _in_rounds(matrix.cells(form))]


def _reference(project: Project, family: str, form: str) -> BenchRun | None:
    """The committed run of the same family and form, for the time estimate; None where
    there is none or it cannot be read."""
    stem = family if form == "quick" else f"{family}.{form}"
    path = project.reference / f"{stem}.json"
    try:
        return load_run(path)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def k6_command_template() -> str:
    env = {"BASE_URL": "<service url>", **RECORD_FAILURES, "SUMMARY_JSON": "<summary.json>"}
    return (
        " ".join(k6_argv("k6", "loadtests/<script>", env))
        + "  # plus the server's settings, the endpoint's env and its load shape's;"
        + " a warm-up runs first as a k6 run of its own (DURATION=<warm-up>), and the"
        + " measured run then has WARMUP=0s"
    )


def _in_rounds(cells: Sequence[Cell]) -> list[tuple[int, int, Cell]]:
    """(round, index, cell) in the order they run: each cell as many times as its load
    shape's rounds, the rounds one after another over the cells of one worker count (a later
    round only over the cells that run that many), so that a worker count's stacks start
    once and its rounds lie close together in time."""
    order: list[tuple[int, int, Cell]] = []
    by_workers: dict[int, list[tuple[int, Cell]]] = {}
    for index, cell in enumerate(cells):
        by_workers.setdefault(cell.workers, []).append((index, cell))
    for group in by_workers.values():
        rounds = max(cell.load.rounds for _, cell in group)
        order += [
            (round_, index, cell)
            for round_ in range(rounds)
            for index, cell in group
            if round_ < cell.load.rounds
        ]
    return order


def _run_cells(
    ctx: Context, matrix: Matrix, form: str, progress: Progress
) -> list[list[CellResult]]:
    """Every cell in its rounds (_in_rounds): each cell's results in round order."""
    cells = matrix.cells(form)
    order = _in_rounds(cells)
    several = any(cell.load.rounds > 1 for cell in cells)
    measured: list[list[CellResult]] = [[] for _ in cells]
    policy = matrix.stacks
    with Stacks(
        partial(cell_stack, ctx),
        partial(_copy_payload, ctx),
        ctx.work_dir,
        keep=policy.keep,
        clear=policy.clear,
    ) as stacks:
        for done, (round_, index, cell) in enumerate(order):
            again = f" (round {round_ + 1} of {cell.load.rounds})" if several else ""
            progress.begin(done, cell.label + again)
            result = run_cell(ctx, stacks, index, cell, round_)
            progress.end(_outcome(result))
            measured[index].append(result)
    return measured


def run_matrix(
    project: Project,
    matrix: Matrix,
    form: str,
    *,
    stream: TextIO = sys.stderr,
    pinning: Pinning | None = None,
    target: str | None = None,
    options: Mapping[str, str] | None = None,
    on_disk: bool = False,
    progress: Progress | None = None,
) -> BenchRun:
    """Every cell of the matrix's `form`; `pinning` (--cpus) replaces the plan's, `target`
    runs the load alone against that URL, `on_disk` keeps the servers' files on the
    project's disk rather than a tmpfs, and `options` is the command line's record.
    `progress` is a run's of several families (this one's cells next in it); without it the
    progress on `stream` covers this family alone."""
    load = matrix.load(form)
    work_dir = project.work("bench", matrix.family)
    shutil.rmtree(work_dir, ignore_errors=True)
    work_dir.mkdir(parents=True)
    binary = k6_binary()
    payload = matrix.payload
    rounds = matrix.rounds_in(form)
    # Against a target the servers write nothing here.
    with server_files(work_dir, on_disk=on_disk or target is not None) as files:
        ctx = Context(
            project=project,
            work_dir=work_dir,
            payload_file=write_payload(work_dir / payload.name, payload.size) if payload else None,
            k6=binary,
            cpus=available_cpus(),
            server_files=files.parent,
            pinning=pinning,
            target=target,
            api_token=os.environ.get("API_TOKEN") or secrets.token_urlsafe(32),
            payload=payload,
        )
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        load_average = os.getloadavg()[0]
        started = time.monotonic()
        progress = progress or Progress(planned(project, matrix, form), stream)
        measured = _run_cells(ctx, matrix, form, progress)
    results = [median_round(each) for each in measured]
    return BenchRun(
        family=matrix.family,
        form=form,
        started=started_at,
        wall_s=round(time.monotonic() - started, 1),
        load_average=load_average,
        machine=this_machine(k6_version(binary)),
        load=load,
        payload_size=payload.size if payload else 0,
        k6_command=k6_command_template(),
        cells=tuple(results),
        options={**(options or {}), **({} if target else {"server_files": files.described})},
        rounds=rounds,
    )
