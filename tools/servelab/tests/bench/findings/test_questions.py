"""Each family's [[questions]] validate, and a question that reads what its family's
matrix lacks, or a shared text that is not there, is an error naming the question."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from servelab.project import Project
from servelab.spec.family import SpecError, families
from servelab.spec.questions import Choice, Workers, load_questions

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


def _family(tmp_path: Path, ratio: str, bench: str = BENCH) -> Project:
    folder = tmp_path / "loadtests" / "families"
    folder.mkdir(parents=True)
    spec = textwrap.dedent(bench) + QUESTIONS.format(ratio=f'"{ratio}"')
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
