"""docs/results/health-code.gpu.md from a device run's JSON: the answers (GPU or CPU, how
many workers, what batch size), the goals, every stack, and the accuracy of each engine.
A ratio of two cells, each measured once, is called as docs/findings.md calls one: only
where its band (servelab.bench.findings.spread) lies wholly on one side of 1."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from servelab.bench.device.results import (
    RESULTS_NAME,
    DeviceRun,
    EvalResult,
    LoadResult,
    StackResult,
    load_device_run,
)
from servelab.bench.findings.spread import NOISE, RATIO_NOISE, Spread
from servelab.markdown import table
from servelab.project import results_dir

MEMORY_PER_WORKER_MIB = 4096
GPU_RPS_GOAL = 200.0
# A resource that sets the pace: the GPU busy this share of the time, or the servers using
# this share of the CPUs k6 leaves them.
GPU_FULL_PCT = 90.0
CPUS_FULL = 0.8


@dataclass(frozen=True)
class Cells:
    """The stacks on the GPU (else the CPU), in ANALYZE_MODE `mode`, at `workers`, with or
    without a BATCH_MAX_SIZE of their own (`sized`): each where given."""

    gpu: bool
    mode: str | None = None
    workers: int | None = None
    sized: bool | None = None

    def hold(self, stack: StackResult) -> bool:
        mode = stack.env.get("ANALYZE_MODE", "threadpool")
        sized = "BATCH_MAX_SIZE" in stack.env
        return (
            stack.gpu == self.gpu
            and self.mode in (None, mode)
            and self.workers in (None, stack.workers)
            and self.sized in (None, sized)
        )


GPU, CPU = Cells(gpu=True), Cells(gpu=False)
BATCHED, PER_REQUEST = Cells(gpu=True, mode="batched"), Cells(gpu=True, mode="threadpool")


@dataclass(frozen=True)
class Best:
    stack: StackResult
    rps: float

    @property
    def name(self) -> str:
        return f"{self.stack.variant}, {self.stack.workers} worker(s), {self.rps:.1f} requests/s"


def _best(run: DeviceRun, load: str, cells: Cells) -> Best | None:
    found = [
        Best(stack, each.rps)
        for stack in run.stacks
        if stack.ran and cells.hold(stack)
        for each in stack.loads
        if each.name == load and each.failed == 0
    ]
    return max(found, key=lambda best: best.rps, default=None)


def _loads(run: DeviceRun) -> dict[str, int]:
    """Each load's name and its clients, in the order run."""
    return {each.name: each.clients for stack in run.stacks for each in stack.loads}


def _called(ratio: float, better: str, worse: str) -> tuple[str, str]:
    """The answer a ratio of two single runs gives (`better`, `worse` or no measurable
    difference), and by how much."""
    side = Spread.once(ratio, RATIO_NOISE).side()
    if side == 0:
        noise = f"within the {RATIO_NOISE:.0%} noise of one run"
        return "no measurable difference", f"{ratio:.2f}x, {noise}"
    return (better, f"{ratio:.2f}x") if side > 0 else (worse, f"{1 / ratio:.2f}x")


def _no_gpu(run: DeviceRun) -> str:
    return f"not measured: {run.no_gpu}" if run.no_gpu else "not measured"


@dataclass(frozen=True)
class GpuOrCpu:
    """The best GPU cell against the best CPU cell under one load."""

    clients: int
    # The answer ("the GPU", "the CPU", no measurable difference, or why there is none),
    # and by how much.
    gist: str
    how_much: str
    gpu: Best | None
    cpu: Best | None

    @property
    def verdict(self) -> str:
        return f"{self.gist} ({self.how_much})" if self.how_much else self.gist

    @property
    def figures(self) -> str:
        if self.gpu is None or self.cpu is None:
            return ""
        return f"best GPU {self.gpu.name}; best CPU {self.cpu.name}"


def gpu_or_cpu(run: DeviceRun) -> list[GpuOrCpu]:
    """For each load: the GPU, the CPU or no measurable difference, from the best cells."""
    out = []
    for load, clients in _loads(run).items():
        gpu, cpu = _best(run, load, GPU), _best(run, load, CPU)
        if gpu is None or cpu is None:
            gist, how_much = (_no_gpu(run) if gpu is None else "the CPU cells failed"), ""
        else:
            gist, how_much = _called(gpu.rps / cpu.rps, "the GPU", "the CPU")
        out.append(GpuOrCpu(clients, gist, how_much, gpu, cpu))
    return out


