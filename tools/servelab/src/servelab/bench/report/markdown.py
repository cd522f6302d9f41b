"""A benchmark run as Markdown: the answers to the write-up's questions, machine and
options, goals, ratios, per-server tables beside the write-up's figures, and the exact
commands."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.errors import BenchError
from servelab.bench.findings.answer import Answer
from servelab.bench.findings.verdict import answer_run
from servelab.bench.load.tools import ToolResult
from servelab.bench.measure.summary import CPU_US, ERROR_KINDS, MEMORY_MIB, Measurement
from servelab.bench.plan.matrix import Matrix
from servelab.bench.report.ratios import (
    GoalResult,
    RatioValue,
    client_bound,
    goal_results,
    ratio_values,
    run_ratio_values,
)
from servelab.bench.report.results import BenchRun, CellResult
from servelab.bench.report.writeup import Figure, WriteUp
from servelab.markdown import table
from servelab.project import Project
from servelab.spec.matrix import Goal, Ratio

_DASH = "—"
# Where a figure would round onto the bound it is judged by, up to this many more decimals.
EXTRA_DIGITS = 2


def apart(value: float, bound: float | None, digits: int, *, percent: bool = False) -> str:
    """`value` with `digits` decimals, or up to EXTRA_DIGITS more where those would round it
    onto `bound`: a ratio of 1.104 judged against ≤ 1.1 reads 1.104, not 1.10, beside "not
    met". `percent`: as a signed percentage (0.104 -> +10.4%)."""

    def shown(figure: float, places: int) -> str:
        return f"{figure:+.{places}%}" if percent else f"{figure:.{places}f}"

    for places in range(digits, digits + EXTRA_DIGITS):
        if bound is None or value == bound or shown(value, places) != shown(bound, places):
            return shown(value, places)
    return shown(value, digits + EXTRA_DIGITS)


def _fixed(value: float | None, digits: int) -> str:
    return _DASH if value is None else f"{value:.{digits}f}"


def workers(count: int) -> str:
    return f"{count} worker" + ("" if count == 1 else "s")


_WHOLE_UNITS = {CPU_US: "µs", MEMORY_MIB: "MiB"}
_UNITS = {"ok_rps": "requests/s", "rps": "requests/s", "elapsed_s": "s"}


def _unit(metric: str) -> str | None:
    if metric in _WHOLE_UNITS:
        return _WHOLE_UNITS[metric]
    return "ms" if metric.endswith("_ms") else _UNITS.get(metric)


def _plain(metric: str, value: float) -> str:
    """A plain metric with its unit: CPU and memory in whole units, times and rates to three
    figures or so; counts and fractions as they are (a success ratio of 0.9999 is not
    rounded up to the 1 a goal asks for)."""
    unit = _unit(metric)
    if unit is None:
        return f"{value:g}"
    if metric in _WHOLE_UNITS or abs(value) >= 100:
        return f"{value:.0f} {unit}"
    return f"{value:.{1 if abs(value) >= 10 else 2}f} {unit}"


def _amount(spec: Ratio | None, value: float, bound: float | None = None) -> str:
    """A ratio as `1.23×`, with the decimals that tell it from `bound` where it is judged by
    one (`apart`); a plain metric with its unit (`_plain`)."""
    if spec is not None and spec.plain:
        return _plain(spec.metric, value)
    return f"{apart(value, bound, 2)}×"


def _section(title: str, *intro: str) -> list[str]:
    """A section's heading, then each paragraph of its introduction."""
    return [f"## {title}", "", *(line for paragraph in intro for line in (paragraph, ""))]


