"""docs/results/health-code.gpu.md from a device run's JSON: the answers (GPU or CPU, how
many workers, what batch size) and the goals of `[device]` of the family's spec, every
stack, and the accuracy of each engine. A device run measures each cell once: a ratio of two
cells is called only beyond the project's noise band either side of 1 (servelab.project.Noise,
what repeat runs moved by), an assumption docs/findings.md does not make: it gives these
figures without a verdict."""

from __future__ import annotations

import shutil
from collections.abc import Callable
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
from servelab.bench.report.stages import INTRO, profiles_table
from servelab.markdown import table
from servelab.project import Noise, Project
from servelab.spec.device import CPU, GPU, Device, DeviceGoal, read_device

# Which stacks a set holds.
Cells = Callable[[StackResult], bool]
ON_GPU: Cells = lambda stack: stack.gpu  # noqa: E731
ON_CPU: Cells = lambda stack: not stack.gpu  # noqa: E731


@dataclass(frozen=True)
class Best:
    stack: StackResult
    rps: float

    @property
    def name(self) -> str:
        return f"{self.stack.variant}, {self.stack.workers} worker(s), {self.rps:.1f} requests/s"


def _found(run: DeviceRun, load: str, cells: Cells) -> list[Best]:
    """The set's cells under `load` with none failed."""
    return [
        Best(stack, each.rps)
        for stack in run.stacks
        if stack.ran and cells(stack)
        for each in stack.loads
        if each.name == load and each.failed == 0
    ]


def _best(run: DeviceRun, load: str, cells: Cells) -> Best | None:
    """The set's cell with the most requests/s under `load`, none failed."""
    return max(_found(run, load, cells), key=lambda best: best.rps, default=None)


def _loads(run: DeviceRun) -> dict[str, int]:
    """Each load's name and its clients, in the order run."""
    return {each.name: each.clients for stack in run.stacks for each in stack.loads}


def _called(ratio: float, better: str, worse: str, noise: Noise) -> tuple[str, str]:
    """The answer a ratio of two single runs gives (`better`, `worse` or no measurable
    difference), and by how much."""
    if 1 / (1 + noise.ratio) <= ratio <= 1 + noise.ratio:
        return (
            "no measurable difference",
            f"{ratio:.2f}x, within the {noise.ratio:.0%} noise of one run",
        )
    return (better, f"{ratio:.2f}x") if ratio > 1 else (worse, f"{1 / ratio:.2f}x")


def _no_gpu(run: DeviceRun) -> str:
    return f"not measured: {run.no_gpu}" if run.no_gpu else "not measured"


@dataclass(frozen=True)
class GpuOrCpu:
    """The best GPU cell against the best CPU cell under one load: the answer ("the GPU",
    "the CPU", no measurable difference, or why there is none), and by how much."""

    clients: int
    gist: str
    how_much: str
    gpu: Best | None
    cpu: Best | None

    @property
    def figures(self) -> str:
        if self.gpu is None or self.cpu is None:
            return ""
        return f"best GPU {self.gpu.name}; best CPU {self.cpu.name}"


def gpu_or_cpu(run: DeviceRun, noise: Noise) -> list[GpuOrCpu]:
    """For each load: the GPU, the CPU or no measurable difference, from the best cells."""
    out = []
    for load, clients in _loads(run).items():
        gpu, cpu = _best(run, load, ON_GPU), _best(run, load, ON_CPU)
        if gpu is None or cpu is None:
            gist, how_much = (_no_gpu(run) if gpu is None else "the CPU cells failed"), ""
        else:
            gist, how_much = _called(gpu.rps / cpu.rps, "the GPU", "the CPU", noise)
        out.append(GpuOrCpu(clients, gist, how_much, gpu, cpu))
    return out


