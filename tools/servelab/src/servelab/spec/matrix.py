"""A family's benchmark matrix (loadtests/families/<family>.toml): variants x
workers x endpoint groups, the load shapes, the settings of every server, the ratios the
report computes and the goals stated on them.

Tables that differ between the quick and the full form ([settings], [load],
[shapes.<name>]) hold their common keys, and [<table>.quick] / [<table>.full] only what
differs. An endpoint with `rates = [...]` runs once per rate (key `<key> @<rate>/s`), one
with `vus = [...]` once per number of VUs (key `<key> c<vus>`); one with `steady = true`
also runs under [shapes.steady] (key `<key> @<rate>/s`, that shape's one rate, no extra
tools): the cell at a steady rate that CPU ratios read. `rounds = N` in a load table
measures each cell of that shape N times (bench.load.rounds). `tools = ["wrk"]` (or "ab"),
on a variant or at the top for every variant, runs that write-up's own load tool on each
of its cells right after k6; `tools = { full = ["ab"] }` in that form only.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    StrictBool,
    StringConstraints,
    model_validator,
)
from pydantic_core import PydanticCustomError

from servelab.spec.family import Spec, validate

FORMS = ("quick", "full")
# The variable every compose service reads its number of worker processes from.
WORKERS_ENV = "WEB_CONCURRENCY"
STEADY = "steady"
# The write-ups' own load tools (bench.load.tools) a variant may run beside k6.
Tool = Literal["wrk", "ab"]
# The load shapes of loadtests/lib/options.js (bench.load.shape.SHAPES gives their executors).
Shape = Literal["wrk", "hey", "client", "vegeta", "boom", "ab"]
# What a ratio or a goal can name: a figure of bench.measure.summary.Measurement, or the
# server's CPU microseconds per request (cpu_us) or memory (memory_mib), which a cell holds.
Metric = Literal[
    "ok_rps", "rps", "elapsed_s", "error_count", "failed_rate", "avg_ms", "p50_ms", "p75_ms",
    "p90_ms", "p99_ms", "max_ms", "p95_ms", "success_ratio", "dropped", "bad_gateway", "shed",
    "timeouts", "unexpected_non_2xx", "p66_ms", "p80_ms", "p98_ms", "cpu_us", "memory_mib",
]  # fmt: skip
# Costs: less is better. The limit among several denominator variants is then the
# cheapest one, and a goal's `best` value the lowest.
LOWER_IS_BETTER = frozenset({"cpu_us", "memory_mib"})
# Metrics that add up over the cells that share one job (CPU time per request does; a rate
# does not): only these can have a sum as denominator.
ADDITIVE = frozenset({"cpu_us"})
# In a sum's part, the numerator's variant: "empty-{variant}" is the empty app on the same
# server as the numerator.
THE_VARIANT = "{variant}"
# A cell: (variant, workers, endpoint).
Key = tuple[str, int, str]
# The top-level keys of the spec's other parts, which the matrix leaves to their models.
OTHER_PARTS = frozenset(
    {"questions", "question_texts", "drills", "container_drills"}
    | {"faults", "fuzz", "soak", "coldstart", "device"}
)

T = TypeVar("T")


def _invalid(message: str) -> PydanticCustomError:
    """A validation error that says `message` alone."""
    return PydanticCustomError("spec", message)


def _listed(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _by_form(table: Any) -> Any:
    if not isinstance(table, Mapping):
        return table
    common = {key: value for key, value in table.items() if not isinstance(value, Mapping)}
    own = {key: value for key, value in table.items() if isinstance(value, Mapping)}
    return {form: {**common, **own.get(form, {})} for form in (*(FORMS if common else ()), *own)}


Form = Annotated[str, StringConstraints(pattern="^(quick|full)$")]
# An environment variable's value; a number is written as its text.
Text = Annotated[str, BeforeValidator(lambda v: str(v) if isinstance(v, int | float) else v)]
Names = Annotated[tuple[str, ...], BeforeValidator(_listed)]
Tools = Annotated[
    tuple[Tool, ...], BeforeValidator(_listed), AfterValidator(lambda t: tuple(dict.fromkeys(t)))
]
# A value per form, or one for every form.
EveryForm = Annotated[
    Mapping[Form, T],
    BeforeValidator(lambda v: v if isinstance(v, Mapping) else dict.fromkeys(FORMS, v)),
]
# A table per form: its common keys, then the form's own (without common keys only the
# forms named have one).
ByForm = Annotated[Mapping[Form, T], BeforeValidator(_by_form)]


class LoadTable(Spec):
    """How k6 drives a cell (bench.load.shape.parse_load reads it)."""

    shape: Shape | None = None
    vus: PositiveInt | None = None
    vus_per_rate: PositiveFloat | None = None
    min_vus: PositiveInt | None = None
    max_vus: PositiveInt | None = None
    rate: PositiveInt | None = None
    duration_s: NonNegativeFloat | None = None
    warmup_s: NonNegativeFloat | None = None
    iterations: PositiveInt | None = None
    max_duration_s: PositiveFloat | None = None
    rounds: Annotated[int, Field(strict=True, ge=1)] | None = None


Loads = ByForm[LoadTable]


def steady_rate(shapes: Mapping[str, Loads]) -> int | None:
    """[shapes.steady]'s one rate, if it has one."""
    rates = {table.rate for table in shapes.get(STEADY, {}).values()}
    return rates.pop() if len(rates) == 1 and None not in rates else None


