"""The health-code family's run on a machine with an NVIDIA GPU: `[device]` of its spec
(`[device]` of loadtests/families/health-code.toml), its variants, loads and accuracy checks, each
sized per form (`device`: the GPU machine; `smoke`: the same in miniature, on the CPU)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Generic, Literal, Self, TypeVar

from pydantic import Field, PositiveInt, model_validator

from servelab.spec.family import Spec, SpecError, read_spec, validate

FAMILY = "health-code"
FORMS = ("device", "smoke")
Form = Literal["device", "smoke"]
# The compose profile whose services run on the GPU.
GPU_PROFILE = "gpu"

T = TypeVar("T")


class PerForm(Spec, Generic[T]):
    """A value for each form."""

    device: T
    smoke: T

    def of(self, form: str) -> T:
        return self.device if form == "device" else self.smoke


class Load(Spec):
    """ab's shape: `clients`, each on a new connection, share `requests`."""

    clients: PositiveInt
    requests: PerForm[PositiveInt]


class Variant(Spec):
    """A compose service of the family with `env` on top, started at each worker count: a
    bench variant of the family's (`bench`: its service, profile and env), or a service and
    profile of its own."""

    bench: str = ""
    service: str = ""
    profile: str = ""
    env: dict[str, str] = Field(default_factory=dict)
    workers: PerForm[tuple[PositiveInt, ...]]

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        own = (self.service, self.profile)
        if (self.bench and any(own)) or (not self.bench and not all(own)):
            raise ValueError("give either bench (a bench variant) or both service and profile")
        return self

    @property
    def gpu(self) -> bool:
        return self.profile == GPU_PROFILE


class Eval(Spec):
    """One engine's accuracy on the saved screenshots: `health-code-eval --images` args."""

    name: str
    args: tuple[str, ...]
    gpu: bool = False


class Device(Spec):
    title: str
    # Requests sent before a stack's measured loads, not counted.
    warmup: PerForm[PositiveInt]
    loads: dict[str, Load]
    variants: dict[str, Variant]
    eval: tuple[Eval, ...] = ()


def _resolved(name: str, variant: Variant, bench: Mapping[str, Any]) -> Variant:
    """`variant` with its bench variant's service, profile and env (its own env on top)."""
    if not variant.bench:
        return variant
    base = bench.get(variant.bench)
    if not isinstance(base, Mapping) or not {"service", "profile"} <= base.keys():
        raise SpecError(
            f"{FAMILY}: device.variants.{name}.bench: no bench variant {variant.bench!r}"
        )
    env = {str(key): str(value) for key, value in base.get("env", {}).items()}
    update = {"service": str(base["service"]), "profile": str(base["profile"])}
    return variant.model_copy(update={**update, "env": {**env, **variant.env}})


def read_device(project_dir: Path) -> Device:
    """The family's `[device]`, each variant that names a bench variant completed from it."""
    spec = read_spec(project_dir, FAMILY)
    device = validate(Device, spec.get("device"), f"{FAMILY}: device")
    bench = spec.get("variants", {})
    variants = {name: _resolved(name, v, bench) for name, v in device.variants.items()}
    return device.model_copy(update={"variants": variants})