@dataclass(frozen=True)
class Judged:
    """A run judged by `[device]` of the spec: its answers and its goals."""

    run: DeviceRun
    spec: Device
    noise: Noise

    def cells(self, name: str) -> Cells:
        """The stacks of the set `name`: `gpu`, `cpu`, or one of the spec's sets."""
        if name in (GPU, CPU):
            return ON_GPU if name == GPU else ON_CPU
        members = self.spec.sets[name]
        return lambda stack: stack.variant in members

    def bound(self, best: Best, load: str) -> str:
        """Which resource the cell kept full: the GPU, the CPUs, or neither, with the figures."""
        measured = next(each for each in best.stack.loads if each.name == load)
        if measured.server_cpus is None or measured.elapsed_s <= 0:
            return "not recorded in this run (the servers' CPU use)"
        cpus = self.run.machine["cpus"]
        k6_cpus = measured.k6_cpu_s / measured.elapsed_s
        busy = measured.gpu_busy_pct
        figures = f"servers {measured.server_cpus:.1f} of {cpus} CPUs, k6 {k6_cpus:.1f}" + (
            f", GPU busy {busy:.0f}% of the time" if busy is not None else ""
        )
        if busy is not None and busy >= self.spec.answers.gpu_full_pct:
            return f"the GPU ({figures})"
        if measured.server_cpus >= self.spec.answers.cpus_full * (cpus - k6_cpus):
            return f"the CPUs ({figures})"
        return f"neither is full ({figures})"

    def workers_and_batch(self, load: str, clients: int) -> list[str]:
        """How many workers on the GPU: the fewest within the noise of the best; and the
        batch size, where the run measured one besides the default."""
        answers, run = self.spec.answers, self.run
        batched = self.cells(answers.batched)
        found = _found(run, load, batched)
        if not found:
            return []
        best = max(found, key=lambda each: each.rps)
        close = [each for each in found if each.rps >= best.rps * (1 - self.noise.once)]
        chosen = min(close, key=lambda each: (each.stack.workers, -each.rps))
        out = [
            f"- **How many workers on the GPU, {clients} clients?** {chosen.stack.workers} "
            f"({chosen.name}; the fewest within {self.noise.once:.0%} of the best, {best.name})"
        ]
        setting = answers.batch_setting
        sized = _best(run, load, lambda s: batched(s) and setting in s.env)
        default = _best(run, load, lambda s: batched(s) and setting not in s.env)
        if sized is not None and default is not None:
            size, other = sized.stack.env[setting], f"{answers.batch_default} (the default)"
            gist, how_much = _called(sized.rps / default.rps, size, other, self.noise)
            out.append(f"- **Batch size, {clients} clients?** {gist} ({how_much})")
        return out

    def answers(self) -> list[str]:
        out = []
        for each in gpu_or_cpu(self.run, self.noise):
            verdict = f"{each.gist} ({each.how_much})" if each.how_much else each.gist
            head = f"- **GPU or CPU, {each.clients} clients?** {verdict}"
            out.append(f"{head}: {each.figures}" if each.figures else head)
        for load, clients in _loads(self.run).items():
            if (best := _best(self.run, load, ON_GPU)) is not None:
                out.append(
                    f"- **What sets the pace of the best GPU cell, {clients} clients?** "
                    f"{self.bound(best, load)}: {best.name}"
                )
        for load, clients in _loads(self.run).items():
            out += self.workers_and_batch(load, clients)
        return out or [f"- {_no_gpu(self.run)}"]

    def goals(self) -> list[list[str]]:
        """Each goal of the spec: the goal, what was measured, and met, not met or why not."""
        return [[goal.goal, *getattr(self, f"_{goal.measure}")(goal)] for goal in self.spec.goals]

    def _failed(self, goal: DeviceGoal) -> tuple[str, str]:
        stacks = self.run.stacks
        failed = sum(each.failed for stack in stacks if stack.ran for each in stack.loads)
        broken = [stack for stack in stacks if stack.error]
        measured = f"{failed} failed, {len(broken)} stack(s) failed to run"
        if not any(stack.ran and stack.gpu for stack in stacks):
            return measured, f"CPU modes only: {_no_gpu(self.run)}"
        return measured, _met(failed <= goal.max and not broken)

    def _ratio(self, goal: DeviceGoal) -> tuple[str, str]:
        top, bottom = (self.cells(name) for name in goal.cells)
        measured, met = [], True
        for load, clients in _loads(self.run).items():
            a, b = _best(self.run, load, top), _best(self.run, load, bottom)
            if a is None or b is None:
                return "—", _no_gpu(self.run)
            met = met and a.rps / b.rps >= goal.min
            measured.append(f"{clients} clients: {a.rps / b.rps:.2f}x")
        return ("; ".join(measured), _met(met)) if measured else ("—", _no_gpu(self.run))

    def _rps(self, goal: DeviceGoal) -> tuple[str, str]:
        cells = self.cells(goal.cells[0])
        ran = [stack for stack in self.run.stacks if stack.ran and cells(stack)]
        if not ran:
            return "—", _no_gpu(self.run)
        fastest = max((each.rps for s in ran for each in s.loads if each.failed == 0), default=0.0)
        return f"{fastest:.1f} requests/s", _met(fastest >= goal.min)

    def _gpu_memory(self, goal: DeviceGoal) -> tuple[str, str]:
        """GPU memory per process, and every GPU stack of `workers` or more run without
        running out of it: judged on the stacks that ran; one the budget left out is named,
        not counted."""
        on_gpu = [stack for stack in self.run.stacks if stack.gpu]
        if not any(stack.ran for stack in on_gpu):
            return "—", _no_gpu(self.run)
        peak = max((s.gpu_peak_process_mib or 0 for s in on_gpu if s.ran), default=0)
        many = [s for s in on_gpu if s.workers >= goal.workers]
        tried = [s for s in many if not s.skipped]
        clean = [
            s for s in tried if s.ran and not s.out_of_memory and not any(e.failed for e in s.loads)
        ]
        said = [f"{peak} MiB per worker at most"]
        for head, stacks in (
            (f"ran clean at {goal.workers}+ workers", clean),
            ("failed", [s for s in tried if s not in clean]),
            ("not run", [s for s in many if s.skipped]),
        ):
            names = ", ".join(f"{s.variant} w{s.workers}" for s in stacks)
            said += [f"{head}: {names}"] if stacks else []
        if not tried:
            return "; ".join(said), f"not measured at {goal.workers} workers"
        return "; ".join(said), _met(peak <= goal.max and len(clean) == len(tried))

    def _accuracy(self, goal: DeviceGoal) -> tuple[str, str]:
        evals = self.run.evals
        reference = next((e for e in evals if not e.gpu and e.scores), None)
        measured = [e for e in evals if e.gpu and e.scores]
        if reference is None or not measured:
            return "—", _no_gpu(self.run)
        base = _fields(reference)
        worst = {
            e.name: max(abs(_fields(e).get(key, 0.0) - value) for key, value in base.items())
            for e in measured
        }
        shown = "; ".join(f"{name}: largest field difference {d:.1%}" for name, d in worst.items())
        return shown, _met(all(d <= goal.max for d in worst.values()))