class Endpoint(Spec):
    """A k6 `script` run with `env`, as `key` in the report; `tools` replaces its variant's."""

    key: str
    script: str
    env: Mapping[str, Text] = {}
    shape: str | None = None
    rates: tuple[PositiveInt, ...] = ()
    vus: tuple[PositiveInt, ...] = ()
    steady: StrictBool = False
    tools: Tools | None = None

    @model_validator(mode="after")
    def _one_sweep(self) -> Self:
        if self.rates and self.vus:
            raise _invalid(f"{self.key!r} sweeps `rates` and `vus`; one at a time")
        if self.steady and (self.rates or self.vus or self.shape):
            raise _invalid(f"{self.key!r} is `steady`: it cannot also sweep or name a shape")
        return self


class Variant(Spec):
    """A compose `service` of `profile`, run with `env` at each number of `workers` on the
    endpoint groups named per form. `workers`, `pin` (server and k6 on disjoint CPUs) and
    `tools` are the matrix's unless it names its own (`own_workers`: `--workers` leaves
    them alone). `scale_env` carries the number (REPLICAS: copies of a one-worker server)."""

    name: str
    profile: str
    service: str
    # The write-up's server whose figures go beside this variant's.
    write_up: str | None = None
    endpoints: EveryForm[Names]
    workers: Mapping[Form, tuple[PositiveInt, ...]]
    own_workers: bool
    env: Mapping[str, Text] = {}
    shape: str | None = None
    pin: StrictBool = True
    tools: EveryForm[Tools] = Field(default_factory=dict)
    scale_env: str = WORKERS_ENV


class Part(Spec):
    """One term of a sum denominator: a cell of `variant` (which may name the numerator's,
    THE_VARIANT) at `endpoint`, with `workers` (None: the numerator's)."""

    variant: str
    endpoint: str
    workers: PositiveInt | None = None

    def key(self, variant: str, workers: int) -> Key:
        return (self.variant.replace(THE_VARIANT, variant), self.workers or workers, self.endpoint)


class Side(Spec):
    """One side of a ratio: which variants (None: the other side's; several in a
    denominator: the best of them, the limit) and which endpoint (None: every endpoint the
    two sides share, combined as a geometric mean). A numerator may name several
    `endpoints` instead, each getting a value of its own. A denominator may fix its number
    of `workers` (None: the numerator's), or name a `setting` or another `metric` of the
    numerator's cell instead of a cell, or be the `sum` of several cells' metric.

    Which shared endpoints the mean combines, as glob patterns (fnmatch, case-sensitive; a
    key without `*`, `?` or `[` matches itself alone): those matching one of `only` (every
    one where it is empty) but none of `skip`. "* @100/s" picks the cells at a steady 100
    requests/s, whose CPU ratios read; an rps ratio skips them, as their requests/s are
    the load's."""

    variants: tuple[str, ...] | None = None
    endpoint: str | None = None
    setting: str | None = None
    workers: PositiveInt | None = None
    metric: Metric | None = None
    endpoints: tuple[str, ...] = ()
    sum: tuple[Part, ...] = ()
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _sum_alone(self) -> Self:
        if self.sum and self.model_fields_set - {"sum"}:
            raise _invalid("a `sum` names its cells in its parts, nothing beside it")
        return self

    def combines(self, endpoint: str) -> bool:
        """Whether a mean over shared endpoints takes `endpoint` (`only` and `skip`)."""
        wanted = not self.only or any(fnmatchcase(endpoint, glob) for glob in self.only)
        return wanted and not any(fnmatchcase(endpoint, glob) for glob in self.skip)

    @property
    def tops(self) -> tuple[str | None, ...]:
        """The numerator's endpoints, each its own value (None: every shared endpoint)."""
        return self.endpoints or (self.endpoint,)


