"""A benchmark matrix (loadtests/matrix/<family>.toml): variants x workers x endpoints,
each cell with its load shape and the settings its server starts with.

Tables that differ between the quick and the full form ([settings], [load],
[shapes.<name>]) hold their common keys, and [<table>.quick] / [<table>.full] only what
differs. An endpoint with `rates = [...]` runs once per rate (key `<key> @<rate>/s`), one
with `vus = [...]` once per number of VUs (key `<key> c<vus>`): the reader writes out
those cells, and the load shape each needs, so the file does not. One with `steady = true`
also runs under [shapes.steady] (key `<key> @<rate>/s`, that shape's rate, no extra tools),
after the set's other cells: the cell at a steady rate that CPU ratios read.

`rounds = N` in a load table ([load.<form>], [shapes.<name>.<form>]) measures each cell of
that shape N times, in passes over the matrix one after another (bench.load.rounds): the steady
cells that CPU ratios read can run more, shorter rounds than the rest.

`tools = ["wrk"]` (or "ab"), on a variant or at the top of the file for every variant, runs
that write-up's own load tool on each of the variant's cells right after k6 (bench.load.tools);
`tools = { full = ["ab"] }` runs it in that form only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from servelab.bench.errors import BenchError
from servelab.bench.load.shape import Load, LoadError, parse_load
from servelab.bench.load.tools import TOOLS, ToolError, check_shape
from servelab.bench.measure.summary import METRICS
from servelab.bench.report.ratios import ADDITIVE, THE_VARIANT, GoalSpec, Part, RatioSpec, Side
from servelab.project import matrix_dir, notes_file
from servelab.tables import read_named, require

FORMS = ("quick", "full")
# The variable every compose service reads its number of worker processes from.
WORKERS_ENV = "WEB_CONCURRENCY"


class MatrixError(BenchError):
    """The matrix file is missing something or names something that does not exist."""


@dataclass(frozen=True)
class Endpoint:
    key: str
    script: str
    env: Mapping[str, str]
    shape: str | None = None
    # The tools its cells run after k6 (`tools = []`: none), instead of the variant's.
    tools: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Variant:
    name: str
    profile: str
    service: str
    write_up: str | None
    endpoints: Mapping[str, tuple[Endpoint, ...]]
    workers: Mapping[str, tuple[int, ...]]
    env: Mapping[str, str]
    shape: str | None = None
    # Server and k6 on disjoint CPUs (cpus.plan); off where the server mostly waits and
    # k6's burst needs every CPU.
    pin: bool = True
    # The variant names its own worker counts (e.g. a server that runs one process
    # whatever it is told): `--workers` leaves them alone.
    own_workers: bool = False
    # Load tools run beside k6 on each of its cells (bench.load.tools.TOOLS), per form.
    tools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The variable that carries the cell's number of processes: WEB_CONCURRENCY (workers of
    # one server), or REPLICAS (copies of a one-worker server, compose's deploy.replicas).
    scale_env: str = WORKERS_ENV

    def endpoints_for(self, form: str) -> tuple[Endpoint, ...]:
        return self.endpoints.get(form, ())


@dataclass(frozen=True)
class Payload:
    size: int
    volume: str
    name: str


@dataclass(frozen=True)
class StackPolicy:
    """`[stacks]`: keep each variant's stack up across its cells (bench.plan.stacks), emptying
    the `clear` volumes after every cell."""

    keep: bool = False
    clear: tuple[str, ...] = ()


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
        return {
            **self.settings,
            **self.variant.env,
            self.variant.scale_env: str(self.workers),
        }


@dataclass(frozen=True)
class Matrix:
    family: str
    title: str
    write_up: str
    payload: Payload | None
    loads: Mapping[str, Load]
    variants: tuple[Variant, ...]
    ratios: tuple[RatioSpec, ...]
    goals: tuple[GoalSpec, ...]
    shapes: Mapping[str, Mapping[str, Load]]
    settings: Mapping[str, Mapping[str, str]]
    notes: str = ""
    # `[report] columns`: the per-server tables' columns (report.COLUMNS) instead of the
    # default set.
    columns: tuple[str, ...] = ()
    stacks: StackPolicy = StackPolicy()

    def rounds_in(self, form: str) -> int:
        """How many passes the form makes over its matrix: the most rounds any of its load
        shapes asks for (bench.load.rounds)."""
        return max((cell.load.rounds for cell in self.cells(form)), default=1)

    def with_workers(self, counts: Sequence[int]) -> Matrix:
        """The matrix with `counts` workers in every form for each variant that takes the
        matrix's worker counts; variants that name their own keep them."""
        chosen = tuple(counts)
        return replace(
            self,
            variants=tuple(
                variant
                if variant.own_workers
                else replace(variant, workers=dict.fromkeys(FORMS, chosen))
                for variant in self.variants
            ),
        )

    def load(self, form: str, shape: str | None = None) -> Load:
        """The form's default load, or that of the named shape."""
        if shape is None:
            if form not in self.loads:
                raise MatrixError(f"{self.family}: no [load.{form}]")
            return self.loads[form]
        if form not in self.shapes.get(shape, {}):
            raise MatrixError(f"{self.family}: no [shapes.{shape}.{form}]")
        return self.shapes[shape][form]

    def cells(self, form: str) -> list[Cell]:
        """Every cell of `form`, fewer workers first. Variants take turns endpoint by
        endpoint, so that a drift in the machine's state during the run touches every
        variant alike instead of the ones that happen to run last."""
        keys = dict.fromkeys(
            e.key for variant in self.variants for e in variant.endpoints_for(form)
        )
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
            for endpoint in variant.endpoints_for(form)
            if endpoint.key == key
        ]