def bound(run: DeviceRun, best: Best, load: str) -> str:
    """Which resource the cell kept full: the GPU, the CPUs, or neither, with the figures."""
    measured = next(each for each in best.stack.loads if each.name == load)
    if measured.server_cpus is None or measured.elapsed_s <= 0:
        return "not recorded in this run (the servers' CPU use)"
    cpus = run.machine["cpus"]
    k6_cpus = measured.k6_cpu_s / measured.elapsed_s
    busy = measured.gpu_busy_pct
    figures = f"servers {measured.server_cpus:.1f} of {cpus} CPUs, k6 {k6_cpus:.1f}" + (
        f", GPU busy {busy:.0f}% of the time" if busy is not None else ""
    )
    if busy is not None and busy >= GPU_FULL_PCT:
        return f"the GPU ({figures})"
    if measured.server_cpus >= CPUS_FULL * (cpus - k6_cpus):
        return f"the CPUs ({figures})"
    return f"neither is full ({figures})"


def _workers_and_batch(run: DeviceRun, load: str, clients: int) -> list[str]:
    """How many workers on the GPU: the fewest within NOISE of the best; and the batch
    size, where the run measured one besides the default."""
    best = _best(run, load, BATCHED)
    if best is None:
        return []
    counts = sorted({stack.workers for stack in run.stacks if BATCHED.hold(stack)})
    per_count = [_best(run, load, replace(BATCHED, workers=n)) for n in counts]
    close = [b for b in per_count if b is not None and b.rps >= best.rps * (1 - NOISE)]
    chosen = min(close, key=lambda each: each.stack.workers, default=best)
    out = [
        f"- **How many workers on the GPU, {clients} clients?** {chosen.stack.workers} "
        f"({chosen.name}; the fewest within {NOISE:.0%} of the best, {best.name})"
    ]
    batch = _best(run, load, replace(BATCHED, sized=True))
    default = _best(run, load, replace(BATCHED, sized=False))
    if batch is not None and default is not None:
        size = batch.stack.env["BATCH_MAX_SIZE"]
        gist, how_much = _called(batch.rps / default.rps, size, "8 (the default)")
        out.append(f"- **Batch size, {clients} clients?** {gist} ({how_much})")
    return out


def answers(run: DeviceRun) -> list[str]:
    out = []
    for each in gpu_or_cpu(run):
        head = f"- **GPU or CPU, {each.clients} clients?** {each.verdict}"
        out.append(f"{head}: {each.figures}" if each.figures else head)
    for load, clients in _loads(run).items():
        best = _best(run, load, GPU)
        if best is not None:
            out.append(
                f"- **What sets the pace of the best GPU cell, {clients} clients?** "
                f"{bound(run, best, load)}: {best.name}"
            )
    for load, clients in _loads(run).items():
        out += _workers_and_batch(run, load, clients)
    return out or [f"- {_no_gpu(run)}"]


@dataclass(frozen=True)
class Goal:
    goal: str
    measured: str
    status: str


def _ratio_goal(run: DeviceRun, goal: str, minimum: float, top: Cells, bottom: Cells) -> Goal:
    measured = []
    met = True
    for load, clients in _loads(run).items():
        a, b = _best(run, load, top), _best(run, load, bottom)
        if a is None or b is None:
            return Goal(goal, "—", _no_gpu(run))
        met = met and a.rps / b.rps >= minimum
        measured.append(f"{clients} clients: {a.rps / b.rps:.2f}x")
    if not measured:
        return Goal(goal, "—", _no_gpu(run))
    return Goal(goal, "; ".join(measured), "met" if met else "not met")


