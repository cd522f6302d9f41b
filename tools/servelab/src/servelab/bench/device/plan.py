"""The device matrix for one form (servelab.spec.device): variants x workers, each stack
measured under every load as the runner measures a cell, and the accuracy evaluations."""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.load.shape import Load, parse_load
from servelab.bench.plan.matrix import Cell
from servelab.project import Project
from servelab.spec import matrix
from servelab.spec.device import FAMILY, GPU_PROFILE, Device
from servelab.spec.family import SpecError, read_spec, validate

# The bench form whose [settings] every stack starts with.
SETTINGS_FORM = "full"


@dataclass(frozen=True)
class DeviceStack:
    """One stack to start: a variant at a worker count, measured under every load with the
    bench's `endpoint` and `settings`."""

    variant: matrix.Variant
    workers: int
    endpoint: matrix.Endpoint
    settings: dict[str, str]

    @property
    def label(self) -> str:
        return f"{self.variant.name} w{self.workers}"

    @property
    def gpu(self) -> bool:
        return self.variant.profile == GPU_PROFILE

    def cell(self, load_name: str, load: Load) -> Cell:
        """The stack under one load, as a bench cell."""
        endpoint = self.endpoint.model_copy(update={"key": load_name})
        return Cell(self.variant, self.workers, endpoint, load, self.settings)

    @property
    def env(self) -> dict[str, str]:
        """What compose interpolates for this stack: the settings, the variant's own and the
        number of workers."""
        return {**self.settings, **self.variant.env, self.variant.scale_env: str(self.workers)}


@dataclass(frozen=True)
class Plan:
    spec: Device
    form: str
    # The family's bench matrix, whose variants, endpoints and settings the spec names.
    bench: matrix.MatrixSpec

    def _ab(self, clients: int, requests: int) -> Load:
        table = {"vus": clients, "iterations": requests, "max_duration_s": self.spec.max_duration_s}
        return parse_load(table, "device load", "ab")

    @property
    def loads(self) -> dict[str, Load]:
        return {
            name: self._ab(load.clients, load.requests.of(self.form))
            for name, load in self.spec.loads.items()
        }

    @property
    def warmup(self) -> Load:
        requests = self.spec.warmup.of(self.form)
        clients = max(load.clients for load in self.spec.loads.values())
        return self._ab(min(clients, requests), requests)

    def variant(self, name: str) -> matrix.Variant:
        """The device variant `name`: the bench variant it names, its env under the device's."""
        own = self.spec.variants[name]
        base = self.bench.variants.get(own.bench)
        if base is None:
            where = f"{FAMILY}: device.variants.{name}.bench"
            raise SpecError(f"{where}: no bench variant {own.bench!r}")
        return base.model_copy(update={"name": name, "env": {**base.env, **own.env}})

    def stacks(self, cpus: int | None = None) -> list[DeviceStack]:
        """Every stack in the file's order, worker counts above `cpus` left out."""
        group = self.bench.endpoints.get(self.spec.endpoint)
        if not group:
            raise SpecError(f"{FAMILY}: device.endpoint: no endpoint group {self.spec.endpoint!r}")
        settings = dict(self.bench.settings.get(SETTINGS_FORM, {}))
        return [
            DeviceStack(self.variant(name), workers, group[0], settings)
            for name, variant in self.spec.variants.items()
            for workers in variant.workers.of(self.form)
            if cpus is None or workers <= cpus
        ]


def load_plan(project: Project, form: str) -> Plan:
    """The matrix of the family's spec, sized for `form` (one of spec.device.FORMS)."""
    table = read_spec(project, FAMILY)
    device = validate(Device, table.get("device"), f"{FAMILY}: device")
    return Plan(device, form, matrix.parse_matrix_spec(table, FAMILY))