def _require(table: Mapping[str, Any], key: str, where: str) -> Any:
    return require(table, key, where, MatrixError)


def _strings(table: Mapping[str, Any]) -> dict[str, str]:
    return {str(key): str(value) for key, value in table.items()}


# A table per form, as [load] and [shapes.<name>] give them once merged.
Tables = dict[str, dict[str, Any]]


def _by_form(raw: Mapping[str, Any], where: str) -> Tables:
    """Each form's table: the common keys, then the form's own ([<where>.<form>]). Without
    common keys only the forms named have one."""
    common = {key: value for key, value in raw.items() if not isinstance(value, Mapping)}
    own = {key: value for key, value in raw.items() if isinstance(value, Mapping)}
    unknown = set(own) - set(FORMS)
    if unknown:
        raise MatrixError(f"{where}: unknown form(s) {sorted(unknown)}")
    named = FORMS if common else tuple(form for form in FORMS if form in own)
    return {form: {**common, **own.get(form, {})} for form in named}


def _swept(
    item: Mapping[str, Any], where: str, load: Tables, shapes: dict[str, Tables]
) -> list[tuple[str, str | None]]:
    """The (key, shape) of each cell an endpoint runs: one, or one per swept value. A sweep
    adds the load shape each value needs to `shapes`: its endpoint's shape (default: the
    matrix's load) with `rate` or `vus` set."""
    key = _require(item, "key", where)
    shape = item.get("shape")
    sweeps = [name for name in ("rates", "vus") if name in item]
    if not sweeps:
        return [(key, shape)]
    if len(sweeps) > 1:
        raise MatrixError(f"{where}: {key!r} sweeps `rates` and `vus`; one at a time")
    if shape is not None and shape not in shapes:
        raise MatrixError(f"{where}: no [shapes.{shape}] to sweep")
    base = shapes[shape] if shape is not None else load
    kind = shape or "wrk"  # the base table's shape unless it names one, as parse_load reads it
    field, label = (
        ("rate", "{key} @{value}/s") if sweeps[0] == "rates" else ("vus", "{key} c{value}")
    )
    cells: list[tuple[str, str | None]] = []
    for value in item[sweeps[0]]:
        # rate-100, boom-10, boom-rate-100: one shape per base and value, shared by endpoints
        name = "-".join(part for part in (shape, "rate" if field == "rate" else None) if part)
        name = f"{name or 'vus'}-{value}"
        shapes.setdefault(
            name, {form: {"shape": kind, **table, field: value} for form, table in base.items()}
        )
        cells.append((label.format(key=key, value=value), name))
    return cells


STEADY = "steady"


def _is_steady(item: Mapping[str, Any], where: str) -> bool:
    steady = item.get("steady", False)
    if not isinstance(steady, bool):
        raise MatrixError(f"{where}: `steady` is true or false, not {steady!r}")
    return steady


def _steady_key(item: Mapping[str, Any], where: str, shapes: Mapping[str, Tables]) -> str:
    """The key of an endpoint's twin at [shapes.steady]'s rate (`steady = true`)."""
    key = _require(item, "key", where)
    if any(name in item for name in ("rates", "vus", "shape")):
        raise MatrixError(f"{where}: {key!r} is `steady`: it cannot also sweep or name a shape")
    rates = {table.get("rate") for table in shapes.get(STEADY, {}).values()}
    if len(rates) != 1 or None in rates:
        raise MatrixError(f"{where}: {key!r} is `steady`: [shapes.steady] needs one `rate`")
    return f"{key} @{rates.pop()}/s"