def _machine(run: BenchRun, write_up: WriteUp) -> list[str]:
    m, theirs = run.machine, write_up.machine
    shapes = "; ".join(load.describe() for load in run.loads())
    rows = [
        ("CPU", f"{m.cpu_model}, {m.cpus} CPUs", f"{theirs.get('cpu_cores', _DASH)} cores"),
        ("memory", f"{m.memory_gib:.1f} GiB", str(theirs.get("memory", _DASH))),
        ("OS", f"{m.os}, Linux {m.kernel}", str(theirs.get("os", _DASH))),
        ("Python", m.python, str(theirs.get("python", _DASH))),
        ("load", f"{m.k6}: {shapes} per cell{_rounds(run)}", write_up.tool),
        (
            "client CPU",
            f"k6 used {run.k6_cpu_s:.1f} CPU-seconds over the run (per cell in the tables)",
            _DASH,
        ),
    ]
    if run.payload_size:
        payload = f"{run.payload_size // 1024} KiB, loadtests/lib/payload.js"
        rows.append(("payload", payload, write_up.payload))
    ours = _options(run)
    stolen = [cell for cell in run.cells if cell.steal_pct is not None]
    if stolen:
        mean = sum(cell.steal_pct or 0.0 for cell in stolen) / len(stolen)
        worst = max(stolen, key=lambda cell: cell.steal_pct or 0.0)
        ours["CPU steal"] = (
            f"{mean:.0f}% of the CPUs' time went to other guests during the measured runs (mean"
            f" of the cells; at most {worst.steal_pct:.0f}%, {worst.variant} {worst.endpoint}):"
            " a cell with more shows a higher CPU per request and moves between runs"
        )
    ours["other work"] = (
        f"1-minute load average {run.load_average:.2f} when the run started "
        "(other processes sharing the CPUs make absolute figures lower and noisier)"
    )
    rows += [(name, text, _DASH) for name, text in ours.items()]
    return ["## Machine", "", *table(["", "this run", "write-up"], rows)]


def _rounds(run: BenchRun) -> str:
    if run.rounds < 2:
        return ""
    return (
        "; a shape with rounds measures each of its cells that many times, in passes over"
        " the matrix one after another (the later passes only over the cells that run more"
        " rounds), and each cell's figures are those of its round with the median server"
        " CPU per request (the lower of two; the CPU column gives the rounds' range)"
    )


def _shared(cell: CellResult) -> bool:
    """Whether k6 ran on CPUs the server also ran on (cpus.Pinning.describe's words)."""
    return "not pinned" in cell.pinning or "sharing" in cell.pinning


def _options(run: BenchRun) -> dict[str, str]:
    """The command line's choices, and where k6 and the server shared CPUs."""
    options = run.options
    given = [
        f"--{name} {options[name]}" for name in ("target", "workers", "cpus") if name in options
    ]
    given += ["--on-disk"] if "on_disk" in options else []
    used = [
        f"{who} on CPU {options[key]}"
        for who, key in (("server", "cpus_server"), ("k6", "cpus_k6"))
        if key in options
    ]
    rows = {"options": " ".join(given) or "none: the matrix's workers, the stack started here"}
    if "target" in options:
        rows["target"] = (
            f"load sent to {options['target']}, a stack already up elsewhere: "
            "no server CPU measured"
        )
    shared = sum(_shared(cell) for cell in run.cells)
    where = f"{', '.join(used)}; " if used else ""
    rows["k6 and server CPUs"] = (
        f"{where}apart in {len(run.cells) - shared} of {len(run.cells)} cells"
        + (f", shared in {shared} (marked *shared* in the k6 column)" if shared else "")
    )
    if "server_files" in options:
        rows["server files"] = (
            "what the servers write (uploads, nginx's request bodies, sockets) "
            f"{options['server_files']}"
        )
    if logs := _access_logs(run):
        rows["access logs"] = logs
    if any(METRICS in cell.settings for cell in run.cells):
        rows["metrics"] = _switched(run, METRICS)
    return rows


# The servers' own access-log switches on a command line (uvicorn's, gunicorn's).
_LOG_FLAGS = {"--no-access-log": False, "--access-log": True, "--access-logfile": True}
# The project's switches, on unless 0: servicekit's JSON request line and nginx's access
# log; the apps' Prometheus metrics (servicekit.observe.settings).
ACCESS_LOG = "ACCESS_LOG"
METRICS = "METRICS"


def _state(value: str) -> str:
    return "off" if value == "0" else "on"


def _switched(run: BenchRun, name: str) -> str:
    """A switch as the cells ran: on or off in every cell, or which variants ran which way."""
    variants: dict[str, set[str]] = {}
    for cell in run.cells:
        variants.setdefault(cell.settings.get(name, "1"), set()).add(cell.variant)
    if len(variants) == 1:
        (value,) = variants
        return f"{_state(value)} in every cell ({name}={value})"
    return "; ".join(
        f"{_state(value)} in {', '.join(sorted(names))} ({name}={value})"
        for value, names in sorted(variants.items(), key=lambda item: _state(item[0]) == "on")
    )