def goals(run: DeviceRun) -> list[Goal]:
    ran = [stack for stack in run.stacks if stack.ran]
    failed = sum(each.failed for stack in ran for each in stack.loads)
    broken = [stack for stack in run.stacks if stack.error]
    gpu_ran = [stack for stack in ran if stack.gpu]
    fastest = max((each.rps for s in gpu_ran for each in s.loads if each.failed == 0), default=0.0)
    return [
        Goal(
            "zero failed requests in every mode",
            f"{failed} failed, {len(broken)} stack(s) failed to run",
            ("met" if not failed and not broken else "not met")
            if gpu_ran
            else f"CPU modes only: {_no_gpu(run)}",
        ),
        _ratio_goal(run, "GPU batched ≥ 3x GPU per request", 3.0, BATCHED, PER_REQUEST),
        _ratio_goal(run, "best GPU ≥ 2x best CPU", 2.0, GPU, CPU),
        Goal(
            f"best GPU ≥ {GPU_RPS_GOAL:.0f} requests/s",
            f"{fastest:.1f} requests/s" if gpu_ran else "—",
            ("met" if fastest >= GPU_RPS_GOAL else "not met") if gpu_ran else _no_gpu(run),
        ),
        _memory_goal(run, gpu_ran),
        _accuracy_goal(run),
    ]


def _fields(result: EvalResult) -> dict[str, float]:
    return {
        f"{score['split']} {score['usage']} {name}": value
        for score in result.scores
        for name, value in score["accuracy"].items()
    }


def _label(stack: StackResult) -> str:
    return f"{stack.variant} w{stack.workers}"


def _memory_goal(run: DeviceRun, gpu_ran: list[StackResult]) -> Goal:
    """GPU memory per worker, and 8 or more workers on the GPU without running out of it:
    judged on the stacks that ran; one the budget left out is named, not counted."""
    goal = f"≤ {MEMORY_PER_WORKER_MIB // 1024} GiB GPU memory per worker, no OOM at 8 workers"
    if not gpu_ran:
        return Goal(goal, "—", _no_gpu(run))
    peak = max((s.gpu_peak_process_mib or 0 for s in gpu_ran), default=0)
    eight = [s for s in run.stacks if s.gpu and s.workers >= 8]
    tried = [s for s in eight if not s.skipped]
    clean = [
        s
        for s in tried
        if s.ran and not s.out_of_memory and all(not each.failed for each in s.loads)
    ]
    said = [f"{peak} MiB per worker at most"]
    if clean:
        said.append("ran clean at 8+ workers: " + ", ".join(_label(s) for s in clean))
    if len(clean) < len(tried):
        said.append("failed: " + ", ".join(_label(s) for s in tried if s not in clean))
    if len(tried) < len(eight):
        said.append("not run: " + ", ".join(_label(s) for s in eight if s.skipped))
    if not tried:
        return Goal(goal, "; ".join(said), "not measured at 8 workers")
    met = peak <= MEMORY_PER_WORKER_MIB and len(clean) == len(tried)
    return Goal(goal, "; ".join(said), "met" if met else "not met")


def _accuracy_goal(run: DeviceRun) -> Goal:
    goal = "accuracy on the GPU equal to the CPU's"
    reference = next((e for e in run.evals if not e.gpu and e.scores), None)
    measured = [e for e in run.evals if e.gpu and e.scores]
    if reference is None or not measured:
        return Goal(goal, "—", _no_gpu(run))
    base = _fields(reference)
    worst = {
        e.name: max(abs(_fields(e).get(key, 0.0) - value) for key, value in base.items())
        for e in measured
    }
    shown = "; ".join(f"{name}: largest field difference {d:.1%}" for name, d in worst.items())
    return Goal(goal, shown, "met" if all(d == 0 for d in worst.values()) else "not met")


def _figure(value: float | None, digits: int = 0, thousands: bool = False) -> str:
    return "—" if value is None else f"{value:{',' if thousands else ''}.{digits}f}"


def _failed(load: LoadResult) -> str:
    """How many failed, and how: "3 (status 503: 3)"."""
    kinds = ", ".join(f"{kind}: {n}" for kind, n in load.failures.items())
    return f"{load.failed} ({kinds})" if load.failed and kinds else str(load.failed)


def _stack_rows(run: DeviceRun) -> list[list[str]]:
    rows = []
    for s in run.stacks:
        where = [s.variant, str(s.workers), ", ".join(f"{k}={v}" for k, v in s.env.items())]
        if not s.ran:
            rows.append([*where, s.skipped or f"failed: {s.error.splitlines()[0]}", *[""] * 10])
            continue
        memory = [s.gpu_peak_process_mib, s.gpu_peak_total_mib, s.server_memory_mib]
        rows += [
            [
                *where,
                f"{each.clients} x {each.requests}",
                f"{each.rps:.1f}",
                f"{each.p50_ms:,.0f}",
                f"{each.p99_ms:,.0f}",
                _failed(each),
                _figure(each.server_cpus, 1),
                _figure(each.gpu_busy_pct),
                *(_figure(mib, thousands=True) for mib in memory),
                f"{s.start_s:.0f}",
            ]
            for each in s.loads
        ]
    return rows


