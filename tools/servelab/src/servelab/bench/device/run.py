"""`python -m servelab.bench.device run`: the device matrix, stack by stack, each measured
under every load as the benchmark runner measures a cell (bench.runner.measure_cell) with
the GPU's memory and utilisation sampled, then the accuracy of each engine, within a time
budget; one JSON, written again after every stack (loadtests/README.md, "On a GPU machine").
"""

from __future__ import annotations

import json
import lzma
import secrets
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from servelab.bench.device import gpu
from servelab.bench.device.bundle import K6_FILE, MANIFEST, SAMPLES, source_commit
from servelab.bench.device.plan import DeviceStack, Plan
from servelab.bench.device.results import (
    RESULTS_NAME,
    DeviceRun,
    EvalResult,
    LoadResult,
    ProfileResult,
    StackResult,
)
from servelab.bench.errors import BenchError
from servelab.bench.load.k6 import k6_binary, k6_version
from servelab.bench.load.shape import Load
from servelab.bench.measure.cpus import Pinning, available_cpus
from servelab.bench.measure.machine import this_machine
from servelab.bench.runner import Context, Measured, cell_stack, measure_cell
from servelab.project import Project
from servelab.spec.device import Eval, StageProfile
from servelab.stack import StackError

# The device's servers and k6 share every CPU.
UNPINNED = Pinning(None, None)
# A stack's time before any has run: start, warm-up and both loads.
_FIRST_ESTIMATE_S = 60.0
# The run's default budget: with the wheels' install before it, one command of at most 9
# minutes on the GPU machine (whose longest is 10).
BUDGET_S = 510.0
# Seconds of the budget kept for the stage profiles and the accuracy check after the stacks.
EVAL_RESERVE_S = 100.0
_EVAL_TIMEOUT_S = 240.0
_OOM_WORDS = ("out of memory", "outofmemory", "cuda_error_out_of_memory")
# What every stack's servers import: the service's app and the servers its recipes run.
SERVER_IMPORTS = ("health_code_service.main", "uvicorn", "gunicorn", "uvicorn_worker")


