"""Each family's [[questions]] validate, and a question that reads what its family's
matrix lacks, or a shared text that is not there, is an error naming the question."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.spec.family import SpecError, families
from servelab.spec.questions import (
    Cell,
    Choice,
    Holds,
    Latency,
    Under,
    Unfailed,
    Workers,
    load_questions,
    reads,
)

BENCH = """
family = "toy"

[variants.uvicorn]
profile = "files"

[[ratios]]
name = "stream/buffer upload"
"""

QUESTIONS = """
[question_texts]
carries = "A ratio of CPU per request carries."

[[questions]]
rule = "choice"
question = "Stream an upload or buffer it?"
ratios = [{ratio}]
first = "stream"
second = "buffer"
bigger = "{{carries}}"
agrees = "stream"

[[questions]]
rule = "workers"
question = "How many workers?"
endpoint = "hey /async"
"""


OBSERVED = """
[[questions]]
rule = "latency"
question = "Which answers sooner?"
first = "async"
second = "sync"
first_cells = [{ variant = "uvicorn", endpoint = "hey /async" }]
second_cells = [
    { variant = "uvicorn", endpoint = "hey /sync" },
    { variant = "gunicorn", endpoint = "hey /sync" },
]

[[questions]]
rule = "unfailed"
question = "Did any request fail?"

[[questions]]
rule = "under"
question = "Within a second?"
endpoints = ["hey *"]
limit_ms = 1000

[[questions]]
rule = "holds"
question = "What rate does uvicorn hold?"
variant = "uvicorn"
"""


def _family(tmp_path: Path, ratio: str, bench: str = BENCH, more: str = "") -> Project:
    folder = tmp_path / "loadtests" / "families"
    folder.mkdir(parents=True)
    spec = textwrap.dedent(bench) + QUESTIONS.format(ratio=f'"{ratio}"') + more
    (folder / "toy.toml").write_text(spec)
    return Project(tmp_path)


def test_every_family_has_questions_that_validate(project: Project) -> None:
    for family in families(project):
        asked = load_questions(project, family)
        assert asked, family
        assert len({q.question for q in asked}) == len(asked), family


def test_a_question_is_typed_by_its_rule_and_shared_texts_are_filled_in(
    tmp_path: Path,
) -> None:
    choice, workers = load_questions(_family(tmp_path, "stream/buffer upload"), "toy")
    assert isinstance(choice, Choice)
    assert choice.ratios == ("stream/buffer upload",)
    assert choice.bigger == "A ratio of CPU per request carries."
    assert isinstance(workers, Workers)
    assert workers.variants is None


def test_a_question_reading_a_ratio_the_matrix_lacks_is_an_error_naming_it(
    tmp_path: Path,
) -> None:
    with pytest.raises(SpecError, match=r"'Stream an upload or buffer it\?' reads async/sync"):
        load_questions(_family(tmp_path, "async/sync"), "toy")


def test_a_missing_shared_text_or_an_unknown_rule_is_an_error(tmp_path: Path) -> None:
    project = _family(tmp_path, "stream/buffer upload")
    questions = project.families / "toy.toml"
    text = questions.read_text()
    questions.write_text(text.replace('"{carries}"', '"{nowhere}"'))
    with pytest.raises(SpecError, match=r"questions\.0\.bigger: no question_texts\.nowhere"):
        load_questions(project, "toy")
    questions.write_text(text.replace('rule = "workers"', 'rule = "fastest"'))
    with pytest.raises(SpecError, match=r"questions\.1"):
        load_questions(project, "toy")


def test_the_rules_that_read_cells_are_typed_with_their_defaults(tmp_path: Path) -> None:
    project = _family(tmp_path, "stream/buffer upload", more=OBSERVED)
    _, _, latency, unfailed, under, holds = load_questions(project, "toy")
    assert isinstance(latency, Latency)
    assert latency.second_cells == (
        Cell(variant="uvicorn", endpoint="hey /sync"),
        Cell(variant="gunicorn", endpoint="hey /sync"),
    )
    assert isinstance(unfailed, Unfailed)
    # Every variant at every endpoint.
    assert (unfailed.variants, unfailed.endpoints) == (None, ())
    assert isinstance(under, Under)
    assert (under.percentile, under.limit_ms) == ("p95_ms", 1000.0)
    assert isinstance(holds, Holds)
    assert holds.variant == "uvicorn"
    # They read no ratio of the matrix, so a matrix without any still validates them.
    assert [reads(rule) for rule in (latency, unfailed, under, holds)] == [(), (), (), ()]


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ('endpoints = ["hey *"]\n', "", r"questions\.4\.under\.endpoints: Field required"),
        ("limit_ms = 1000", "limit_ms = 0", r"questions\.4\.under\.limit_ms"),
        (
            "limit_ms = 1000",
            'limit_ms = 1000\npercentile = "p90"',
            r"questions\.4\.under\.percentile",
        ),
        (
            'first_cells = [{ variant = "uvicorn", endpoint = "hey /async" }]',
            "first_cells = []",
            r"questions\.2\.latency\.first_cells",
        ),
        ('variant = "uvicorn"\n', "", r"questions\.5\.holds\.variant: Field required"),
    ],
)
def test_a_rule_that_reads_cells_without_what_it_needs_is_an_error(
    tmp_path: Path, old: str, new: str, error: str
) -> None:
    assert old in OBSERVED
    project = _family(tmp_path, "stream/buffer upload", more=OBSERVED.replace(old, new))
    with pytest.raises(SpecError, match=error):
        load_questions(project, "toy")
