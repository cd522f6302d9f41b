"""A second, deliberately plain reading of docs/findings.md's verdicts, for
test_recomputed.py: the family specs read with `tomllib`, the saved runs with `json`, and
each question's rule worked out again from the raw cells, without servelab's findings or
ratio code. What comes out is a verdict's meaning (its kind and the options it names), which
the page's own words are read back into and compared with.

The rules, as docs/findings.md states them: a ratio is taken round by round and judged by
the 95% interval of Student's t over the logarithms of its per-round values; a cell that
ran once gives no interval; cells with under 40 requests are left out, and so are the
requests/s of cells where the load generator set the pace, and the CPU per request of cells
where more than 5% of the answers failed.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

MIN_REQUESTS = 40
MAX_FAILED = 0.05
K6_BUSY = 0.8
TOOL_FASTER = 1.25
# Student's t at 0.975 (a two-sided 95% interval) for 1 to 30 degrees of freedom.
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
# Metrics where less is better: a cost, or a time a request took.
LOWER_IS_BETTER = {"cpu_us", "memory_mib", "elapsed_s", "avg_ms", "max_ms"} | {
    f"p{n}_ms" for n in (50, 66, 75, 80, 90, 95, 98, 99)
}
# The metrics a cell of a run in rounds records round by round.
PER_ROUND = {"cpu_us", "ok_rps", "memory_mib"}

CANNOT = "cannot answer here"
NO_DIFFERENCE = "no measurable difference"
DEPENDS = "depends on where"
WINNER = "winner"
YES = "yes"
NO = "no"
SEEN = "seen"
# A name of a `depends on where` verdict that says how the cells split.
SPLIT = "split: "
# What a `holds` verdict adds where the rates beyond what an endpoint held only shed
# (503s) or queued.
ABOVE = "beyond: only 503s or queued"

# A verdict's meaning: its kind, and the names (options, cells) it rests on.
Meaning = tuple[str, frozenset[str]]


class Unsupported(Exception):
    """A rule or a ratio's shape this plain reading does not work out."""


def cannot() -> Meaning:
    return (CANNOT, frozenset())


# ---------------------------------------------------------------- the saved runs, as JSON


@dataclass
class Cell:
    raw: dict[str, Any]

    @property
    def variant(self) -> str:
        return str(self.raw["variant"])

    @property
    def workers(self) -> int:
        return int(self.raw["workers"])

    @property
    def endpoint(self) -> str:
        return str(self.raw["endpoint"])

    @property
    def m(self) -> dict[str, Any]:
        return self.raw["measurement"] or {}

    @property
    def measured(self) -> bool:
        return self.raw.get("measurement") is not None

    @property
    def name(self) -> str:
        return f"{self.variant}, {workers(self.workers)}, {self.endpoint}"

    def usable(self, metric: str) -> bool:
        """Whether the cell can resolve a difference in `metric` (the page's "left out")."""
        m = self.m
        if m["requests"] < MIN_REQUESTS:
            return False
        if metric == "cpu_us" and m["failed_rate"] > MAX_FAILED:
            return False
        if metric in ("ok_rps", "rps"):
            capacity = self.raw["k6_wall_s"] * self.raw["k6_cpus"]
            if capacity and self.raw["k6_cpu_s"] / capacity >= K6_BUSY:
                return False
            rps = m["rps"]
            if rps and any(tool["rps"] >= TOOL_FASTER * rps for tool in self.raw.get("tools", [])):
                return False
        return True

    def once(self, metric: str) -> float | None:
        """The metric as measured once (the cell's median round, where it ran several)."""
        m = self.m
        if metric == "cpu_us":
            cpu = self.raw.get("server_cpu_s")
            return cpu * 1e6 / m["requests"] if cpu is not None and m["requests"] else None
        if metric == "ok_rps":
            return float(m["rps"]) * (1 - m["failed_rate"])
        if metric == "memory_mib":
            return self.raw.get("server_memory_mib")
        value = m.get(metric)
        return None if value is None else float(value)

    def by_round(self, metric: str, rounds: int) -> list[float | None]:
        """The metric in each of the run's rounds; a cell measured once has it in the first."""
        values: list[float | None] = [None] * rounds
        if metric == "cpu_us" and self.raw.get("rounds_cpu_us"):
            listed = list(self.raw["rounds_cpu_us"])
        elif metric == "memory_mib" and self.raw.get("rounds_memory_mib"):
            listed = list(self.raw["rounds_memory_mib"])
        elif metric == "ok_rps" and self.raw.get("rounds_rps"):
            share = 1 - self.m["failed_rate"]
            listed = [None if rps is None else rps * share for rps in self.raw["rounds_rps"]]
        else:
            listed = [self.once(metric)]
        for index, value in enumerate(listed[:rounds]):
            values[index] = value or None
        return values


