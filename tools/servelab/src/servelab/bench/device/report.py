"""docs/results/health-code.gpu.md from a device run's JSON: the answers (GPU or CPU, how
many workers, what batch size), the goals, every stack, and the accuracy of each engine."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.device.results import (
    RESULTS_NAME,
    DeviceRun,
    EvalResult,
    LoadResult,
    StackResult,
    load_device_run,
)
from servelab.project import results_dir

# A ratio between two single runs closer to 1 than this is no measurable difference: two
# runs of the same quick cell move up to 10-20% on a shared machine.
NOISE = 0.2
MEMORY_PER_WORKER_MIB = 4096
GPU_RPS_GOAL = 200.0
# A resource that sets the pace: the GPU busy this share of the time, or the servers using
# this share of the CPUs k6 leaves them.
GPU_FULL_PCT = 90.0
CPUS_FULL = 0.8


@dataclass(frozen=True)
class Best:
    stack: StackResult
    rps: float


def _mode(stack: StackResult) -> str:
    return stack.env.get("ANALYZE_MODE", "threadpool")


def _best(run: DeviceRun, load: str, keep: Callable[[StackResult], bool]) -> Best | None:
    found = [
        Best(stack, each.rps)
        for stack in run.stacks
        if stack.ran and keep(stack)
        for each in stack.loads
        if each.name == load and each.failed == 0
    ]
    return max(found, key=lambda best: best.rps, default=None)


def _loads(run: DeviceRun) -> list[str]:
    return list(dict.fromkeys(each.name for stack in run.stacks for each in stack.loads))


def _on_gpu(stack: StackResult) -> bool:
    return stack.gpu


def _on_cpu(stack: StackResult) -> bool:
    return not stack.gpu


def _batched_gpu(stack: StackResult) -> bool:
    return stack.gpu and _mode(stack) == "batched"


def _batched_at(workers: int) -> Callable[[StackResult], bool]:
    return lambda stack: _batched_gpu(stack) and stack.workers == workers


def _per_request_gpu(stack: StackResult) -> bool:
    return stack.gpu and _mode(stack) == "threadpool"


def _name(best: Best) -> str:
    return f"{best.stack.variant}, {best.stack.workers} worker(s), {best.rps:.1f} requests/s"


def _called(ratio: float, better: str, worse: str) -> tuple[str, str]:
    """The answer a ratio gives (`better`, `worse` or no measurable difference), and by
    how much."""
    if abs(ratio - 1) <= NOISE:
        return "no measurable difference", f"{ratio:.2f}x, within the {NOISE:.0%} noise of one run"
    return (better, f"{ratio:.2f}x") if ratio > 1 else (worse, f"{1 / ratio:.2f}x")


def _verdict(ratio: float, better: str, worse: str) -> str:
    gist, how_much = _called(ratio, better, worse)
    return f"{gist} ({how_much})"


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
        return f"best GPU {_name(self.gpu)}; best CPU {_name(self.cpu)}"


def gpu_or_cpu(run: DeviceRun) -> list[GpuOrCpu]:
    """For each load: the GPU, the CPU or no measurable difference, from the best cells."""
    out = []
    for load in _loads(run):
        gpu, cpu = _best(run, load, _on_gpu), _best(run, load, _on_cpu)
        if gpu is None or cpu is None:
            gist, how_much = (_no_gpu(run) if gpu is None else "the CPU cells failed"), ""
        else:
            gist, how_much = _called(gpu.rps / cpu.rps, "the GPU", "the CPU")
        out.append(GpuOrCpu(_clients(run, load), gist, how_much, gpu, cpu))
    return out


def bound(run: DeviceRun, best: Best, load: str) -> str:
    """Which resource the cell kept full: the GPU, the CPUs, or neither, with the figures."""
    measured = next(each for each in best.stack.loads if each.name == load)
    if measured.server_cpus is None or measured.elapsed_s <= 0:
        return "not recorded in this run (the servers' CPU use)"
    cpus = run.machine["cpus"]
    k6_cpus = measured.k6_cpu_s / measured.elapsed_s
    left = cpus - k6_cpus
    busy = measured.gpu_busy_pct
    figures = f"servers {measured.server_cpus:.1f} of {cpus} CPUs, k6 {k6_cpus:.1f}" + (
        f", GPU busy {busy:.0f}% of the time" if busy is not None else ""
    )
    if busy is not None and busy >= GPU_FULL_PCT:
        return f"the GPU ({figures})"
    if measured.server_cpus >= CPUS_FULL * left:
        return f"the CPUs ({figures})"
    return f"neither is full ({figures})"


def answers(run: DeviceRun) -> list[str]:
    out = []
    for each in gpu_or_cpu(run):
        head = f"- **GPU or CPU, {each.clients} clients?** {each.verdict}"
        out.append(f"{head}: {each.figures}" if each.figures else head)
    for load in _loads(run):
        best = _best(run, load, _on_gpu)
        if best is not None:
            out.append(
                f"- **What sets the pace of the best GPU cell, {_clients(run, load)} "
                f"clients?** {bound(run, best, load)}: {_name(best)}"
            )
    for load in _loads(run):
        best = _best(run, load, _batched_gpu)
        if best is None:
            continue
        counts = sorted({stack.workers for stack in run.stacks if _batched_gpu(stack)})
        per_count = [_best(run, load, _batched_at(count)) for count in counts]
        close = [b for b in per_count if b is not None and b.rps >= best.rps * (1 - NOISE / 2)]
        chosen = min(close, key=lambda each: each.stack.workers, default=best)
        out.append(
            f"- **How many workers on the GPU, {_clients(run, load)} clients?** "
            f"{chosen.stack.workers} ({_name(chosen)}; the fewest within "
            f"{NOISE / 2:.0%} of the best, {_name(best)})"
        )
        batch = _best(run, load, lambda s: _batched_gpu(s) and "BATCH_MAX_SIZE" in s.env)
        default = _best(run, load, lambda s: _batched_gpu(s) and "BATCH_MAX_SIZE" not in s.env)
        if batch is not None and default is not None:
            size = batch.stack.env["BATCH_MAX_SIZE"]
            out.append(
                f"- **Batch size, {_clients(run, load)} clients?** "
                f"{_verdict(batch.rps / default.rps, f'{size}', '8 (the default)')}"
            )
    return out or [f"- {_no_gpu(run)}"]


def _clients(run: DeviceRun, load: str) -> int:
    return next(each.clients for s in run.stacks for each in s.loads if each.name == load)


@dataclass(frozen=True)
class Goal:
    goal: str
    measured: str
    status: str


def _ratio_goal(
    run: DeviceRun, goal: str, minimum: float, top: Callable[..., bool], bottom: Callable[..., bool]
) -> Goal:
    measured = []
    met = True
    for load in _loads(run):
        a, b = _best(run, load, top), _best(run, load, bottom)
        if a is None or b is None:
            return Goal(goal, "—", _no_gpu(run))
        ratio = a.rps / b.rps
        met = met and ratio >= minimum
        measured.append(f"{_clients(run, load)} clients: {ratio:.2f}x")
    if not measured:
        return Goal(goal, "—", _no_gpu(run))
    return Goal(goal, "; ".join(measured), "met" if met else "not met")


def goals(run: DeviceRun) -> list[Goal]:
    ran = [stack for stack in run.stacks if stack.ran]
    failed = sum(each.failed for stack in ran for each in stack.loads)
    broken = [stack for stack in run.stacks if stack.error]
    gpu_ran = [stack for stack in ran if stack.gpu]
    out = [
        Goal(
            "zero failed requests in every mode",
            f"{failed} failed, {len(broken)} stack(s) failed to run",
            ("met" if not failed and not broken else "not met")
            if gpu_ran
            else f"CPU modes only: {_no_gpu(run)}",
        ),
        _ratio_goal(run, "GPU batched ≥ 3x GPU per request", 3.0, _batched_gpu, _per_request_gpu),
        _ratio_goal(run, "best GPU ≥ 2x best CPU", 2.0, _on_gpu, _on_cpu),
    ]
    fastest = max((each.rps for s in gpu_ran for each in s.loads if each.failed == 0), default=0.0)
    out.append(
        Goal(
            f"best GPU ≥ {GPU_RPS_GOAL:.0f} requests/s",
            f"{fastest:.1f} requests/s" if gpu_ran else "—",
            ("met" if fastest >= GPU_RPS_GOAL else "not met") if gpu_ran else _no_gpu(run),
        )
    )
    out.append(_memory_goal(run, gpu_ran))
    out.append(_accuracy_goal(run))
    return out


def _fields(result: EvalResult) -> dict[str, float]:
    return {
        f"{score['split']} {score['usage']} {name}": value
        for score in result.scores
        for name, value in score["accuracy"].items()
    }


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
        if s.ran and s.out_of_memory == 0 and all(each.failed == 0 for each in s.loads)
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


def _label(stack: StackResult) -> str:
    return f"{stack.variant} w{stack.workers}"


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
    shown = "; ".join(
        f"{name}: largest field difference {diff:.1%}" for name, diff in worst.items()
    )
    return Goal(goal, shown, "met" if all(d == 0 for d in worst.values()) else "not met")


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def _share(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _mib(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _failed(load: LoadResult) -> str:
    """How many failed, and how: "3 (status 503: 3)"."""
    if not load.failed:
        return "0"
    kinds = ", ".join(f"{kind}: {n}" for kind, n in load.failures.items())
    return f"{load.failed} ({kinds})" if kinds else str(load.failed)


def _stack_rows(run: DeviceRun) -> list[list[str]]:
    rows = []
    for s in run.stacks:
        where = [s.variant, str(s.workers), ", ".join(f"{k}={v}" for k, v in s.env.items())]
        if not s.ran:
            why = s.skipped or f"failed: {s.error.splitlines()[0]}"
            rows.append([*where, why, *[""] * 10])
            continue
        for each in s.loads:
            rows.append(
                [
                    *where,
                    f"{each.clients} x {each.requests}",
                    f"{each.rps:.1f}",
                    f"{each.p50_ms:,.0f}",
                    f"{each.p99_ms:,.0f}",
                    _failed(each),
                    _share(each.server_cpus, 1),
                    _share(each.gpu_busy_pct, 0),
                    _mib(s.gpu_peak_process_mib),
                    _mib(s.gpu_peak_total_mib),
                    _mib(None if s.server_memory_mib is None else round(s.server_memory_mib)),
                    f"{s.start_s:.0f}",
                ]
            )
    return rows


def _accuracy_rows(run: DeviceRun) -> tuple[list[str], list[list[str]]]:
    scored = [e for e in run.evals if e.scores]
    keys = list(dict.fromkeys(key for e in scored for key in _fields(e)))
    rows = [[key, *(f"{_fields(e).get(key, 0.0):.1%}" for e in scored)] for key in keys]
    return ["split, usage, field", *(e.name for e in scored)], rows


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
    if run.no_gpu:
        out += [
            f"**The GPU figures wait for a machine with an NVIDIA GPU.** This run's machine has "
            f"none ({run.no_gpu}), so every GPU cell below is skipped and says so; the CPU "
            "cells show the same matrix runs end to end. On a GPU machine: "
            "`scripts/device/bundle.sh` here, then `scripts/device/run.sh` there "
            "(loadtests/README.md).",
            "",
        ]
    out += ["## Answers", "", *answers(run), ""]
    out += ["## Goals", ""]
    out += _table(["goal", "measured", ""], [[g.goal, g.measured, g.status] for g in goals(run)])
    out += [
        "",
        "## Every stack",
        "",
        "Each stack is the compose service started as `servelab up` starts it, warmed up, "
        "then measured under each load in turn: `clients` on new connections share "
        "`requests` (ab's shape, k6 shared-iterations, loadtests/health-code.js with every "
        "answer checked). Server CPUs: the CPU seconds of every process and thread of the "
        "stack over the load, per second of it. GPU busy: nvidia-smi's utilisation (the "
        "share of time a kernel ran), the mean of its readings every 0.25 s over the load. "
        "GPU memory is the most nvidia-smi saw the stack's processes hold, sampled every "
        "0.25 s from start to stop; memory, the most they held in the machine's memory at "
        "once (summed PSS), read every second.",
        "",
    ]
    head = ["variant", "workers", "settings", "load", "requests/s", "p50 ms", "p99 ms"]
    head += ["failed", "server CPUs", "GPU busy %", "GPU MiB per process", "GPU MiB in all"]
    head += ["memory MiB", "start s"]
    out += _table(head, _stack_rows(run))
    accuracy_head, accuracy = _accuracy_rows(run)
    out += ["", "## Accuracy", ""]
    out += _table(accuracy_head, accuracy) if accuracy else ["No engine was scored."]
    skipped = [f"- {e.name}: {e.skipped or e.error}" for e in run.evals if not e.scores]
    out += ["", *skipped] if skipped else []
    per_set = max((score["images"] for e in run.evals for score in e.scores), default=0)
    out += [
        "",
        f"The same saved screenshots ({per_set} per usage and split, `health-code-eval "
        "--save`) scored by each engine with `health-code-eval --images`.",
        "",
    ]
    return "\n".join(out)


def write_device_report(saved: Path, project_dir: Path) -> Path:
    """docs/results/health-code.gpu.md (and the JSON beside it, copied there if it came
    from elsewhere, such as the GPU machine's output folder)."""
    run = load_device_run(saved)
    results = results_dir(project_dir)
    target = results / f"{RESULTS_NAME}.json"
    if saved.resolve() != target.resolve():
        shutil.copyfile(saved, target)
    report = results / f"{RESULTS_NAME}.md"
    report.write_text(render(run))
    return report
