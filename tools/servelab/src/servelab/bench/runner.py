"""Run a benchmark matrix cell by cell: start the stack, warm up and measure with k6, stop."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from servelab.bench.cpus import Pinning, available_cpus, plan
from servelab.bench.dbwatch import ConnectionWatch
from servelab.bench.k6 import K6Error, K6Run, k6_argv, k6_binary, k6_version, run_k6
from servelab.bench.machine import this_machine
from servelab.bench.matrix import Cell, Matrix
from servelab.bench.payload import write_payload
from servelab.bench.progress import Progress
from servelab.bench.results import BenchRun, CellResult
from servelab.bench.summary import Measurement, SummaryError, measurement
from servelab.project import LOADTESTS
from servelab.project import work_dir as project_work_dir
from servelab.stack import Stack, StackError

# Starting and stopping a stack plus k6's own start, per cell, for the first time estimate.
_OVERHEAD_S = 3.5
# How long k6 may run past its load before it counts as hung.
_K6_GRACE_S = 90.0
# The scripts fail a run on a single failed request or check (lib/options.js); a cell
# records them as data instead (a load-shedding nginx's 503s, an overloaded server's timeouts),
# so k6 exits 0 and a non-zero exit means k6 itself failed.
RECORD_FAILURES = {"THRESHOLD_FAILED": "1", "THRESHOLD_CHECKS": "0"}


@dataclass(frozen=True)
class Context:
    project_dir: Path
    matrix: Matrix
    work_dir: Path
    payload_file: Path | None
    k6: str
    cpus: Sequence[int]


def _slug(index: int, cell: Cell) -> str:
    name = re.sub(r"[^A-Za-z0-9]+", "-", cell.endpoint.key).strip("-").lower()
    return f"{index + 1:03d}-{cell.variant.name}-w{cell.workers}-{name}"


def k6_env(cell: Cell, base_url: str, summary: Path, payload: Path | None) -> dict[str, str]:
    """The script's environment: the service, the settings its server started with (a
    script may check the answers against them, e.g. WAITING_TIME), the endpoint's own
    variables, the load shape, and where the summary goes."""
    env = {
        "BASE_URL": base_url,
        **RECORD_FAILURES,
        **cell.server_env,
        **cell.endpoint.env,
        **cell.load.k6_env(),
    }
    if payload is not None:
        env["PAYLOAD_FILE"] = str(payload)
    env["SUMMARY_JSON"] = str(summary)
    return env


def _tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


@dataclass(frozen=True)
class _Measured:
    measurement: Measurement
    k6: K6Run
    commands: dict[str, list[str]]
    db_connections: int | None


def _commands(stack: Stack) -> dict[str, list[str]]:
    """Each service's command line, its private run directory written as <run dir>."""
    run_dir = str(stack.run_dir)
    return {
        name: [arg.replace(run_dir, "<run dir>") for arg in stack.command(name)]
        for name in stack.running
    }


def _copy_payload(ctx: Context, stack: Stack) -> None:
    payload = ctx.matrix.payload
    if payload is None or ctx.payload_file is None:
        return
    volume = stack.volume(payload.volume)
    if volume.is_dir():
        shutil.copyfile(ctx.payload_file, volume / payload.name)


def _measure(ctx: Context, cell: Cell, slug: str, pinning: Pinning, stack: Stack) -> _Measured:
    _copy_payload(ctx, stack)
    summary = ctx.work_dir / f"{slug}.summary.json"
    log = ctx.work_dir / f"{slug}.k6.log"
    env = {
        **k6_env(cell, stack.url(cell.variant.service), summary, ctx.payload_file),
        "API_TOKEN": stack.api_token,
    }
    argv = k6_argv(ctx.k6, LOADTESTS / cell.endpoint.script, env)
    with ConnectionWatch(stack) as watch:
        run = run_k6(
            argv,
            cwd=ctx.project_dir,
            log=log,
            timeout_s=cell.load.seconds + _K6_GRACE_S,
            cpus=pinning.client,
        )
    if run.returncode != 0:
        raise K6Error(f"k6 exited with status {run.returncode} (log: {log})\n{_tail(log)}")
    measured = measurement(json.loads(summary.read_text()), cell.load)
    return _Measured(measured, run, _commands(stack), watch.peak)