@dataclass
class Run:
    path: Path
    raw: dict[str, Any]
    cells: list[Cell] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Run:
        raw = json.loads(path.read_text())
        return cls(path, raw, [Cell(cell) for cell in raw["cells"]])

    @property
    def form(self) -> str:
        return str(self.raw["form"])

    @property
    def rounds(self) -> int:
        return int(self.raw.get("rounds", 1))

    @property
    def cpus(self) -> int:
        return int(self.raw["machine"]["cpus"])

    @property
    def header(self) -> str:
        """How the page names the run: `quick run (2 CPUs, AMD EPYC, 2026-11-28)`."""
        machine, day = self.raw["machine"], self.raw["started"][:10]
        return f"{self.form} run ({machine['cpus']} CPUs, {machine['cpu_model']}, {day})"

    def measured(self) -> list[Cell]:
        return [cell for cell in self.cells if cell.measured]

    def rounds_of(self, metric: str) -> list[dict[tuple[str, int, str], float]]:
        """Each round's value of `metric` in every usable cell; one round where the run
        did not measure in rounds or the metric is not recorded round by round."""
        count = self.rounds if self.rounds >= 2 and metric in PER_ROUND else 1
        found: list[dict[tuple[str, int, str], float]] = [{} for _ in range(count)]
        for cell in self.measured():
            if not cell.usable(metric):
                continue
            values = cell.by_round(metric, count) if count > 1 else [cell.once(metric) or None]
            for index, value in enumerate(values):
                if value:
                    found[index][(cell.variant, cell.workers, cell.endpoint)] = value
        return found


# ---------------------------------------------------------------- intervals


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float

    def side(self, of: float = 1.0) -> int:
        if self.low > of:
            return 1
        if self.high < of:
            return -1
        return 0


