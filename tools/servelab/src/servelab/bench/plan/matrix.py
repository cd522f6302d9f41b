"""A family's benchmark matrix (servelab.spec.matrix) written out as cells: variants x
workers x endpoints, each with its load shape and the settings its server starts with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from servelab.bench.errors import BenchError
from servelab.bench.load.shape import Load, parse_load
from servelab.bench.load.tools import ToolError, check_shape
from servelab.project import Project
from servelab.spec import matrix as spec
from servelab.spec.family import SpecError, notes_file, read_spec
from servelab.spec.matrix import FORMS, STEADY, Endpoint, Goal, LoadTable, Payload, Ratio, Variant

__all__ = ["Cell", "Endpoint", "Matrix", "MatrixError", "Variant"]


class MatrixError(BenchError):
    """The matrix is missing something or names something that does not exist."""


@dataclass(frozen=True)
class Cell:
    variant: Variant
    workers: int
    endpoint: Endpoint
    load: Load
    settings: Mapping[str, str]
    # The load tools run after k6 on this cell (its variant's, in this form).
    tools: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.variant.name} w{self.workers} {self.endpoint.key}"

    @property
    def server_env(self) -> dict[str, str]:
        """What compose interpolates for this cell's server: the form's settings, the
        variant's own, and the number of workers (or replicas: the variant's scale_env)."""
        return {**self.settings, **self.variant.env, self.variant.scale_env: str(self.workers)}


@dataclass(frozen=True)
class Matrix:
    family: str
    title: str
    write_up: str
    payload: Payload | None
    loads: Mapping[str, Load]
    variants: tuple[Variant, ...]
    ratios: tuple[Ratio, ...]
    # Each goal once per endpoint it lists (Goal.each).
    goals: tuple[Goal, ...]
    shapes: Mapping[str, Mapping[str, Load]]
    settings: Mapping[str, Mapping[str, str]]
    # Each endpoint group's cells' endpoints: one per swept rate or VUs, steady twins last.
    groups: Mapping[str, tuple[Endpoint, ...]]
    notes: str = ""
    report: spec.Report = field(default_factory=spec.Report)
    stacks: spec.KeptStacks = field(default_factory=spec.KeptStacks)

    def rounds_in(self, form: str) -> int:
        """How many passes the form makes over its matrix: the most rounds any of its load
        shapes asks for (bench.load.rounds)."""
        return max((cell.load.rounds for cell in self.cells(form)), default=1)

    def with_workers(self, counts: Sequence[int]) -> Matrix:
        """The matrix with `counts` workers in every form for each variant that takes the
        matrix's worker counts; variants that name their own keep them."""
        chosen = {"workers": dict.fromkeys(FORMS, tuple(counts))}
        variants = (v if v.own_workers else v.model_copy(update=chosen) for v in self.variants)
        return replace(self, variants=tuple(variants))

    def endpoints(self, variant: Variant, form: str) -> tuple[Endpoint, ...]:
        """The endpoints `variant` runs in `form`, in its groups' order."""
        return tuple(e for group in variant.endpoints.get(form, ()) for e in self.groups[group])

    def load(self, form: str, shape: str | None = None) -> Load:
        """The form's default load, or that of the named shape."""
        loads = self.loads if shape is None else self.shapes.get(shape, {})
        if form not in loads:
            table = "load" if shape is None else f"shapes.{shape}"
            raise MatrixError(f"{self.family}: no [{table}.{form}]")
        return loads[form]

    def cells(self, form: str) -> list[Cell]:
        """Every cell of `form`, fewer workers first. Variants take turns endpoint by
        endpoint, so that a drift in the machine's state during the run touches every
        variant alike instead of the ones that happen to run last."""
        keys = dict.fromkeys(e.key for v in self.variants for e in self.endpoints(v, form))
        workers = sorted({w for variant in self.variants for w in variant.workers.get(form, ())})
        settings = self.settings.get(form, {})
        return [
            Cell(
                variant,
                count,
                endpoint,
                self.load(form, endpoint.shape or variant.shape),
                settings,
                endpoint.tools if endpoint.tools is not None else variant.tools.get(form, ()),
            )
            for count in workers
            for key in keys
            for variant in self.variants
            if count in variant.workers.get(form, ())
            for endpoint in self.endpoints(variant, form)
            if endpoint.key == key
        ]