class Ratio(Spec):
    """`metric` of the numerator's cells over the denominator's (none: the metric itself);
    `table = false` leaves it out of the report's ratio table (only goals read it)."""

    name: str
    about: str = ""
    metric: Metric = "ok_rps"
    table: StrictBool = True
    numerator: Side
    denominator: Side | None = None

    @model_validator(mode="after")
    def _coherent(self) -> Self:
        top, bottom = self.numerator, self.denominator or Side()
        named = top.endpoint or top.endpoints or bottom.endpoint
        if top.sum or bottom.endpoints:
            raise _invalid(f"{self.name!r}: only a denominator sums, a numerator lists endpoints")
        if top.endpoint and top.endpoints:
            raise _invalid(f"{self.name!r}: numerator names `endpoint` or `endpoints`")
        if bottom.skip or bottom.only or ((top.skip or top.only) and named):
            raise _invalid(f"{self.name!r}: only a numerator that names no endpoint picks some")
        if bottom.sum and self.metric not in ADDITIVE:
            raise _invalid(f"{self.name!r}: {self.metric} does not add up, unlike cpu_us")
        if bottom.sum and not (top.endpoint or top.endpoints):
            raise _invalid(f"{self.name!r}: a ratio over a sum names its numerator's endpoint")
        if any(THE_VARIANT in p.variant for p in bottom.sum) and not top.variants:
            raise _invalid(f"{self.name!r}: a part naming {THE_VARIANT} needs numerator variants")
        return self

    def variants(self) -> set[str]:
        """Every variant it names, a sum part's THE_VARIANT once per numerator variant."""
        top, bottom = self.numerator.variants or (), self.denominator or Side()
        each = {p.variant: top if THE_VARIANT in p.variant else ("",) for p in bottom.sum}
        parts = {name.replace(THE_VARIANT, v) for name, vs in each.items() for v in vs}
        return {*top, *(bottom.variants or ()), *parts}

    @property
    def plain(self) -> bool:
        """No denominator: the metric itself, one value per cell."""
        return self.denominator is None

    @property
    def lower_is_better(self) -> bool:
        return self.metric in LOWER_IS_BETTER

    @property
    def per_cell(self) -> bool:
        """The metric itself or over the cell's own setting or metric: a value per cell."""
        bottom = self.denominator
        return bottom is None or bottom.setting is not None or bottom.metric is not None


class Goal(Spec):
    """`ratio`'s values (of the `variants`, `endpoint` and `workers` named, by default all;
    or only the best, per number of workers, with `best`: the highest, the lowest of a
    cost) lie within `min` and `max`; `endpoints` is one goal per endpoint (Goal.each)."""

    goal: str
    ratio: str
    minimum: float | None = Field(None, alias="min")
    maximum: float | None = Field(None, alias="max")
    variants: tuple[str, ...] | None = None
    endpoint: str | None = None
    endpoints: tuple[str, ...] = ()
    rate: PositiveInt | None = None
    workers: tuple[PositiveInt, ...] | None = None
    best: StrictBool = False

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        if self.minimum is None and self.maximum is None:
            raise _invalid(f"{self.goal!r} needs `min`, `max` or both")
        return self

    def each(self) -> tuple[Goal, ...]:
        """The goal, or one per endpoint it lists, named `<goal>: <endpoint>`, on the
        endpoint's `@<rate>/s` cells where it names a `rate`."""
        rate = f" @{self.rate}/s" if self.rate else ""
        update = {"endpoints": (), "rate": None}
        return tuple(
            self.model_copy(update={**update, "goal": f"{self.goal}: {e}", "endpoint": e + rate})
            for e in self.endpoints
        ) or (self,)