def interval(values: list[float]) -> Interval | None:
    """The geometric mean and its 95% t interval; None with fewer than two values."""
    if len(values) < 2 or min(values) <= 0:
        return None
    logs = [math.log(v) for v in values]
    n = len(logs)
    mean = sum(logs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    t = T975[n - 2] if n - 1 <= len(T975) else 1.96
    half = t * sd / math.sqrt(n)
    return Interval(math.exp(mean), math.exp(mean - half), math.exp(mean + half))


def paired(top: list[float | None], bottom: list[float | None]) -> Interval | None:
    return interval([a / b for a, b in zip(top, bottom, strict=False) if a and b])


# ---------------------------------------------------------------- the specs, as TOML


@dataclass
class Family:
    name: str
    spec: dict[str, Any]
    runs: list[Run]

    @property
    def title(self) -> str:
        return str(self.spec.get("title") or self.name)

    @property
    def variants(self) -> list[str]:
        return list(self.spec.get("variants", {}))

    def ratio(self, name: str) -> dict[str, Any] | None:
        return next((r for r in self.spec.get("ratios", []) if r.get("name") == name), None)

    def questions(self) -> list[dict[str, Any]]:
        texts = self.spec.get("question_texts", {})
        expanded = []
        for question in self.spec.get("questions", []):
            one = {}
            for key, value in question.items():
                named = re.fullmatch(r"\{(\w+)\}", value) if isinstance(value, str) else None
                one[key] = texts[named[1]] if named else value
            expanded.append(one)
        return expanded


def load_families(families: Path, results: Path) -> list[Family]:
    found = []
    for path in sorted(families.glob("*.toml")):
        spec = tomllib.loads(path.read_text())
        runs = [
            Run.load(p)
            for p in (results / f"{path.stem}.json", results / f"{path.stem}.full.json")
            if p.is_file()
        ]
        found.append(Family(path.stem, spec, runs))
    return found


def workers(count: int) -> str:
    return f"{count} worker" + ("" if count == 1 else "s")


# ---------------------------------------------------------------- ratios, round by round


def _matches(endpoint: str, side: dict[str, Any]) -> bool:
    only, skip = side.get("only", []), side.get("skip", [])
    wanted = not only or any(fnmatchcase(endpoint, glob) for glob in only)
    return wanted and not any(fnmatchcase(endpoint, glob) for glob in skip)


def _one_round(
    ratio: dict[str, Any],
    values: dict[tuple[str, int, str], float],
    pairs: list[tuple[str, str, str | None]],
    family: Family,
) -> dict[tuple[str, int, str | None], float]:
    """The ratio's value in one round, per numerator variant, workers and endpoint label:
    `pairs` is (numerator endpoint, denominator endpoint, label)."""
    top, bottom = ratio.get("numerator", {}), ratio["denominator"]
    lower = ratio.get("metric", "ok_rps") in LOWER_IS_BETTER
    found: dict[tuple[str, int, str | None], float] = {}
    for variant in top.get("variants") or family.variants:
        for count in sorted({w for (v, w, _) in values if v == variant}):
            for mine, theirs, label in pairs:
                numerator = values.get((variant, count, mine))
                if not numerator:
                    continue
                if bottom.get("sum"):
                    parts = [
                        values.get(
                            (
                                part["variant"].replace("{variant}", variant),
                                part.get("workers") or count,
                                part["endpoint"],
                            )
                        )
                        for part in bottom["sum"]
                    ]
                    if all(parts):
                        found[(variant, count, label)] = numerator / sum(p or 0 for p in parts)
                    continue
                quotients = [
                    numerator / denominator
                    for other in bottom.get("variants") or [variant]
                    if (denominator := values.get((other, bottom.get("workers") or count, theirs)))
                ]
                if quotients:
                    # Against the denominator that leaves the numerator looking worst.
                    found[(variant, count, label)] = (max if lower else min)(quotients)
    return found


def ratio_intervals(
    ratio: dict[str, Any], run: Run, family: Family
) -> dict[tuple[str, int, str | None], Interval]:
    """Each value of the ratio (per numerator variant, workers and, where it has several,
    endpoint) with its interval over the run's rounds; a value measured in one round only
    has none, and is left out."""
    top, bottom = ratio.get("numerator", {}), ratio.get("denominator")
    if bottom is None or bottom.get("setting") or bottom.get("metric"):
        raise Unsupported(f"ratio {ratio['name']!r}: a per-cell ratio")
    metric = ratio.get("metric", "ok_rps")
    rounds = run.rounds_of(metric)
    if top.get("endpoint") or top.get("endpoints") or bottom.get("endpoint") or bottom.get("sum"):
        tops = top.get("endpoints") or [top.get("endpoint")]
        several = len(tops) > 1
        pairs = [
            (
                mine or bottom.get("endpoint"),
                bottom.get("endpoint") or mine,
                mine if several else None,
            )
            for mine in tops
        ]
    else:
        # A mean over shared endpoints, taken endpoint by endpoint.
        names = sorted({e for r in rounds for (_, _, e) in r if _matches(e, top)})
        pairs = [(name, name, name) for name in names]
    per_key: dict[tuple[str, int, str | None], list[float]] = {}
    for values in rounds:
        for key, value in _one_round(ratio, values, pairs, family).items():
            per_key.setdefault(key, []).append(value)
    return {key: spread for key, values in per_key.items() if (spread := interval(values))}


def where(key: tuple[str, int, str | None]) -> str:
    variant, count, endpoint = key
    return (variant if endpoint is None else f"{variant} ({endpoint})") + f", {workers(count)}"


# ---------------------------------------------------------------- the rules


def choice(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    for name in rule["ratios"]:
        ratio = family.ratio(name)
        if ratio is None:
            continue
        found = ratio_intervals(ratio, run, family)
        if not found:
            continue
        sign = -1 if ratio.get("metric", "ok_rps") in LOWER_IS_BETTER else 1
        sides = {spread.side() for spread in found.values()}
        options = set()
        if sign in sides:
            options.add(rule["first"])
        if -sign in sides:
            options.add(rule["second"])
        if len(sides) > 1:
            # And how the cells split: each named where an option carries three or fewer.
            split = set()
            for option, side in ((rule["first"], sign), (rule["second"], -sign),
                                 (NO_DIFFERENCE, 0)):  # fmt: skip
                cited = [where(key) for key, spread in found.items() if spread.side() == side]
                if 0 < len(cited) <= 3:
                    split |= {f"{SPLIT}{option} on {each}" for each in cited}
                elif cited:
                    split.add(f"{SPLIT}{option} on {len(cited)} of the {len(found)} cells")
            return (DEPENDS, frozenset(options | split))
        if sides == {0}:
            return (NO_DIFFERENCE, frozenset())
        return (WINNER, frozenset(options))
    return cannot()


def _cell_rounds(
    run: Run, metric: str, endpoint: str, variants: list[str] | None
) -> dict[tuple[str, int], list[float | None]]:
    rounds = run.rounds_of(metric)
    found = {}
    for cell in run.measured():
        if cell.endpoint != endpoint or (variants is not None and cell.variant not in variants):
            continue
        values = [r.get((cell.variant, cell.workers, cell.endpoint)) for r in rounds]
        if any(values):
            found[(cell.variant, cell.workers)] = values
    return found


def cheapest(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    ratio = family.ratio(rule["ratio"])
    if ratio is None:
        return cannot()
    costs = _cell_rounds(
        run, "cpu_us", rule["endpoint"], ratio.get("numerator", {}).get("variants")
    )
    spreads = {c: s for c, values in costs.items() if (s := interval([v for v in values if v]))}
    if not spreads:
        return cannot()
    best = min(spreads, key=lambda c: spreads[c].value)
    tied = {best[0]} | {
        c[0]
        for c in spreads
        if (against := paired(costs[c], costs[best])) is None or against.side() <= 0
    }
    return (NO_DIFFERENCE if len(tied) > 1 else WINNER, frozenset(tied))


def enough_workers(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    rates = _cell_rounds(run, "ok_rps", rule["endpoint"], rule.get("variants"))
    spreads = {c: s for c, values in rates.items() if (s := interval([v for v in values if v]))}
    if not spreads:
        return cannot()
    top = max(spreads, key=lambda c: spreads[c].value)

    def as_good(cell: tuple[str, int]) -> bool:
        against = paired(rates[cell], rates[top])
        return cell == top or against is None or against.side() >= 0

    counts = sorted(w for v, w in spreads if v == top[0])
    if len(counts) == 1:
        return cannot()
    rivals = {v for v, w in spreads if v != top[0] and as_good((v, w))}
    least = next(w for w in counts if as_good((top[0], w)))
    return (f"{workers(least)} on {run.cpus} CPUs", frozenset({top[0], *rivals}))


def within(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    ratio = family.ratio(rule["ratio"])
    if ratio is None:
        return cannot()
    found = ratio_intervals(ratio, run, family)
    if not found:
        return cannot()
    limit = float(rule["maximum"])
    over = [key for key, s in found.items() if s.side(limit) > 0]
    if over:
        return (NO, frozenset({where(max(over, key=lambda k: found[k].value))}))
    if all(s.side(limit) < 0 for s in found.values()):
        return (YES, frozenset())
    return (NO_DIFFERENCE, frozenset({where(max(found, key=lambda k: found[k].value))}))


def latency(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    def cells(wanted: list[dict[str, str]]) -> dict[int, list[Cell]]:
        keys = {(w["variant"], w["endpoint"]) for w in wanted}
        by: dict[int, list[Cell]] = {}
        for cell in run.measured():
            if (cell.variant, cell.endpoint) in keys:
                by.setdefault(cell.workers, []).append(cell)
        return by

    firsts, seconds = cells(rule["first_cells"]), cells(rule["second_cells"])
    sides = []
    for count in set(firsts) & set(seconds):
        for a in firsts[count]:
            for b in seconds[count]:
                if a.m["max_ms"] < b.m["p50_ms"]:
                    sides.append(1)
                elif b.m["max_ms"] < a.m["p50_ms"]:
                    sides.append(-1)
                else:
                    sides.append(0)
    if not sides:
        return cannot()
    if set(sides) == {1}:
        return (WINNER, frozenset({rule["first"]}))
    if set(sides) == {-1}:
        return (WINNER, frozenset({rule["second"]}))
    if 1 in sides and -1 in sides:
        return (DEPENDS, frozenset({rule["first"], rule["second"]}))
    if any(sides):
        return (DEPENDS, frozenset())
    return (NO_DIFFERENCE, frozenset())


def _picked(
    run: Run, variants: list[str] | None, endpoints: list[str], measured: bool = True
) -> list[Cell]:
    return [
        cell
        for cell in (run.measured() if measured else run.cells)
        if (variants is None or cell.variant in variants)
        and (not endpoints or any(fnmatchcase(cell.endpoint, glob) for glob in endpoints))
    ]


def unfailed(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    picked = _picked(run, rule.get("variants"), rule.get("endpoints", []))
    # A cell that measured nothing (its stack or k6 broke) answered none of its requests.
    failing = {
        cell.name
        for cell in _picked(run, rule.get("variants"), rule.get("endpoints", []), measured=False)
        if not cell.measured
    }
    if not picked and not failing:
        return cannot()
    for cell in picked:
        m = cell.m
        by_k6 = round(m["failed_rate"] * m["requests"]) + m["errors"].get("wrong_answer", 0)
        by_tools = sum(tool.get("errors", 0) for tool in cell.raw.get("tools", []))
        if by_k6 or by_tools:
            failing.add(cell.name)
    return (NO, frozenset(failing)) if failing else (YES, frozenset())


def under(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    percentile = rule.get("percentile", "p95_ms")
    picked = [
        (cell, value)
        for cell in _picked(run, rule.get("variants"), rule["endpoints"])
        if (value := cell.m.get(percentile)) is not None
    ]
    if not picked:
        return cannot()
    over = sorted(cell.name for cell, value in picked if value > rule["limit_ms"])
    return (NO, frozenset({", ".join(over)})) if over else (YES, frozenset())


def holds(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    rates: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for cell in run.measured():
        found = re.fullmatch(r"(.+) @(\d+)/s", cell.endpoint)
        if cell.variant == rule["variant"] and found:
            rates.setdefault(found[1], []).append((int(found[2]), cell.m))
    if not rates:
        return cannot()
    held, broken, above = [], set(), False
    for name, steps in rates.items():
        # Held: every rate up to the first at which some answer was not a 2xx, or some
        # request was not sent in time (k6 dropped it: every client was waiting).
        failing = [rate for rate, m in steps if m["failed_rate"] or m.get("dropped", 0)]
        clean = [rate for rate, _ in steps if not failing or rate < min(failing)]
        lowest = min(rate for rate, _ in steps)
        held.append(f"{name} {max(clean)}/s" if clean else f"{name} none of {lowest}/s and up")
        for rate, m in steps:
            statuses, errors = m.get("statuses", {}), m.get("errors", {})
            above = above or rate in failing
            other = errors.get("non_2xx", 0) - sum(statuses.values())
            if statuses.get("502", 0) or other or errors.get("timeout", 0):
                broken.add(f"{name} @{rate}/s")
    names = {f"held: {each}" for each in held} | {f"broken: {each}" for each in broken}
    if above and not broken:
        names.add(ABOVE)
    return (NO if broken else SEEN, frozenset(names))


RULES = {
    "unmeasured": lambda rule, run, family: cannot(),
    "choice": choice,
    "cheapest": cheapest,
    "workers": enough_workers,
    "within": within,
    "latency": latency,
    "unfailed": unfailed,
    "under": under,
    "holds": holds,
}


def recompute(rule: dict[str, Any], run: Run, family: Family) -> Meaning:
    if rule["rule"] not in RULES:
        raise Unsupported(f"rule {rule['rule']!r}")
    return RULES[rule["rule"]](rule, run, family)


# ---------------------------------------------------------------- the page's words


def meaning_of(verdict: str, rule: dict[str, Any]) -> Meaning:
    """What a verdict on the page says, read back into a Meaning for `rule`."""
    kind = rule["rule"]
    if verdict.startswith(CANNOT):
        return cannot()
    if kind in ("choice", "latency"):
        options = (rule["first"], rule["second"])
        if verdict == NO_DIFFERENCE:
            return (NO_DIFFERENCE, frozenset())
        if verdict == DEPENDS:
            return (DEPENDS, frozenset(options))
        if verdict.startswith(DEPENDS):
            named = set()
            for part in verdict.removeprefix(f"{DEPENDS}: ").split("; "):
                for option in (*options, NO_DIFFERENCE):
                    if not part.startswith(f"{option} on "):
                        continue
                    named |= {option} - {NO_DIFFERENCE}
                    cells = part.removeprefix(f"{option} on ")
                    if re.fullmatch(r"\d+ of the \d+ cells", cells):
                        named.add(f"{SPLIT}{option} on {cells}")
                    elif kind == "choice":
                        listed = re.findall(r"(.+?, \d+ workers?)(?:, |$)", cells)
                        named |= {f"{SPLIT}{option} on {each}" for each in listed}
            return (DEPENDS, frozenset(named))
        if verdict in options:
            return (WINNER, frozenset({verdict}))
    elif kind == "cheapest":
        if verdict.startswith(f"{NO_DIFFERENCE} between "):
            return (
                NO_DIFFERENCE,
                frozenset(verdict.removeprefix(f"{NO_DIFFERENCE} between ").split(", ")),
            )
        return (WINNER, frozenset({verdict}))
    elif kind == "workers":
        found = re.fullmatch(r"(\d+ workers? on \d+ CPUs); (.+?)(?:, or alike (.+))?", verdict)
        if found:
            rivals = found[3].split(", ") if found[3] else []
            return (found[1], frozenset({found[2], *rivals}))
    elif kind == "within":
        found = re.fullmatch(r"no: [+-]\d+% on (.+)", verdict)
        if found:
            return (NO, frozenset({found[1]}))
        if verdict.startswith("yes: "):
            return (YES, frozenset())
        found = re.fullmatch(rf"{NO_DIFFERENCE} from the limit: [+-]\d+% on (.+)", verdict)
        if found:
            return (NO_DIFFERENCE, frozenset({found[1]}))
    elif kind == "unfailed":
        if verdict.startswith("none failed"):
            return (YES, frozenset())
        if verdict.startswith("some failed: "):
            listed = verdict.removeprefix("some failed: ").split("; ")
            return (NO, frozenset(each.rpartition(": ")[0] for each in listed))
    elif kind == "under":
        if verdict.startswith("yes: "):
            return (YES, frozenset())
        found = re.fullmatch(r"no: \w+ over .+? on (.+)", verdict)
        if found:
            return (NO, frozenset({found[1]}))
    elif kind == "holds":
        found = re.fullmatch(r"every [^:]*? up to: (.*)", verdict)
        if found:
            held, _, rest = found[1].partition("; ")
            names = {f"held: {each}" for each in held.split(", ")}
            if rest.startswith("502s, 500s or timeouts at "):
                broken = rest.removeprefix("502s, 500s or timeouts at ").split(", ")
                return (NO, frozenset(names | {f"broken: {each}" for each in broken}))
            if rest:  # what the rates beyond answered: 503s or queued, nothing worse
                names.add(ABOVE)
            return (SEEN, frozenset(names))
    return ("unreadable: " + verdict, frozenset())


def alike(rule: dict[str, Any], meaning: Meaning) -> Meaning:
    """What two runs' verdicts must share to count as the same answer: the kind and the
    options named, not the cell a limit was passed on, nor what overload looked like."""
    kind, names = meaning
    if rule["rule"] == "within":
        return (kind, frozenset())
    return (kind, frozenset(n for n in names if n != ABOVE and not n.startswith(SPLIT)))


def shown(meaning: Meaning) -> str:
    kind, names = meaning
    return kind + (f" [{'; '.join(sorted(names))}]" if names else "")


# ---------------------------------------------------------------- the page's lines

GPU_RUN = "the GPU machine's run"
_RUN_LINE = re.compile(r"- \*\*((?:quick|full) run \(.+?\)|the GPU machine's run):\*\* (.*)\.")


@dataclass
class Question:
    ours: str | None = None
    # the run's header on the page ("quick run (2 CPUs, ...)") -> its verdict
    runs: dict[str, str] = field(default_factory=dict)


@dataclass
class Page:
    # family title -> question -> what the page says
    sections: dict[str, dict[str, Question]]
    # (write-up, question) -> "our answer" column of the table at a glance
    glance: dict[tuple[str, str], str]


def read_page(path: Path) -> Page:
    sections: dict[str, dict[str, Question]] = {}
    glance: dict[tuple[str, str], str] = {}
    section: dict[str, Question] | None = None
    question: Question | None = None
    in_glance = False
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            in_glance = line == "## At a glance"
            section = sections.setdefault(line[3:], {})
            question = None
        elif line.startswith("### ") and section is not None:
            question = section.setdefault(line[4:], Question())
        elif in_glance and line.startswith("|") and not set(line) <= set("|- "):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if len(cells) >= 3 and cells[0] != "write-up":
                glance[(cells[0], cells[1])] = cells[2]
        elif question is not None and line.startswith("- **Ours:** "):
            question.ours = line.removeprefix("- **Ours:** ").removesuffix(".")
        elif question is not None and (found := _RUN_LINE.fullmatch(line)):
            question.runs[found[1]] = found[2]
    return Page(sections, glance)


_AGREE_NOTE = re.compile(
    r" \((?:\w+ and \w+ runs agree|\w+ run(?:; the \w+ run cannot answer)?)\)$"
)


def without_note(verdict: str) -> str:
    """An `Ours` verdict without its note on which runs agree."""
    return _AGREE_NOTE.sub("", verdict)