def _start(ctx: Context, cell: Cell, pinning: Pinning, server_log: TextIO) -> Stack:
    return Stack(
        cell.variant.profile,
        only=[cell.variant.service],
        env=cell.server_env,
        cpus=pinning.server,
        project_dir=ctx.project_dir,
        # Every cell's volumes in one directory on the project's disk: new directories
        # elsewhere can land in parts of the filesystem where creating a file costs
        # ten times more, which would vary from cell to cell.
        run_parent=ctx.work_dir,
        log=server_log,
    )


def run_cell(ctx: Context, index: int, cell: Cell) -> CellResult:
    slug = _slug(index, cell)
    pinning = plan(ctx.cpus, cell.workers) if cell.variant.pin else Pinning(None, None)
    started = time.monotonic()
    result = CellResult(
        variant=cell.variant.name,
        workers=cell.workers,
        endpoint=cell.endpoint.key,
        script=cell.endpoint.script,
        env=dict(cell.endpoint.env),
        pinning=pinning.describe(),
        commands={},
        k6_cpu_s=0.0,
        k6_wall_s=0.0,
        k6_cpus=len(pinning.client or ctx.cpus),
        wall_s=0.0,
        measurement=None,
        load=cell.load,
        settings=cell.server_env,
    )
    with (ctx.work_dir / f"{slug}.server.log").open("w") as server_log:
        try:
            with _start(ctx, cell, pinning, server_log) as stack:
                measured = _measure(ctx, cell, slug, pinning, stack)
        except (StackError, K6Error, SummaryError, OSError, ValueError) as failure:
            return replace(result, error=str(failure), wall_s=_since(started))
    return replace(
        result,
        commands=measured.commands,
        k6_cpu_s=round(measured.k6.cpu_s, 3),
        k6_wall_s=round(measured.k6.wall_s, 3),
        wall_s=_since(started),
        measurement=measured.measurement,
        db_connections=measured.db_connections,
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
    return (
        f"{m.rps:.1f} req/s, avg {m.avg_ms:.1f} ms, p99 {m.p99_ms:.1f} ms{total}{errors}; "
        f"k6 CPU {result.k6_cpu_s:.1f} s ({result.k6_load:.0%} of its CPUs)"
    )


def _estimate_s(cells: Sequence[Cell]) -> float | None:
    """Seconds per cell before any has run; None where a counted shape's time is unknown."""
    if not cells or any(cell.load.counted for cell in cells):
        return None
    return sum(cell.load.seconds for cell in cells) / len(cells) + _OVERHEAD_S


def k6_command_template() -> str:
    env = {
        "BASE_URL": "<service url>",
        **RECORD_FAILURES,
        "SUMMARY_JSON": "<summary.json>",
    }
    return (
        " ".join(k6_argv("k6", "loadtests/<script>", env))
        + "  # plus the server's settings, the endpoint's env and its load shape's"
    )


def run_matrix(
    project_dir: Path,
    matrix: Matrix,
    form: str,
    *,
    stream: TextIO = sys.stderr,
) -> BenchRun:
    load = matrix.load(form)
    cells = matrix.cells(form)
    work_dir = project_work_dir(project_dir, "bench", matrix.family)
    shutil.rmtree(work_dir, ignore_errors=True)
    work_dir.mkdir(parents=True)
    binary = k6_binary()
    payload = matrix.payload
    ctx = Context(
        project_dir=project_dir,
        matrix=matrix,
        work_dir=work_dir,
        payload_file=write_payload(work_dir / payload.name, payload.size) if payload else None,
        k6=binary,
        cpus=available_cpus(),
    )
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    load_average = os.getloadavg()[0]
    started = time.monotonic()
    progress = Progress(len(cells), _estimate_s(cells), stream)
    results = []
    for index, cell in enumerate(cells):
        progress.begin(index, cell.label)
        result = run_cell(ctx, index, cell)
        progress.end(_outcome(result))
        results.append(result)
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
    )