def _met(met: bool) -> str:
    return "met" if met else "not met"


def _fields(result: EvalResult) -> dict[str, float]:
    return {
        f"{score['split']} {score['usage']} {name}": value
        for score in result.scores
        for name, value in score["accuracy"].items()
    }


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


def _profiles(run: DeviceRun) -> list[str]:
    """Each engine's stage profile side by side, on this machine: what a GPU takes off the
    CPUs, and what it leaves there."""
    if not run.profiles:
        return []
    done = [(each.name, each.stages) for each in run.profiles if each.stages]
    out = ["## Where a request's CPU time goes", "", INTRO, ""]
    out += profiles_table(done) if done else ["No profile was measured.", ""]
    out += [
        f"- {each.name}: {each.skipped or each.error}" for each in run.profiles if not each.stages
    ]
    if len(done) < len(run.profiles):
        out.append("")
    if done:
        out += [
            "On CUDA a network's CPU time may include the host thread waiting for the GPU "
            "(the CUDA runtime spins while it waits for a result, by default): there its wall "
            "time is the nearer measure of what the GPU took.",
            "",
        ]
    return out


def render(judged: Judged) -> str:
    run = judged.run
    out = [f"# {run.title}", "", *_machine(run), ""]
    out += [NO_GPU.format(run.no_gpu), ""] if run.no_gpu else []
    out += ["## Answers", "", *judged.answers(), "", "## Goals", ""]
    out += table(["goal", "measured", ""], judged.goals())
    out += ["## Every stack", "", STACKS, "", *table(STACKS_HEAD, _stack_rows(run))]
    out += _profiles(run)
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


def write_device_report(saved: Path, project: Project) -> Path:
    """docs/results/health-code.gpu.md (and the JSON beside it, copied there if it came
    from elsewhere, such as the GPU machine's output folder)."""
    target = project.results / f"{RESULTS_NAME}.json"
    if saved.resolve() != target.resolve():
        shutil.copyfile(saved, target)
    report = project.results / f"{RESULTS_NAME}.md"
    report.write_text(render(Judged(load_device_run(saved), read_device(project), project.noise)))
    return report