def _access_logs(run: BenchRun) -> str:
    """Whether the cells' servers logged each request: ACCESS_LOG as each cell ran, and
    the servers' own switches where a recorded command line sets one."""
    parts = [_switched(run, ACCESS_LOG)] if run.cells else []
    said: dict[str, bool] = {}
    for cell in run.cells:
        for name, argv in cell.commands.items():
            flags = [_LOG_FLAGS[flag] for a in argv if (flag := a.split("=")[0]) in _LOG_FLAGS]
            if flags:
                said[name] = flags[-1]
    servers = [
        f"{state} in {', '.join(names)}"
        for state, logging in (("on", True), ("off", False))
        if (names := sorted(name for name, on in said.items() if on == logging))
    ]
    if servers:
        parts.append("the server's own log " + "; ".join(servers) + " (its command line)")
    return "; ".join(parts)


def _needs(goal: Goal, spec: Ratio | None) -> str:
    unit = "×"
    if spec is not None and spec.plain:
        named = _unit(spec.metric)
        unit = f" {named}" if named else ""
    bounds = (("≥", goal.minimum), ("≤", goal.maximum))
    return " and ".join(f"{sign} {bound:g}{unit}" for sign, bound in bounds if bound is not None)


def _worst(result: GoalResult) -> float:
    """How far a value lies outside its goal's bounds (0 inside them)."""
    assert result.value is not None
    value, goal = result.value.value, result.goal
    below = goal.minimum - value if goal.minimum is not None else 0.0
    above = value - goal.maximum if goal.maximum is not None else 0.0
    return max(below, above, 0.0)


def _goals(results: Sequence[GoalResult], specs: Mapping[str, Ratio]) -> list[str]:
    """One row per goal: how many of its values met it, and its worst case."""
    grouped: dict[str, list[GoalResult]] = {}
    for result in results:
        grouped.setdefault(result.goal.goal, []).append(result)
    rows = []
    for goal, each in grouped.items():
        measured = [result for result in each if result.value is not None]
        if not measured:
            rows.append((goal, _DASH, _DASH, "not measured"))
            continue
        worst = max(measured, key=_worst)
        value, spec = worst.value, specs.get(worst.goal.ratio)
        assert value is not None
        met = sum(result.met for result in measured)
        bounds = [b for b in (worst.goal.minimum, worst.goal.maximum) if b is not None]
        nearest = min(bounds, key=lambda bound: abs(bound - value.value), default=None)
        shown = _amount(spec, value.value, nearest)
        needs = _needs(worst.goal, spec)
        rows.append(
            (
                goal,
                f"{shown} ({value.where}, {workers(value.workers)}; needs {needs})",
                f"{met} of {len(measured)}",
                "met" if met == len(measured) else "not met",
            )
        )
    intro = (
        "Our own targets for the services and recipes, apart from the write-up's questions "
        "above: each goal once, with its worst value and how many of the values it judges "
        "(one per variant and workers) met it."
    )
    return [*_section("Goals", intro), *table(["goal", "worst case", "met by", "result"], rows)]


_RATIOS = (
    "A metric of one cell (successful requests/s unless the ratio says otherwise) over "
    "another cell's, over the sum of several cells' (a floor), or over one of the cell's "
    "own settings, all measured in this run; an unnamed endpoint means every endpoint "
    "both sides ran, combined as a geometric mean. A ratio without a denominator is the "
    "metric itself. A CPU ratio (server CPU per request, cpu_us) is a cost: below 1 the "
    "numerator spends less, and among several denominators the cheapest is the limit."
)
_ROUND_RATIOS = (
    " With rounds a CPU ratio is the median of its values round by round, both sides"
    " read in the same pass over the matrix and, for a mean over endpoints, only the"
    " rounds that measured all of them (bench/report/ratios.py), so it may differ from the"
    " quotient of the per-server tables' median rounds."
)