# A load table per form.
Tables = dict[str, LoadTable]


def _loads(tables: Tables, where: str, shape: str = "wrk") -> dict[str, Load]:
    return {form: parse_load(table, f"{where}.{form}", shape) for form, table in tables.items()}


def _swept(item: Endpoint, load: Tables, shapes: dict[str, Tables]) -> list[Endpoint]:
    """The endpoint's cells: one, or one per swept rate or VUs, each with the load shape it
    needs (added to `shapes`): the endpoint's shape (or the matrix's load) with `rate` or
    `vus` set."""
    if not (item.rates or item.vus):
        return [item]
    swept, label = ("rate", "{key} @{value}/s") if item.rates else ("vus", "{key} c{value}")
    base = shapes[item.shape] if item.shape is not None else load
    # The base table's shape unless it names one, as parse_load reads it.
    kind = item.shape or "wrk"
    # rate-100, boom-10, boom-rate-100: one shape per base and value, shared by endpoints.
    prefix = "-".join(part for part in (item.shape, "rate" if item.rates else None) if part)
    cells = []
    for value in item.rates or item.vus:
        name = f"{prefix or 'vus'}-{value}"
        shapes.setdefault(
            name,
            {
                f: t.model_copy(update={"shape": t.shape or kind, swept: value})
                for f, t in base.items()
            },
        )
        key = label.format(key=item.key, value=value)
        cells.append(item.model_copy(update={"key": key, "shape": name}))
    return cells


def _groups(matrix: spec.MatrixSpec, shapes: dict[str, Tables]) -> dict[str, tuple[Endpoint, ...]]:
    """Each endpoint group's cells, its steady endpoints' twins at [shapes.steady]'s rate
    (no extra tools) after the others."""
    rate = spec.steady_rate(matrix.shapes)
    twin = {"shape": STEADY, "tools": ()}
    return {
        name: (
            *(cell for item in items for cell in _swept(item, dict(matrix.load), shapes)),
            *(
                i.model_copy(update={**twin, "key": f"{i.key} @{rate}/s"})
                for i in items
                if i.steady
            ),
        )
        for name, items in matrix.endpoints.items()
    }


def parse_matrix(raw: Mapping[str, Any], notes: str = "") -> Matrix:
    """The matrix of a family's spec table; `notes` is the report's prose (Markdown)."""
    try:
        found = spec.parse_matrix_spec(raw, str(raw.get("family", "matrix")))
        shapes = {name: dict(tables) for name, tables in found.shapes.items()}
        groups = _groups(found, shapes)  # adds the shapes its sweeps need
        matrix = Matrix(
            family=found.family,
            title=found.title or found.family,
            write_up=found.write_up,
            payload=found.payload,
            loads=_loads(dict(found.load), "load"),
            variants=tuple(found.variants.values()),
            ratios=found.ratios,
            goals=tuple(each for goal in found.goals for each in goal.each()),
            shapes={name: _loads(table, f"shapes.{name}", name) for name, table in shapes.items()},
            settings=found.settings,
            groups=groups,
            notes=notes.strip(),
            report=found.report,
            stacks=found.stacks,
        )
        for form in matrix.loads:
            for cell in matrix.cells(form):
                for tool in cell.tools:
                    check_shape(tool, cell.load, f"variants.{cell.variant.name} ({form})")
    except (SpecError, ToolError) as error:  # ToolError: a tool cannot run a cell's shape
        raise MatrixError(str(error)) from error
    return matrix


def load_matrix(project: Project, family: str) -> Matrix:
    """The family's matrix, read from its spec (loadtests/families/<family>.toml)."""
    try:
        table = read_spec(project, family)
    except SpecError as error:
        raise MatrixError(str(error)) from error
    notes = notes_file(project, family)
    return parse_matrix(table, notes.read_text() if notes.is_file() else "")
