"""The answers a report opens with: the write-up's questions (stream or buffer? uvicorn
or gunicorn? how many workers?) answered from this run's figures by small rules, each
answer with the figures behind it. Where the figures say otherwise, so does the answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import geometric_mean

from servelab.bench.measure.summary import CPU_US, MEMORY_MIB
from servelab.bench.report.apart import apart
from servelab.bench.report.ratios import RatioSpec, RatioValue
from servelab.bench.report.results import BenchRun, CellResult

# Within this of 1, a comparison finds no difference worth choosing by.
TOLERANCE = 0.05
# The fewest workers that reach this share of the best requests/s are enough.
ENOUGH = 0.9


@dataclass(frozen=True)
class Choice:
    """A question two options answer, settled by a ratio of the first over the second:
    the first of `ratios` that has values in the run (a CPU ratio before its requests/s
    twin, which depends on k6 keeping up)."""

    question: str
    ratios: tuple[str, ...]
    first: str
    second: str


@dataclass(frozen=True)
class Cheapest:
    """Which of the numerator variants of `ratio` (a CPU ratio over a floor) does the job
    at `endpoint` best: the least server CPU per request where the run measured it, with
    its value of the ratio, else the most successful requests/s."""

    question: str
    endpoint: str
    ratio: str


@dataclass(frozen=True)
class Workers:
    """Which variant gives the most successful requests/s at `endpoint`, and the fewest
    workers that give it ENOUGH of its best."""

    question: str
    endpoint: str
    variants: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Within:
    """Does a cost stay within a limit: every value of `ratio` (a CPU ratio, one option
    over the same server without it) at most `maximum`?"""

    question: str
    ratio: str
    maximum: float


Question = Choice | Cheapest | Workers | Within

_HEALTH = "ab POST /analysis/health-code"

# Each family's write-up question, as rules over ratio names in its matrix.
QUESTIONS: Mapping[str, tuple[Question, ...]] = {
    "files": (
        Choice(
            "Stream an upload or buffer it?",
            ("stream/buffer upload CPU", "stream/buffer upload"),
            "stream",
            "buffer (UploadFile)",
        ),
        Choice(
            "uvicorn or gunicorn?",
            ("gunicorn/uvicorn CPU", "gunicorn/uvicorn"),
            "gunicorn + UvicornWorker",
            "uvicorn --workers",
        ),
        Choice(
            "`async def` or `def`?",
            ("async/sync upload CPU", "async/sync upload"),
            "`async def`",
            "`def`",
        ),
    ),
    "hello": (
        Cheapest("Which server and worker type?", "GET /hello @400/s", "hello CPU / empty app"),
        Choice(
            "gunicorn threads or sync workers?",
            ("threads/sync CPU", "threads/sync"),
            "threads",
            "sync",
        ),
        Choice(
            "gunicorn gevent or sync workers?",
            ("gevent/sync CPU", "gevent/sync"),
            "gevent",
            "sync",
        ),
    ),
    "health-code": (
        Workers("Which mode, and how many workers?", _HEALTH),
        Choice("`def` or `async def`?", ("sync/async",), "`def`", "`async def`"),
        Choice(
            "uvicorn or gunicorn?",
            ("gunicorn/uvicorn",),
            "gunicorn + UvicornWorker",
            "uvicorn --workers",
        ),
    ),
    "wait": (
        Choice("`async def` or `def`?", ("async/sync",), "`async def`", "`def`"),
        Workers("How many workers?", "hey /sync", ("uvicorn", "gunicorn")),
        Choice(
            "uvicorn or gunicorn?",
            ("gunicorn/uvicorn CPU", "gunicorn/uvicorn"),
            "gunicorn + UvicornWorker",
            "uvicorn",
        ),
    ),
    "replicas": (
        Choice(
            "N one-worker replicas behind nginx, or one uvicorn --workers N?",
            ("CPU replicas/uvicorn", "replicas/uvicorn"),
            "N replicas behind nginx",
            "uvicorn --workers N",
        ),
        Choice(
            "N one-worker replicas behind nginx, or gunicorn -w N?",
            ("CPU replicas/gunicorn", "replicas/gunicorn"),
            "N replicas behind nginx",
            "gunicorn -w N",
        ),
        Choice(
            "Which takes less memory: replicas or uvicorn --workers?",
            ("memory replicas/uvicorn",),
            "N replicas behind nginx",
            "uvicorn --workers N",
        ),
        Choice(
            "Which takes less memory: replicas or gunicorn -w?",
            ("memory replicas/gunicorn",),
            "N replicas behind nginx",
            "gunicorn -w N",
        ),
    ),
    "observability": (
        Within(
            "Do metrics and access logs cost at most 10% of the CPU of GET /hello?",
            "hello observed/bare CPU",
            1.10,
        ),
        Within(
            "Do metrics and access logs cost at most 10% of the CPU of a 256 KiB download?",
            "download observed/bare CPU",
            1.10,
        ),
        Within(
            "Do metrics and access logs cost at most 10% of the CPU of a 256 KiB upload?",
            "upload observed/bare CPU",
            1.10,
        ),
    ),
    "entryeditor": (
        Choice(
            "uWSGI or gunicorn?",
            ("gunicorn/uwsgi CPU", "gunicorn/uwsgi"),
            "gunicorn (gthread)",
            "uWSGI",
        ),
    ),
}


@dataclass(frozen=True)
class Answer:
    question: str
    answer: str
    figures: str


def _workers(count: int) -> str:
    return f"{count} worker" + ("" if count == 1 else "s")


def _listed(values: Sequence[RatioValue]) -> str:
    return "; ".join(f"{v.where}, {_workers(v.workers)}: {v.value:.2f}×" for v in values)


_WHAT = {CPU_US: "server CPU per request", MEMORY_MIB: "server memory"}


def _choice(
    rule: Choice, specs: Mapping[str, RatioSpec], values: Sequence[RatioValue]
) -> Answer | None:
    for name in rule.ratios:
        mine = [v for v in values if v.ratio == name]
        spec = specs.get(name)
        if not mine or spec is None:
            continue
        overall = geometric_mean([v.value for v in mine])
        # A cost below 1, or a rate above 1, is the first option's win.
        better = 1 / overall if spec.lower_is_better else overall
        what = _WHAT.get(spec.metric, "successful requests/s")
        figures = f"{rule.first} {overall:.2f}× the {what} of {rule.second} ({_listed(mine)})"
        if abs(better - 1) <= TOLERANCE:
            return Answer(rule.question, f"either: within {TOLERANCE:.0%}", figures)
        winner = rule.first if better > 1 else rule.second
        against = [
            v
            for v in mine
            if ((1 / v.value if spec.lower_is_better else v.value) > 1) != (better > 1)
        ]
        if against:
            figures += f"; not everywhere: {_listed(against)}"
        return Answer(rule.question, winner, figures)
    return None


def _measured(run: BenchRun, endpoint: str, variants: Sequence[str] | None) -> list[CellResult]:
    return [
        cell
        for cell in run.cells
        if cell.measurement is not None
        and cell.endpoint == endpoint
        and (variants is None or cell.variant in variants)
    ]


def _label(cell: CellResult) -> str:
    return f"{cell.variant}, {_workers(cell.workers)}"


def _cheapest(
    rule: Cheapest,
    run: BenchRun,
    specs: Mapping[str, RatioSpec],
    values: Sequence[RatioValue],
) -> Answer | None:
    spec = specs.get(rule.ratio)
    if spec is None:
        return None
    cells = _measured(run, rule.endpoint, spec.numerator.variants)
    costed = [(cost, cell) for cell in cells if (cost := cell.cpu_us_per_request) is not None]
    if costed:
        floor = {(v.variant, v.workers): v.value for v in values if v.ratio == rule.ratio}
        ranked = sorted(costed, key=lambda pair: pair[0])
        listed = "; ".join(
            _cost(cell, cost, floor.get((cell.variant, cell.workers))) for cost, cell in ranked[:3]
        )
        figures = f"server CPU per request, least first, and its {rule.ratio}: {listed}"
        return Answer(rule.question, ranked[0][1].variant, figures)
    rated = [(m.ok_rps, c) for c in cells if (m := c.measurement) is not None]
    if not rated:
        return None
    ranked = sorted(rated, key=lambda pair: -pair[0])
    listed = "; ".join(f"{_label(c)}: {rps:.0f}/s" for rps, c in ranked[:3])
    figures = f"successful requests/s, most first (no CPU measured): {listed}"
    return Answer(rule.question, ranked[0][1].variant, figures)


def _cost(cell: CellResult, cost: float, over_floor: float | None) -> str:
    shown = f"{_label(cell)}: {cost:.0f} µs"
    return shown if over_floor is None else f"{shown} ({over_floor:.2f}×)"


def _within(rule: Within, values: Sequence[RatioValue]) -> Answer | None:
    mine = [v for v in values if v.ratio == rule.ratio]
    if not mine:
        return None
    worst = max(mine, key=lambda value: value.value)
    figures = f"{rule.ratio}, the limit {rule.maximum:.2f}×: {_listed(mine)}"
    excess = apart(worst.value - 1, rule.maximum - 1, 0, percent=True)
    if worst.value <= rule.maximum:
        return Answer(rule.question, f"yes: {excess} at most", figures)
    return Answer(rule.question, f"no: {excess} on {worst.where}", figures)


def _enough(rule: Workers, run: BenchRun) -> Answer | None:
    cells = _measured(run, rule.endpoint, rule.variants)
    rates = {(c.variant, c.workers): c.measurement.ok_rps for c in cells if c.measurement}
    if not rates:
        return None
    best_variant = max(rates, key=lambda key: rates[key])[0]
    curve = sorted((w, rps) for (v, w), rps in rates.items() if v == best_variant)
    top = max(rps for _, rps in curve)
    enough = next(w for w, rps in curve if rps >= ENOUGH * top)
    shown = ", ".join(f"{_workers(w)}: {rps:.1f}/s" for w, rps in curve)
    if len(curve) == 1:
        answer = f"{best_variant}; only {_workers(curve[0][0])} measured"
    else:
        answer = f"{best_variant}, {_workers(enough)}"
    figures = (
        f"successful requests/s of {best_variant} ({shown}); the fewest workers within "
        f"{1 - ENOUGH:.0%} of its best are enough"
    )
    return Answer(rule.question, answer, figures)


# The answer to a question the run has no figures for.
UNANSWERED = "not measured in this run"


def _needs(rule: Question) -> str:
    if isinstance(rule, Choice):
        return f"needs both sides of {' or '.join(rule.ratios)}"
    if isinstance(rule, Within):
        return f"needs both sides of {rule.ratio}"
    return f"needs {rule.endpoint} measured"


def answers(
    run: BenchRun, specs: Mapping[str, RatioSpec], values: Sequence[RatioValue]
) -> list[Answer]:
    """The family's questions, each answered by this run's figures or said to be
    UNANSWERED, with what it would need."""
    found = []
    for rule in QUESTIONS.get(run.family, ()):
        if isinstance(rule, Choice):
            answer = _choice(rule, specs, values)
        elif isinstance(rule, Cheapest):
            answer = _cheapest(rule, run, specs, values)
        elif isinstance(rule, Within):
            answer = _within(rule, values)
        else:
            answer = _enough(rule, run)
        found.append(answer or Answer(rule.question, UNANSWERED, _needs(rule)))
    return found