def _endpoints(
    raw: Mapping[str, Any], load: Tables, shapes: dict[str, Tables]
) -> dict[str, tuple[Endpoint, ...]]:
    sets = {}
    for name, items in raw.items():
        where = f"endpoints.{name}"
        cells: list[Endpoint] = []
        steady: list[Endpoint] = []
        for item in items:
            endpoint = Endpoint(
                key=_require(item, "key", where),
                script=_require(item, "script", where),
                env=_strings(item.get("env", {})),
                tools=_tool_names(item["tools"], where) if "tools" in item else None,
            )
            cells += [
                replace(endpoint, key=key, shape=shape)
                for key, shape in _swept(item, where, load, shapes)
            ]
            if _is_steady(item, where):
                key = _steady_key(item, where, shapes)
                steady.append(replace(endpoint, key=key, shape=STEADY, tools=()))
        sets[name] = (*cells, *steady)
    return sets


def _variant_endpoints(
    raw: str | Sequence[str] | Mapping[str, str | Sequence[str]],
    sets: Mapping[str, tuple[Endpoint, ...]],
    where: str,
) -> dict[str, tuple[Endpoint, ...]]:
    """`endpoints`: a set name, a list of set names, or a table of those per form."""
    per_form = raw if isinstance(raw, Mapping) else dict.fromkeys(FORMS, raw)
    unknown = set(per_form) - set(FORMS)
    if unknown:
        raise MatrixError(f"{where}: endpoints for unknown form(s) {sorted(unknown)}")
    chosen = {}
    for form, names in per_form.items():
        listed = [names] if isinstance(names, str) else list(names)
        missing = [name for name in listed if name not in sets]
        if missing:
            raise MatrixError(f"{where}: no endpoint set {missing[0]!r}")
        chosen[form] = tuple(endpoint for name in listed for endpoint in sets[name])
    return chosen


def _tool_names(raw: Any, where: str) -> tuple[str, ...]:
    names = [raw] if isinstance(raw, str) else list(raw)
    unknown = [name for name in names if name not in TOOLS]
    if unknown:
        raise MatrixError(f"{where}: unknown tool {unknown[0]!r} (known: {', '.join(TOOLS)})")
    return tuple(dict.fromkeys(names))