def _ratios(run: BenchRun, matrix: Matrix, write_up: WriteUp) -> tuple[list[str], list[RatioValue]]:
    """The ratio table, ours beside the write-up's, and every value of ours (goals read
    those of the ratios the table leaves out too)."""
    names = [variant.name for variant in matrix.variants]
    mapped = {variant.name: variant.write_up for variant in matrix.variants if variant.write_up}
    our_workers = sorted({cell.workers for cell in run.cells})
    their_workers = sorted({run_.workers for run_ in write_up.runs})
    header = [
        "ratio",
        "variant",
        *(f"ours, {workers(w)}" for w in our_workers),
        *(f"write-up, {workers(w)}" for w in their_workers),
    ]
    rows: list[list[str]] = []
    measured: list[RatioValue] = []
    for spec in matrix.ratios:
        over = spec.denominator.metric if spec.denominator is not None else None
        ours = run_ratio_values(spec, run, names)
        published = write_up.values(mapped, spec.metric)
        divisors = write_up.values(mapped, over) if over else None
        # The write-up's settings are the same for every run.
        settings = dict.fromkeys(published, write_up.settings)
        theirs = ratio_values(spec, published, names, settings, divisors)
        measured += ours
        if not spec.table:
            continue
        for where in dict.fromkeys(value.where for value in [*ours, *theirs]):
            cells = []
            for values, counts in ((ours, our_workers), (theirs, their_workers)):
                found = {v.workers: v for v in values if v.where == where}
                for count in counts:
                    value = found.get(count)
                    over_pairs = f" (geomean of {value.pairs})" if value and value.pairs > 1 else ""
                    shown = _amount(spec, value.value) if value else _DASH
                    cells.append(f"{shown}{over_pairs}")
            rows.append([spec.name, where, *cells])
    about = [f"- **{spec.name}**: {spec.about}" for spec in matrix.ratios if spec.table]
    intro = _RATIOS + (_ROUND_RATIOS if run.rounds > 1 else "")
    body = table(header, rows) if rows else ["No ratio has both sides measured in this run.", ""]
    return [*_section("Ratios", intro), *body, *about, ""], measured


def _error_kinds(errors: Mapping[str, int]) -> str:
    if not any(errors.values()):
        return "0"
    kinds = [*ERROR_KINDS, *(kind for kind in errors if kind not in ERROR_KINDS)]
    return ", ".join(f"{kind} {errors[kind]}" for kind in kinds if errors.get(kind))


def _statuses(m: Measurement) -> str:
    """The errors by kind, and the non-2xx answers by status where any were counted."""
    kinds = _error_kinds(m.errors)
    counted = [f"{status} {count}" for status, count in m.statuses.items() if count]
    return f"{kinds} ({', '.join(counted)})" if counted else kinds


def _k6(cell: CellResult, m: Measurement) -> str:
    shared = ", *shared*" if _shared(cell) else ""
    bound = client_bound(cell)
    marked = f"; **client-bound**: {bound}" if bound else ""
    return f"{cell.k6_cpu_s:.1f} ({cell.k6_load:.0%}{shared}{marked})"


def _cpu(cell: CellResult, m: Measurement) -> str:
    """The server's CPU per request, and with rounds the range the rounds spanned."""
    spread = [value for value in cell.rounds_cpu_us if value is not None]
    if len(spread) < 2:
        return _fixed(cell.cpu_us_per_request, 0)
    return f"{_fixed(cell.cpu_us_per_request, 0)} ({min(spread):.0f}-{max(spread):.0f})"


def _by_kind(f: Figure) -> str:
    return _DASH if f.errors is None else _error_kinds(f.errors)


@dataclass(frozen=True)
class Column:
    header: str
    ours: Callable[[CellResult, Measurement], str]
    theirs: Callable[[Figure], str] = lambda f: _DASH


def _figure(header: str, name: str, digits: int, theirs: int | None = None) -> Column:
    """A column of one figure, `name`: the measurement's (or else the cell's) with `digits`
    decimals, and where `theirs` gives its decimals the write-up's."""

    def ours(cell: CellResult, m: Measurement) -> str:
        return _fixed(getattr(m, name) if hasattr(m, name) else getattr(cell, name), digits)

    if theirs is None:
        return Column(header, ours)
    return Column(header, ours, lambda f: _fixed(getattr(f, name), theirs))


