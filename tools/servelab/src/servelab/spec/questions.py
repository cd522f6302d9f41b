"""The write-up's questions a family's runs answer (`[[questions]]` of
loadtests/families/<family>.toml): each names its rule, what the rule reads (the matrix's
ratios, or an endpoint's cells), the write-up's own answer, why ours may differ and what a
bigger machine changes. A text written `"{name}"` stands for the family's
`[question_texts]` entry `name`."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from servelab.project import Project
from servelab.spec.family import Spec, SpecError, read_spec, spec_file, validate

_TEXT = re.compile(r"\{(\w+)\}")


class Asked(Spec):
    """What every question says beside our answer. `agrees`: the verdict of ours that would
    be the write-up's answer (None: it gave none we can compare)."""

    question: str
    write_up: str = ""
    why: str = ""
    bigger: str = ""
    agrees: str | None = None


class Choice(Asked):
    """Two options, settled by a ratio of the first over the second: the first of `ratios`
    that has values (a CPU ratio before its requests/s twin)."""

    rule: Literal["choice"]
    ratios: tuple[str, ...] = Field(min_length=1)
    first: str
    second: str


class Cheapest(Asked):
    """Which of the numerator variants of `ratio` (a CPU ratio over a floor) does the job
    at `endpoint` for the least server CPU per request."""

    rule: Literal["cheapest"]
    endpoint: str
    ratio: str


class Workers(Asked):
    """Which variant (of `variants`, None: all) gives the most successful requests/s at
    `endpoint`, and the fewest workers that give as many as its best, within the noise."""

    rule: Literal["workers"]
    endpoint: str
    variants: tuple[str, ...] | None = None


class Within(Asked):
    """Does a cost stay within a limit: every value of `ratio` (a CPU ratio, one option
    over the same server without it) at most `maximum`?"""

    rule: Literal["within"]
    ratio: str
    maximum: float = Field(gt=0)


class Cell(Spec):
    """One cell of the matrix by its variant and endpoint key (every number of workers)."""

    variant: str
    endpoint: str


class Latency(Asked):
    """Which of two options answers sooner, cell against cell at the same number of workers:
    an option is called faster only where even its slowest request (max) finished before
    half of the other's (p50), in every pair; a window's own spread, no assumed band."""

    rule: Literal["latency"]
    first: str
    second: str
    first_cells: tuple[Cell, ...] = Field(min_length=1)
    second_cells: tuple[Cell, ...] = Field(min_length=1)


class Unfailed(Asked):
    """Did any request fail (an error, a non-2xx, a wrong answer) in the cells of `variants`
    (None: all) at `endpoints` (glob patterns; empty: all), the write-ups' own tools'
    errors on the same cells included?"""

    rule: Literal["unfailed"]
    variants: tuple[str, ...] | None = None
    endpoints: tuple[str, ...] = ()


class Under(Asked):
    """Does every cell of `variants` at `endpoints` (glob patterns) answer within
    `limit_ms` at its `percentile` (p50, p95, p99 or max)?"""

    rule: Literal["under"]
    variants: tuple[str, ...] | None = None
    endpoints: tuple[str, ...] = Field(min_length=1)
    percentile: Literal["p50_ms", "p95_ms", "p99_ms", "max_ms"] = "p95_ms"
    limit_ms: float = Field(gt=0)


class Holds(Asked):
    """The highest constant rate (the `<endpoint> @<rate>/s` cells) up to which each endpoint
    of `variant` had every request sent on time and answered with a 2xx, and what the rates
    beyond it saw: 503s shed at once, answers queued, or 502s, 500s and timeouts."""

    rule: Literal["holds"]
    variant: str


class Unmeasured(Asked):
    """A question of the write-up that no run of the family measures: `needs` says why the
    recipes leave it out and what to run to see it."""

    rule: Literal["unmeasured"]
    needs: str


class OnDevice(Asked):
    """A question only the run on a machine with an NVIDIA GPU answers; without that run,
    `needs` says what to run."""

    rule: Literal["on_device"]
    needs: str


Question = Annotated[
    Choice
    | Cheapest
    | Workers
    | Within
    | Latency
    | Unfailed
    | Under
    | Holds
    | Unmeasured
    | OnDevice,
    Field(discriminator="rule"),
]


def reads(question: Question) -> tuple[str, ...]:
    """The matrix's ratios the question reads."""
    if isinstance(question, Choice):
        return question.ratios
    return (question.ratio,) if isinstance(question, (Cheapest, Within)) else ()


class Questions(Spec):
    question_texts: dict[str, str] = Field(default_factory=dict)
    questions: tuple[Question, ...] = ()


def _expanded(question: Any, texts: dict[str, str], where: str) -> Any:
    """The question's table, each value written `"{name}"` replaced by the shared text."""
    if not isinstance(question, dict):
        return question
    found = {}
    for key, value in question.items():
        name = _TEXT.fullmatch(value) if isinstance(value, str) else None
        if name is not None and name[1] not in texts:
            raise SpecError(f"{where}.{key}: no question_texts.{name[1]}")
        found[key] = value if name is None else texts[name[1]]
    return found


def load_questions(project: Project, family: str) -> tuple[Question, ...]:
    """The family's questions, in the order they are asked; SpecError where one is invalid
    or reads a ratio the family's matrix lacks."""
    spec = read_spec(project, family)
    where = str(spec_file(project, family))
    texts = spec.get("question_texts", {})
    raw = [
        _expanded(question, texts, f"{where}: questions.{index}")
        for index, question in enumerate(spec.get("questions", []))
    ]
    found = validate(Questions, {"question_texts": texts, "questions": raw}, where)
    if "variants" in spec:
        known = {ratio.get("name") for ratio in spec.get("ratios", [])}
        for question in found.questions:
            if missing := [name for name in reads(question) if name not in known]:
                raise SpecError(
                    f"{where}: {question.question!r} reads {', '.join(missing)}, "
                    f"not a ratio of the {family} matrix"
                )
    return found.questions