STACKS_HEAD = ["variant", "workers", "settings", "load", "requests/s", "p50 ms", "p99 ms"]
STACKS_HEAD += ["failed", "server CPUs", "GPU busy %", "GPU MiB per process", "GPU MiB in all"]
STACKS_HEAD += ["memory MiB", "start s"]
NO_GPU = (
    "**The GPU figures wait for a machine with an NVIDIA GPU.** This run's machine has "
    "none ({}), so every GPU cell below is skipped and says so; the CPU cells show the same "
    "matrix runs end to end. On a GPU machine: `scripts/device/bundle.sh` here, then "
    "`scripts/device/run.sh` there (loadtests/README.md)."
)
STACKS = (
    "Each stack is the compose service started as `servelab up` starts it, warmed up, then "
    "measured under each load in turn: `clients` on new connections share `requests` (ab's "
    "shape, k6 shared-iterations, loadtests/health-code.js with every answer checked). Server "
    "CPUs: the CPU seconds of every process and thread of the stack over the load, per second "
    "of it. GPU busy: nvidia-smi's utilisation (the share of time a kernel ran), the mean of "
    "its readings every 0.25 s over the load. GPU memory is the most nvidia-smi saw the "
    "stack's processes hold, sampled every 0.25 s from start to stop; memory, the most they "
    "held in the machine's memory at once (summed PSS), read every second."
)


def _machine(run: DeviceRun) -> list[str]:
    m = run.machine
    gpus = "; ".join(
        f"{g['name']}, driver {g['driver']}, {g['memory_mib']:,} MiB" for g in run.gpus
    )
    return [
        f"- GPU: {gpus or run.no_gpu}",
        f"- CPU: {m['cpu_model']}, {m['cpus']} CPUs, {m['memory_gib']:.1f} GiB memory",
        f"- {m['os']} (Linux {m['kernel']}), Python {m['python']}, {run.k6}",
        f"- code: commit {run.commit}; started {run.started}, {run.wall_s:.0f} s of a "
        f"{run.budget_s:.0f} s budget (form `{run.form}`)",
    ]


def render(run: DeviceRun) -> str:
    out = [f"# {run.title}", "", *_machine(run), ""]
    out += [NO_GPU.format(run.no_gpu), ""] if run.no_gpu else []
    out += ["## Answers", "", *answers(run), "", "## Goals", ""]
    out += table(["goal", "measured", ""], [[g.goal, g.measured, g.status] for g in goals(run)])
    out += ["## Every stack", "", STACKS, "", *table(STACKS_HEAD, _stack_rows(run))]
    scored = [e for e in run.evals if e.scores]
    keys = list(dict.fromkeys(key for e in scored for key in _fields(e)))
    rows = [[key, *(f"{_fields(e).get(key, 0.0):.1%}" for e in scored)] for key in keys]
    out += ["## Accuracy", ""]
    out += table(["split, usage, field", *(e.name for e in scored)], rows) if rows else []
    out += [] if rows else ["No engine was scored.", ""]
    out += [f"- {e.name}: {e.skipped or e.error}" for e in run.evals if not e.scores]
    per_set = max((score["images"] for e in run.evals for score in e.scores), default=0)
    out += [
        *([""] if any(not e.scores for e in run.evals) else []),
        f"The same saved screenshots ({per_set} per usage and split, `health-code-eval "
        "--save`) scored by each engine with `health-code-eval --images`.",
        "",
    ]
    return "\n".join(out)


def write_device_report(saved: Path, project_dir: Path) -> Path:
    """docs/results/health-code.gpu.md (and the JSON beside it, copied there if it came
    from elsewhere, such as the GPU machine's output folder)."""
    results = results_dir(project_dir)
    target = results / f"{RESULTS_NAME}.json"
    if saved.resolve() != target.resolve():
        shutil.copyfile(saved, target)
    report = results / f"{RESULTS_NAME}.md"
    report.write_text(render(load_device_run(saved)))
    return report