_LATENCIES = ("p50", "p66", "p75", "p80", "p90", "p95", "p98", "p99", "max")
# Every column a per-server table can have; `[report] columns` picks some, in order, and
# DEFAULT_COLUMNS serve the families that pick none. The write-ups' tools name some figures
# differently (wrk's Avg, vegeta's Mean; hey's Total, vegeta's Duration), and each table
# keeps its tool's word: those figures have a column per name.
COLUMNS: Mapping[str, Column] = {
    "load": Column(
        "load",
        lambda c, m: f"{c.load.rate}/s" if c.load.arrival else f"{c.load.vus} VUs",
        lambda f: str(f.printed.get("load", _DASH)),
    ),
    "requests": _figure("requests", "requests", 0, 0),
    "seconds": _figure("duration s", "elapsed_s", 2, 2),
    "total": _figure("total s", "elapsed_s", 2, 2),
    "rps": _figure("req/s", "rps", 1, 2),
    "cpu": Column("CPU µs/req", _cpu),
    "memory": _figure("memory MiB", "server_memory_mib", 0),
    "success": _figure("success", "success_ratio", 4, 4),
    "avg": _figure("avg ms", "avg_ms", 2, 2),
    "mean": _figure("mean ms", "avg_ms", 2, 2),
    **{name: _figure(f"{name} ms", f"{name}_ms", 2, 2) for name in _LATENCIES},
    "errors": Column("errors", lambda c, m: _error_kinds(m.errors), _by_kind),
    "statuses": Column("errors (by status)", lambda c, m: _statuses(m), _by_kind),
    "dropped": _figure("dropped", "dropped", 0),
    "db": _figure("DB conns (peak)", "db_connections", 0),
    "k6": Column("k6 CPU s (load)", _k6),
    "steal": _figure("steal %", "steal_pct", 0),
}
# wrk's figures; `total` joins them after req/s when a shape is counted (hey's Total).
DEFAULT_COLUMNS = (
    "requests", "rps", "cpu", "memory", "avg", "p50", "p75", "p90", "p99", "max", "errors", "k6",
    "steal",
)  # fmt: skip
# Where a failed cell's error goes: the first of these the table has, else its last column.
_FAILURE_COLUMNS = ("errors", "statuses")
# What a wrk or ab run of a cell fills in besides its errors: each column's figure and its
# decimals. Its other columns stay empty.
_TOOL_COLUMNS = {
    "requests": ("requests", 0),
    "rps": ("rps", 1),
    "cpu": ("cpu_us_per_request", 0),
    "p50": ("p50_ms", 2),
    "p99": ("p99_ms", 2),
}


def _chosen(matrix: Matrix, totals: bool) -> list[str]:
    columns = matrix.report.columns
    if not columns:
        names = list(DEFAULT_COLUMNS)
        if totals:
            names.insert(names.index("rps") + 1, "total")
        return names
    if unknown := [name for name in columns if name not in COLUMNS]:
        raise BenchError(
            f"{matrix.family}: [report] columns names unknown {unknown} "
            f"(known: {', '.join(COLUMNS)})"
        )
    names = list(columns)
    # CPU per request sits beside requests/s in every table.
    if "cpu" not in names and "rps" in names:
        names.insert(names.index("rps") + 1, "cpu")
    return names


def _tool(tool: ToolResult, name: str) -> str:
    """A column of a wrk or ab run's row: its errors, or a figure it shares with k6's."""
    if name in _FAILURE_COLUMNS:
        return str(tool.errors)
    if name not in _TOOL_COLUMNS:
        return _DASH
    field, digits = _TOOL_COLUMNS[name]
    return _fixed(getattr(tool, field), digits)


def _cell_rows(cell: CellResult, names: Sequence[str]) -> list[list[str]]:
    """Our row of the cell, then the write-up's own tool (wrk, ab) on the same cell."""
    m, run = cell.measurement, f"ours, {workers(cell.workers)}"
    if m is not None:
        rows = [[cell.endpoint, run, *(COLUMNS[name].ours(cell, m) for name in names)]]
    else:
        failure = next((n for n in _FAILURE_COLUMNS if n in names), names[-1])
        error = f"failed: {cell.error.splitlines()[0] if cell.error else ''}"
        rows = [[cell.endpoint, run, *(error if n == failure else _DASH for n in names)]]
    return rows + [
        [cell.endpoint, f"{tool.tool}, {workers(cell.workers)}", *(_tool(tool, n) for n in names)]
        for tool in cell.tools
    ]