class Payload(Spec):
    """The body the scripts send, also written as <volume>/<name> for nginx to serve."""

    size: PositiveInt
    volume: str
    name: str


class KeptStacks(Spec):
    """Keep each variant's stack up across its cells, emptying the `clear` volumes after
    every cell (bench.plan.stacks)."""

    keep: StrictBool = False
    clear: tuple[str, ...] = ()


class Report(Spec):
    # The per-server tables' columns (bench.report.markdown.COLUMNS) instead of the default.
    columns: tuple[str, ...] = ()
    # The endpoint whose requests/s the write-up drew against workers: that chart instead
    # of one per table of the write-up (bench.report.charts.workers_chart).
    worker_curve: str | None = None
    # A stage profile beside the results (a file a family's profile command writes, e.g.
    # `health-code-profile --out docs/results/health-code.profile.json`): its table in the
    # report (bench.report.stages).
    profile: str | None = None


class MatrixSpec(Spec):
    family: str
    title: str | None = None
    # The write-up's figures: loadtests/reference/<family>.toml.
    write_up: str
    pin: StrictBool = True
    workers: Mapping[Form, tuple[PositiveInt, ...]] | None = None
    tools: EveryForm[Tools] = Field(default_factory=dict)
    settings: ByForm[Mapping[str, Text]] = Field(default_factory=dict)
    payload: Payload | None = None
    stacks: KeptStacks = KeptStacks()
    report: Report = Report()
    load: Loads
    shapes: Mapping[str, Loads] = {}
    endpoints: dict[str, tuple[Endpoint, ...]]
    variants: dict[str, Variant]
    ratios: tuple[Ratio, ...] = ()
    goals: tuple[Goal, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _inherited(cls, raw: Any) -> Any:
        """Each variant named, with the matrix's `workers`, `pin` and `tools` by default."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("variants"), Mapping):
            return raw
        top = {key: raw[key] for key in ("workers", "pin", "tools") if key in raw}
        variants = {
            name: {**top, **v, "name": name, "own_workers": "workers" in v}
            if isinstance(v, Mapping)
            else v
            for name, v in raw["variants"].items()
        }
        return {**raw, "variants": variants}

    @model_validator(mode="after")
    def _names_exist(self) -> Self:
        """Every shape, endpoint group, variant and ratio named is the matrix's."""
        for endpoint in (e for group in self.endpoints.values() for e in group):
            if endpoint.shape is not None and endpoint.shape not in self.shapes:
                raise _invalid(f"endpoints: {endpoint.key!r}: no [shapes.{endpoint.shape}]")
            if endpoint.steady and steady_rate(self.shapes) is None:
                raise _invalid(
                    f"endpoints: {endpoint.key!r} is `steady`: [shapes.steady] needs one `rate`"
                )
        for name, variant in self.variants.items():
            groups = {g for names in variant.endpoints.values() for g in names}
            if missing := sorted(groups - set(self.endpoints)):
                raise _invalid(f"variants: {name}: no endpoint group {missing[0]!r}")
            if variant.shape is not None and variant.shape not in self.shapes:
                raise _invalid(f"variants: {name}: no [shapes.{variant.shape}]")
        ratios = {ratio.name: ratio for ratio in self.ratios}
        for goal in self.goals:
            if goal.ratio not in ratios:
                raise _invalid(f"goals: {goal.goal!r} names no ratio {goal.ratio!r}")
        named = [(f"ratios: {r.name!r}", r.variants()) for r in self.ratios]
        for what, variants in named + [
            (f"goals: {g.goal!r}", set(g.variants or ())) for g in self.goals
        ]:
            if unknown := variants - set(self.variants):
                raise _invalid(f"{what} names unknown variants {sorted(unknown)}")
        return self


def parse_matrix_spec(table: Mapping[str, Any], where: str) -> MatrixSpec:
    """The matrix of a family's joined spec table (the other parts' keys left out)."""
    bench = {key: value for key, value in table.items() if key not in OTHER_PARTS}
    return validate(MatrixSpec, bench, where)