def _tools(raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    """The tools of each form: a list is every form's, a table names them per form."""
    if not isinstance(raw, Mapping):
        return dict.fromkeys(FORMS, _tool_names(raw, where))
    unknown = set(raw) - set(FORMS)
    if unknown:
        raise MatrixError(f"{where}: tools for unknown form(s) {sorted(unknown)}")
    return {form: _tool_names(raw.get(form, ()), where) for form in FORMS}


def _variant(
    name: str,
    raw: Mapping[str, Any],
    sets: Mapping[str, tuple[Endpoint, ...]],
    pin: bool,
    workers: Mapping[str, Sequence[int]] | None,
    tools: Mapping[str, tuple[str, ...]],
) -> Variant:
    """A variant; `workers`, `pin` and `tools` are the matrix's, unless it names its own."""
    where = f"variants.{name}"
    own_workers = "workers" in raw
    workers = raw.get("workers", workers)
    if workers is None:
        raise MatrixError(f"{where}: missing `workers` (and the matrix names none)")
    unknown = set(workers) - set(FORMS)
    if unknown:
        raise MatrixError(f"{where}: workers for unknown form(s) {sorted(unknown)}")
    return Variant(
        name=name,
        profile=_require(raw, "profile", where),
        service=_require(raw, "service", where),
        write_up=raw.get("write_up"),
        endpoints=_variant_endpoints(_require(raw, "endpoints", where), sets, where),
        workers={form: tuple(int(w) for w in values) for form, values in workers.items()},
        env=_strings(raw.get("env", {})),
        shape=raw.get("shape"),
        pin=bool(raw.get("pin", pin)),
        own_workers=own_workers,
        tools=_tools(raw["tools"], where) if "tools" in raw else dict(tools),
        scale_env=str(raw.get("scale_env", WORKERS_ENV)),
    )


def _part(raw: Mapping[str, Any], where: str) -> Part:
    workers = raw.get("workers")
    return Part(
        variant=_require(raw, "variant", where),
        endpoint=_require(raw, "endpoint", where),
        workers=int(workers) if workers is not None else None,
    )


def _side(raw: Mapping[str, Any], where: str) -> Side:
    """A ratio's side; a denominator `sum = [{variant, endpoint, workers}, ...]` is the
    sum of those cells' metric ("{variant}" in a part: the numerator's variant)."""
    variants = raw.get("variants")
    workers = raw.get("workers")
    metric = raw.get("metric")
    if metric is not None and metric not in METRICS:
        raise MatrixError(f"{where}: unknown metric {metric!r} (known: {', '.join(METRICS)})")
    parts = tuple(_part(part, f"{where}.sum") for part in raw.get("sum", ()))
    if parts and set(raw) - {"sum"}:
        raise MatrixError(f"{where}: a `sum` names its cells in its parts, nothing beside it")
    return Side(
        variants=tuple(variants) if variants else None,
        endpoint=raw.get("endpoint"),
        setting=raw.get("setting"),
        workers=int(workers) if workers is not None else None,
        metric=metric,
        endpoints=tuple(raw.get("endpoints", ())),
        sum=parts,
        only=tuple(raw.get("only", ())),
        skip=tuple(raw.get("skip", ())),
    )


def _ratio(item: Mapping[str, Any]) -> RatioSpec:
    name = _require(item, "name", "ratios")
    where = f"ratio {name!r}"
    metric = item.get("metric", "ok_rps")
    if metric not in METRICS:
        known = ", ".join(METRICS)
        raise MatrixError(f"{where}: unknown metric {metric!r} (known: {known})")
    raw_denominator = item.get("denominator")
    numerator = _side(_require(item, "numerator", "ratios"), f"{where} numerator")
    denominator = (
        _side(raw_denominator, f"{where} denominator") if raw_denominator is not None else None
    )
    if numerator.sum or (denominator is not None and denominator.endpoints):
        raise MatrixError(f"{where}: only a denominator sums, only a numerator lists endpoints")
    if numerator.endpoint is not None and numerator.endpoints:
        raise MatrixError(f"{where}: numerator names `endpoint` or `endpoints`, not both")
    named = numerator.tops[0] or (denominator is not None and denominator.endpoint)
    filters = numerator.skip or numerator.only
    if (denominator is not None and (denominator.skip or denominator.only)) or (filters and named):
        raise MatrixError(
            f"{where}: only a numerator that names no endpoint picks some (`only`, `skip`)"
        )
    if denominator is not None and denominator.sum:
        if metric not in ADDITIVE:
            raise MatrixError(
                f"{where}: {metric} does not add up; a sum needs one of {sorted(ADDITIVE)}"
            )
        if not numerator.tops[0]:
            raise MatrixError(f"{where}: a ratio over a sum names its numerator's endpoint(s)")
    return RatioSpec(
        name=name,
        about=item.get("about", ""),
        numerator=numerator,
        denominator=denominator,
        metric=metric,
        shown=bool(item.get("table", True)),
    )


def _each_goal(item: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A goal with `endpoints` is one goal per endpoint, named `<goal>: <endpoint>`, on the
    cells `<endpoint> @<rate>/s` when it names a `rate` (a rate sweep's keys)."""
    if "endpoints" not in item:
        return [item]
    goal = _require(item, "goal", "goals")
    common = {key: value for key, value in item.items() if key not in ("endpoints", "rate")}
    return [
        {
            **common,
            "goal": f"{goal}: {endpoint}",
            "endpoint": f"{endpoint} @{item['rate']}/s" if "rate" in item else endpoint,
        }
        for endpoint in item["endpoints"]
    ]


def _goal(item: Mapping[str, Any]) -> GoalSpec:
    goal = _require(item, "goal", "goals")
    if "min" not in item and "max" not in item:
        raise MatrixError(f"goal {goal!r}: needs `min`, `max` or both")
    variants = item.get("variants")
    workers = item.get("workers")
    return GoalSpec(
        goal=goal,
        ratio=_require(item, "ratio", "goals"),
        minimum=float(item["min"]) if "min" in item else None,
        maximum=float(item["max"]) if "max" in item else None,
        variants=tuple(variants) if variants else None,
        endpoint=item.get("endpoint"),
        workers=tuple(int(w) for w in workers) if workers else None,
        best=bool(item.get("best", False)),
    )


def _check_names(
    ratios: Sequence[RatioSpec], goals: Sequence[GoalSpec], variants: set[str]
) -> None:
    names = {ratio.name for ratio in ratios}
    for goal in goals:
        if goal.ratio not in names:
            raise MatrixError(f"goal {goal.goal!r} names no ratio {goal.ratio!r}")
        unknown = set(goal.variants or ()) - variants
        if unknown:
            raise MatrixError(f"goal {goal.goal!r} names unknown variants {sorted(unknown)}")
    for ratio in ratios:
        named = {*(ratio.numerator.variants or ())}
        for side in (ratio.numerator, ratio.denominator or Side()):
            named |= {*(side.variants or ())}
            named |= {*_part_variants(ratio, side)}
        unknown = named - variants
        if unknown:
            raise MatrixError(f"ratio {ratio.name!r} names unknown variants {sorted(unknown)}")


def _part_variants(ratio: RatioSpec, side: Side) -> list[str]:
    """The variants a sum's parts name, "{variant}" written out for each numerator one."""
    names = []
    for part in side.sum:
        if THE_VARIANT not in part.variant:
            names.append(part.variant)
            continue
        if not ratio.numerator.variants:
            raise MatrixError(
                f"ratio {ratio.name!r}: a part naming {THE_VARIANT} needs the numerator's variants"
            )
        names += [part.key(variant, 0)[0] for variant in ratio.numerator.variants]
    return names


def _loads(raw: Tables, where: str, shape: str = "wrk") -> dict[str, Load]:
    try:
        return {form: parse_load(table, f"{where}.{form}", shape) for form, table in raw.items()}
    except LoadError as error:
        raise MatrixError(str(error)) from error


def _payload(raw: Mapping[str, Any] | None) -> Payload | None:
    if raw is None:
        return None
    return Payload(
        size=int(_require(raw, "size", "payload")),
        volume=_require(raw, "volume", "payload"),
        name=_require(raw, "name", "payload"),
    )


def _stack_policy(raw: Mapping[str, Any]) -> StackPolicy:
    unknown = set(raw) - {"keep", "clear"}
    if unknown:
        raise MatrixError(f"[stacks]: unknown keys {sorted(unknown)} (keep, clear)")
    return StackPolicy(keep=bool(raw.get("keep", False)), clear=tuple(raw.get("clear", ())))


def _no_rounds(raw: Mapping[str, Any], family: str) -> None:
    if "rounds" in raw:
        raise MatrixError(
            f"{family}: `rounds` belongs in a load table ([load.quick] rounds = 3, or a"
            " [shapes.<name>.<form>] table), so that each shape runs its own number"
        )


def parse_matrix(raw: Mapping[str, Any], notes: str = "") -> Matrix:
    """The matrix from its TOML table; `notes` is the report's prose (Markdown)."""
    family = _require(raw, "family", "matrix")
    _no_rounds(raw, family)
    load = _by_form(_require(raw, "load", family), "load")
    shapes = {
        name: _by_form(table, f"shapes.{name}") for name, table in raw.get("shapes", {}).items()
    }
    sets = _endpoints(_require(raw, "endpoints", family), load, shapes)
    pin = bool(raw.get("pin", True))
    variants = tuple(
        _variant(name, table, sets, pin, raw.get("workers"), _tools(raw.get("tools", ()), family))
        for name, table in _require(raw, "variants", family).items()
    )
    ratios = tuple(_ratio(item) for item in raw.get("ratios", []))
    goals = tuple(_goal(each) for item in raw.get("goals", []) for each in _each_goal(item))
    _check_names(ratios, goals, {variant.name for variant in variants})
    matrix = Matrix(
        family=family,
        title=raw.get("title", family),
        write_up=_require(raw, "write_up", family),
        payload=_payload(raw.get("payload")),
        loads=_loads(load, "load"),
        variants=variants,
        ratios=ratios,
        goals=goals,
        shapes={name: _loads(tables, f"shapes.{name}", name) for name, tables in shapes.items()},
        settings={
            form: _strings(table)
            for form, table in _by_form(raw.get("settings", {}), "settings").items()
        },
        notes=notes.strip(),
        columns=tuple(raw.get("report", {}).get("columns", ())),
        stacks=_stack_policy(raw.get("stacks", {})),
    )
    for form in matrix.loads:
        for cell in matrix.cells(form):
            for tool in cell.tools:
                try:
                    check_shape(tool, cell.load, f"variants.{cell.variant.name} ({form})")
                except ToolError as error:
                    raise MatrixError(str(error)) from error
    return matrix


def load_matrix(project_dir: Path, family: str) -> Matrix:
    raw = read_named(matrix_dir(project_dir), family, "benchmark family", MatrixError)
    notes = notes_file(project_dir, family)
    return parse_matrix(raw, notes.read_text() if notes.is_file() else "")