def _variant_rows(
    cells: Sequence[CellResult], server: str | None, write_up: WriteUp, names: Sequence[str]
) -> list[list[str]]:
    """A variant's rows, endpoint by endpoint, the write-up's figures (of `server`) beside
    ours."""
    rows = []
    for endpoint in dict.fromkeys(cell.endpoint for cell in cells):
        for cell in cells:
            rows += _cell_rows(cell, names) if cell.endpoint == endpoint else []
        if server is None:
            continue
        for count in write_up.workers(server):
            figure = write_up.figure(server, count, endpoint)
            if figure is not None:
                theirs = [COLUMNS[name].theirs(figure) for name in names]
                rows.append([endpoint, f"write-up, {workers(count)}", *theirs])
    return rows


_RESULTS = (
    "Requests are those of the measured phase, after the warm-up of a timed shape "
    "(wrk's); latency is k6's http_req_duration (sending + waiting + receiving), like "
    "wrk's.{counted} Errors by kind: {kinds}. CPU µs/req is the CPU "
    "time every process of the server under test spent in the measured phase over the "
    "requests it completed: a cost that does not depend on the load generator. k6 CPU "
    "is the CPU time k6 itself used in the cell, and in brackets its share of what the "
    "CPUs it ran on could give: near 100%, k6 rather than the server set the pace of "
    "that cell, and where it used 80% or more, or the write-up's tool on the same cell got "
    "1.25× its requests/s or more, the cell is **client-bound**: its requests/s are the "
    "client's and enter no ratio (wrk's row is the figure to read); *shared*: k6 ran on "
    "CPUs the server used too. Rows named wrk or ab are "
    "the write-up's own tool run against the same cell after k6."
)
_COUNTED = (
    " For a counted shape (hey's) every request is measured: total s is the whole run "
    "(hey's Total), requests/s the requests over it, and max hey's Slowest less the "
    "connect time."
)
# The charts of every cell, in the order the per-server section shows them.
_CELL_CHARTS = (
    ("rps", "successful requests/s per endpoint and server"),
    ("cpu", "server CPU per request per endpoint and server"),
    ("total", "total time per endpoint and server"),
)


def _server_tables(
    run: BenchRun, matrix: Matrix, write_up: WriteUp, charts: Mapping[str, str]
) -> list[str]:
    totals = any(load.counted for load in run.loads())
    names = _chosen(matrix, totals)
    header = ["endpoint", "run", *(COLUMNS[name].header for name in names)]
    intro = _RESULTS.format(counted=_COUNTED if totals else "", kinds=", ".join(ERROR_KINDS))
    lines = _section("Results per server", intro)
    for kind, caption in _CELL_CHARTS:
        for key, path in charts.items():
            if key == kind or key.startswith(f"{kind}:"):
                lines += [f"![{caption}]({path})", ""]
    for variant in matrix.variants:
        cells = [cell for cell in run.cells if cell.variant == variant.name]
        if not cells:
            continue
        lines += [f"### {variant.name}", ""]
        for key, path in charts.items():
            if key.startswith(f"latency:{variant.name}:"):
                lines += [f"![latency percentiles, {variant.name}]({path})", ""]
        lines += table(header, _variant_rows(cells, variant.write_up, write_up, names))
    return lines


def _env(option: str, env: Sequence[tuple[str, str]]) -> str:
    return " ".join(f"{option}{key}={shlex.quote(value)}" for key, value in env)


def _commands(run: BenchRun, matrix: Matrix) -> list[str]:
    lines = ["## Commands", ""]
    for variant in matrix.variants:
        for count in sorted({c.workers for c in run.cells if c.variant == variant.name}):
            cells = [c for c in run.cells if (c.variant, c.workers) == (variant.name, count)]
            ran = next((c for c in cells if c.commands), None)
            env = _env("", list(cells[0].settings.items()))
            lines += [
                f"**{variant.name}, {workers(count)}** ({cells[0].pinning}):",
                "",
                "```sh",
                f"{env} docker compose --profile {variant.profile} up {variant.service}",
                f"{env} servelab up --profile {variant.profile} --only {variant.service}",
                *(
                    f"# {name}: {shlex.join(argv)}"
                    for name, argv in (ran or cells[0]).commands.items()
                ),
                "```",
                "",
            ]
    lines += ["Each cell then runs:", "", "```sh", run.k6_command, "```", ""]
    endpoints = {
        (c.endpoint, c.script, tuple(c.load.k6_env().items()), tuple(c.env.items())): None
        for c in run.cells
    }
    rows = [
        (key, f"loadtests/{script}", _env("-e ", load), _env("-e ", env))
        for key, script, load, env in endpoints
    ]
    return lines + table(["endpoint", "script", "load shape", "endpoint env"], rows)