def import_failure(modules: Sequence[str] = SERVER_IMPORTS) -> str:
    """Why the servers cannot import here (the error's last line: a wheel the bundle lacks,
    say), else "". Checked once before the first stack: a multi-worker server whose workers
    fail at import keeps its parent alive, and its healthcheck is waited out for minutes."""
    argv = [sys.executable, "-c", f"import {', '.join(modules)}"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    lines = done.stderr.strip().splitlines()
    return "" if done.returncode == 0 else (lines or [f"exit status {done.returncode}"])[-1]


def out_of_memory(log: Path) -> int:
    """The lines of the servers' log that speak of running out of (GPU) memory."""
    lines = log.read_text(errors="replace").lower().splitlines()
    return sum(any(word in line for word in _OOM_WORDS) for line in lines)


def _k6(bundle: Path, work_dir: Path) -> str:
    """The bundle's k6 (unpacked once into the work folder), else this environment's."""
    packed = bundle / K6_FILE
    if not packed.is_file():
        return k6_binary()
    binary = work_dir / "k6"
    binary.write_bytes(lzma.decompress(packed.read_bytes()))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return str(binary)


def _commit(project: Project, bundle: Path) -> str:
    """The commit the bundle was made from (the GPU machine gets a tree without .git)."""
    manifest = bundle / MANIFEST
    if manifest.is_file():
        return str(json.loads(manifest.read_text()).get("commit", "unknown"))
    return source_commit(project.root)


@dataclass(frozen=True)
class Ran:
    """A command the run started: its standard output, or why it did not run or failed."""

    out: str = ""
    skipped: str = ""
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.skipped and not self.error


def since(started: float) -> float:
    return round(time.monotonic() - started, 1)


@dataclass
class Runner:
    project: Project
    plan: Plan
    bundle: Path
    out: Path
    budget_s: float
    stream: TextIO = sys.stderr

    def __post_init__(self) -> None:
        # k6's summaries and logs, the servers' logs: beside the tree, never in `out`, which
        # the GPU machine sends back only a few files of.
        self.work_dir = self.project.work("device", "work")
        self.started = time.monotonic()
        self.gpus, self.no_gpu = gpu.gpus()
        self.unimportable = ""

    def say(self, text: str) -> None:
        minutes, seconds = divmod(int(time.monotonic() - self.started), 60)
        print(f"[{minutes}:{seconds:02d}] {text}", file=self.stream, flush=True)

    def run(self) -> Path:
        shutil.rmtree(self.work_dir, ignore_errors=True)
        self.work_dir.mkdir(parents=True)
        self.ctx = Context(
            project=self.project,
            work_dir=self.work_dir,
            payload_file=None,
            k6=_k6(self.bundle, self.work_dir),
            cpus=available_cpus(),
            server_files=self.work_dir,
            api_token=secrets.token_urlsafe(32),
        )
        version = k6_version(self.ctx.k6)
        machine = asdict(this_machine(version))
        record = DeviceRun(
            title=self.plan.spec.title,
            form=self.plan.form,
            started=datetime.now(UTC).isoformat(timespec="seconds"),
            budget_s=self.budget_s,
            commit=_commit(self.project, self.bundle),
            machine=machine,
            gpus=self.gpus,
            no_gpu=self.no_gpu,
            k6=version,
        )
        results = self.out / f"{RESULTS_NAME}.json"
        where = ", ".join(f"{g['name']} (driver {g['driver']})" for g in self.gpus)
        self.say(f"{machine['cpus']} CPUs; {where or self.no_gpu}")
        stacks = self.plan.stacks(machine["cpus"])
        self.unimportable = import_failure()
        if self.unimportable:
            self.say(f"the servers cannot start here: {self.unimportable}")
        longest = _FIRST_ESTIMATE_S
        for index, stack in enumerate(stacks):
            self.say(f"[{index + 1}/{len(stacks)}] {stack.label}")
            result = self._stack(stack, longest)
            longest = max(longest, result.wall_s) if result.ran else longest
            record.stacks.append(result)
            self._saved(record, results, describe(result))
        for index, each in enumerate(self.plan.spec.profile):
            self.say(f"stage profile: {each.name}")
            profiled = self._profile(each, index)
            record.profiles.append(profiled)
            self._saved(
                record, results, profiled.skipped or profiled.error or f"{profiled.seconds:.0f} s"
            )
        for item in self.plan.spec.eval:
            self.say(f"accuracy: {item.name}")
            outcome = self._eval(item)
            record.evals.append(outcome)
            self._saved(
                record, results, outcome.skipped or outcome.error or f"{outcome.seconds:.0f} s"
            )
        self.say(f"results: {results}")
        return results

    def _saved(self, record: DeviceRun, results: Path, outcome: str) -> None:
        """What was done, said, and the results written again."""
        self.say(f"    {outcome}")
        record.wall_s = since(self.started)
        record.save(results)

    def _why_not(self, stack: DeviceStack, estimate_s: float) -> str:
        left = self.budget_s - EVAL_RESERVE_S - since(self.started)
        if self.unimportable:
            return f"the servers cannot import: {self.unimportable}"
        if stack.gpu and self.no_gpu:
            return self.no_gpu
        if estimate_s > left:
            return f"{left:.0f} s of the run's {self.budget_s:.0f} s budget left"
        return ""

    def _stack(self, stack: DeviceStack, estimate_s: float) -> StackResult:
        variant = stack.variant
        result = StackResult(
            variant.name, stack.workers, variant.service, stack.gpu, dict(variant.env)
        )
        if why := self._why_not(stack, estimate_s):
            return replace(result, skipped=f"not run: {why}")
        started = time.monotonic()
        slug = f"{variant.name}-w{stack.workers}"
        log = self.work_dir / f"{slug}.server.log"
        warmup = stack.cell("warmup", self.plan.warmup)
        try:
            with log.open("w") as sink, cell_stack(self.ctx, warmup, UNPINNED, sink) as servers:
                start_s = since(started)
                url = servers.url(variant.service)
                with gpu.GpuMemoryWatch(set(servers.process_groups().values())) as watch:
                    measured = [
                        measure_cell(self.ctx, warmup, f"{slug}-warmup", UNPINNED, url, servers)
                    ]
                    loads = []
                    for name, load in self.plan.loads.items():
                        cell = stack.cell(name, load)
                        with gpu.BusyWatch() as busy:
                            each = measure_cell(
                                self.ctx, cell, f"{slug}-{name}", UNPINNED, url, servers
                            )
                        measured.append(each)
                        loads.append(load_result(name, load, each, busy.mean_pct))
                command = servers.command(variant.service)
        except (StackError, BenchError, OSError, ValueError) as failure:
            return replace(
                result, error=str(failure), out_of_memory=out_of_memory(log), wall_s=since(started)
            )
        sampled = watch.samples > 0
        memory = [m.server_memory_mib for m in measured if m.server_memory_mib is not None]
        return replace(
            result,
            loads=loads,
            command=command,
            start_s=start_s,
            wall_s=since(started),
            gpu_peak_total_mib=watch.peak_total_mib if sampled else None,
            gpu_peak_process_mib=watch.peak_process_mib if sampled else None,
            server_memory_mib=max(memory, default=None),
            out_of_memory=out_of_memory(log),
        )

    def _module(self, module: str, args: Sequence[str]) -> Ran:
        """`python -m module args`, run from the tree within the budget left."""
        left = self.budget_s - since(self.started)
        if left < 30:
            return Ran(skipped=f"not run: {left:.0f} s of budget left")
        argv = [sys.executable, "-m", module, *args]
        started = time.monotonic()
        try:
            done = subprocess.run(
                argv,
                cwd=self.project.root,
                capture_output=True,
                text=True,
                timeout=min(_EVAL_TIMEOUT_S, left),
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Ran(error=f"still running after {left:.0f} s", seconds=since(started))
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            return Ran(error=tail, seconds=since(started))
        return Ran(out=done.stdout, seconds=since(started))

    def _eval(self, item: Eval) -> EvalResult:
        base = EvalResult(item.name, list(item.args), item.gpu)
        samples = self.bundle / SAMPLES
        if item.gpu and self.no_gpu:
            return replace(base, skipped=f"not run: {self.no_gpu}")
        if not (samples / "samples.json").is_file():
            return replace(base, skipped=f"not run: no screenshots in {samples}")
        args = ["--images", str(samples), "--json", *item.args]
        ran = self._module("health_code_service.evaluation.eval_cli", args)
        if not ran.ok:
            return replace(base, skipped=ran.skipped, error=ran.error, seconds=ran.seconds)
        scores = json.loads(ran.out.strip().splitlines()[-1])
        return replace(base, seconds=ran.seconds, scores=scores)

    def _profile(self, item: StageProfile, index: int) -> ProfileResult:
        base = ProfileResult(item.name, list(item.args), item.gpu)
        if item.gpu and self.no_gpu:
            return replace(base, skipped=f"not run: {self.no_gpu}")
        saved = self.work_dir / f"profile-{index}.json"
        repeat = str(item.repeat.of(self.plan.form))
        args = [*item.args, "--repeat", repeat, "--out", str(saved)]
        ran = self._module("health_code_service.profiling.profile_cli", args)
        if not ran.ok:
            return replace(base, skipped=ran.skipped, error=ran.error, seconds=ran.seconds)
        stages = json.loads(saved.read_text())["stages"]
        return replace(base, seconds=ran.seconds, stages=stages)


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def load_result(
    name: str, load: Load, measured: Measured, gpu_busy_pct: float | None
) -> LoadResult:
    """One load's figures as the device run records them."""
    m = measured.measurement
    return LoadResult(
        name=name,
        clients=load.vus,
        requests=load.iterations,
        answered=m.requests - m.error_count,
        failed=m.error_count,
        wrong_answers=m.errors.get("wrong_answer", 0),
        rps=round(m.rps, 2),
        avg_ms=round(m.avg_ms, 1),
        p50_ms=round(m.p50_ms, 1),
        p99_ms=round(m.p99_ms, 1),
        elapsed_s=m.elapsed_s,
        k6_cpu_s=round(measured.k6.cpu_s, 2),
        server_cpu_s=_rounded(measured.server_cpu_s, 2),
        gpu_busy_pct=_rounded(gpu_busy_pct, 1),
        failures={
            **{kind: n for kind, n in m.errors.items() if n},
            **{f"status {status}": n for status, n in m.statuses.items() if n},
        },
    )


def describe(result: StackResult) -> str:
    """One line: each load's requests/s and failures, or why the stack did not run."""
    if not result.ran:
        return result.skipped or f"FAILED: {result.error.splitlines()[0]}"
    loads = "; ".join(f"{e.name} {e.rps:.1f} req/s, {e.failed} failed" for e in result.loads)
    peak = result.gpu_peak_total_mib
    return f"started in {result.start_s:.0f} s; {loads}" + (f"; GPU {peak} MiB" if peak else "")
