"""The health-code family's run on a machine with an NVIDIA GPU: `[device]` of its spec
(loadtests/families/health-code.toml): its variants, loads and accuracy checks, each sized per
form (`device`: the GPU machine; `smoke`: the same in miniature, on the CPU), and the answers
and goals its report judges them by."""

from __future__ import annotations

from typing import Generic, Literal, Self, TypeVar

from pydantic import Field, NonNegativeFloat, PositiveInt, model_validator

from servelab.project import Project
from servelab.spec.family import Spec, read_spec, validate

FAMILY = "health-code"
FORMS = ("device", "smoke")
# The compose profile whose services run on the GPU.
GPU_PROFILE = "gpu"
# The sets of stacks every device run has: those on the GPU, and the others.
GPU, CPU = "gpu", "cpu"

T = TypeVar("T")


class PerForm(Spec, Generic[T]):
    """A value for each form."""

    device: T
    smoke: T

    def of(self, form: str) -> T:
        return self.device if form == "device" else self.smoke


class DeviceLoad(Spec):
    """ab's shape: `clients`, each on a new connection, share `requests`."""

    clients: PositiveInt
    requests: PerForm[PositiveInt]


class DeviceVariant(Spec):
    """A bench variant of the family's (`bench`: its service, profile and env) with `env` on
    top, started at each worker count."""

    bench: str
    env: dict[str, str] = Field(default_factory=dict)
    workers: PerForm[tuple[PositiveInt, ...]]


class Eval(Spec):
    """One engine's accuracy on the saved screenshots: `health-code-eval --images` args."""

    name: str
    args: tuple[str, ...]
    gpu: bool = False


class StageProfile(Spec):
    """Where one request's CPU time goes on one engine: `health-code-profile` args (its
    images among them), each image sent `repeat` times."""

    name: str
    args: tuple[str, ...]
    repeat: PerForm[PositiveInt]
    gpu: bool = False


class Answers(Spec):
    """What the report's answers read besides the GPU's and the CPU's best cells."""

    gpu_full_pct: NonNegativeFloat
    cpus_full: NonNegativeFloat
    batched: str
    batch_setting: str
    batch_default: str


class DeviceGoal(Spec):
    """A target the report judges the run by (the kinds: loadtests/families/health-code.toml)."""

    goal: str
    measure: Literal["failed", "ratio", "rps", "gpu_memory", "accuracy"]
    cells: tuple[str, ...] = ()
    min: float = 0.0
    max: float = 0.0
    workers: PositiveInt = 1

    @model_validator(mode="after")
    def _cells(self) -> Self:
        if len(self.cells) != {"ratio": 2, "rps": 1}.get(self.measure, 0):
            raise ValueError(f"{self.goal!r}: `{self.measure}` takes other `cells`")
        return self


class GpuMachine(Spec):
    """The GPU machine the bundle is made for: its Python, and what its image has."""

    python: str
    has: frozenset[str]


class Device(Spec):
    title: str
    # Requests sent before a stack's measured loads, not counted.
    warmup: PerForm[PositiveInt]
    max_duration_s: PositiveInt
    endpoint: str
    loads: dict[str, DeviceLoad]
    variants: dict[str, DeviceVariant]
    eval: tuple[Eval, ...] = ()
    profile: tuple[StageProfile, ...] = ()
    sets: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    answers: Answers
    goals: tuple[DeviceGoal, ...] = ()
    machine: GpuMachine

    @model_validator(mode="after")
    def _names_exist(self) -> Self:
        named = {*self.sets, GPU, CPU}
        wanted = [self.answers.batched, *(c for goal in self.goals for c in goal.cells)]
        for missing in [name for name in wanted if name not in named]:
            raise ValueError(f"no set {missing!r} (known: {', '.join(sorted(named))})")
        for missing in {v for members in self.sets.values() for v in members} - set(self.variants):
            raise ValueError(f"sets: no variant {missing!r}")
        return self


def read_device(project: Project) -> Device:
    """The family's `[device]`."""
    return validate(Device, read_spec(project, FAMILY).get("device"), f"{FAMILY}: device")