def _write_up_charts(charts: Mapping[str, str], write_up: WriteUp) -> list[str]:
    """The write-up's tables drawn beside ours, each side over its own run's reference."""
    drawn = [
        (f"requests/s against workers: this run and {write_up.citation}", path)
        if key == "workers"
        else (f"{key.removeprefix('write-up:')}: each row over the reference row", path)
        for key, path in charts.items()
        if key == "workers" or key.startswith("write-up:")
    ]
    if not drawn:
        return []
    intro = (
        "Each chart is one table of the write-up, its figures and ours side by side as "
        "ratios to a reference row measured in the same run (the write-up's fastest row "
        "that this run has too): absolute figures from two machines never share an axis."
    )
    return _section("Beside the write-up", intro, *(f"![{c}]({p})" for c, p in drawn))


def _summary(found: Sequence[Answer], source: Path | None) -> list[str]:
    """The write-up's questions answered; the findings page is docs/findings.md from
    docs/results/, beside a run kept apart."""
    if not found:
        return []
    in_docs = source is None or source.parent.parts[-2:] == ("docs", "results")
    findings = "../findings.md" if in_docs else "findings.md"
    intro = (
        "The write-up's questions, answered by this run's figures alone, each ratio with "
        "its 95% interval over the run's rounds (a cell measured once gives no verdict); an "
        "option wins only where every cell's interval lies on its side. "
        f"[The findings]({findings}) set this answer beside the family's other runs and the "
        "write-up's own, and say how the intervals are drawn."
    )
    answers = "\n".join(f"- **{a.question}** {a.verdict} — {a.figures}." for a in found)
    return _section("Summary", intro, answers)


def render(
    run: BenchRun,
    matrix: Matrix,
    write_up: WriteUp,
    charts: Mapping[str, str],
    source: Path | None = None,
    profile: Sequence[str] = (),
) -> str:
    """The report of `run`; `source` is where its results were saved, when that is not
    docs/results/<family>.json (a labelled or --out run): the header names that file and
    the commands that wrote it and render it again. `profile`: the section of the family's
    stage profile (bench.report.stages), after the notes."""
    ratio_lines, measured = _ratios(run, matrix, write_up)
    failed = [cell for cell in run.cells if cell.measurement is None]
    specs = {spec.name: spec for spec in matrix.ratios}
    family = matrix.family
    saved = source.name if source is not None else f"{family}.json"
    # The `servelab bench` command line that wrote the run (its label from the file name).
    command = f"servelab bench {family} --{run.form}"
    if source is not None and source.stem.startswith(f"{family}."):
        command += f" --label {source.stem.removeprefix(f'{family}.')}"
    lines = [
        f"# {matrix.title}",
        "",
        f"Written by `{command}` (started {run.started}, "
        f"{len(run.cells)} cells in {run.wall_s:.0f} s) on {run.machine.cpu_model}, "
        f"{run.machine.cpus} CPUs; `servelab report {source or family}` renders it "
        f"again from [{saved}]({saved}). The write-up: {write_up.citation}.",
        "",
        *_summary(answer_run(Project.find(), run, matrix), source),
        "Compare ratios measured in one run, and CPU per request, not requests/s across "
        "machines or runs: k6 spends several times the CPU per request that wrk does, and "
        "may share the machine with the server.",
        "",
    ]
    if failed:
        lines += [f"**{len(failed)} cell(s) failed**; see the errors column.", ""]
    lines += _machine(run, write_up)
    lines += ratio_lines
    lines += _write_up_charts(charts, write_up)
    lines += _goals(goal_results(matrix.goals, measured, specs), specs)
    if matrix.notes:
        lines += ["## Notes", "", matrix.notes, ""]
    lines += profile
    lines += _server_tables(run, matrix, write_up, charts)
    lines += _commands(run, matrix)
    return "\n".join(lines).rstrip() + "\n"
