"""The accuracy evaluation: scores each field against the generator's truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from health_code_service.evaluation.evaluate import (
    FIELDS,
    INDEX,
    SPLIT_TITLES,
    UsageScore,
    as_json,
    evaluate,
    generated,
    render,
    save_samples,
    saved,
)
from health_code_service.settings import Settings
from health_code_service.usages import Usage


def test_scores_every_field_of_every_image() -> None:
    samples = generated(3, seed=20, usages=[Usage.HEALTH_CODE], splits=["tune"])
    (score,) = evaluate(Settings(), samples)
    assert (score.split, score.images, score.errors) == ("tune", 3, 0)
    assert set(score.correct) <= set(FIELDS[Usage.HEALTH_CODE])
    assert score.accuracy("colour") == 1.0 and score.accuracy("qr_text") == 1.0
    assert len(score.cpu_ms) == 3 and all(ms > 0 for ms in score.cpu_ms)
    table = render([score], "onnxruntime")
    assert "health-code   colour        100.0%" in table
    assert "health-code   qr_text       100.0%" in table


def test_the_held_out_split_is_scored_and_reported_apart() -> None:
    scores = evaluate(Settings(), generated(1, seed=3, usages=[Usage.HEALTH_CODE]))
    assert [score.split for score in scores] == ["tune", "held-out"]
    assert all(score.images == 1 for score in scores)
    lines = render(scores, "onnxruntime").splitlines()
    tune = lines.index(SPLIT_TITLES["tune"])
    held_out = lines.index(SPLIT_TITLES["held-out"])
    assert tune < held_out
    for start, end in ((tune, held_out), (held_out, len(lines))):
        section = lines[start:end]
        assert sum(line.startswith("health-code   colour") for line in section) == 1
        assert sum(line.split()[:2] == ["health-code", "1"] for line in section) == 1


def test_the_table_shows_each_fields_share_of_right_answers() -> None:
    score = UsageScore(Usage.TRIP_CODE, images=4, errors=1)
    score.correct = {"phone": 3, "cities": 2, "star": 3}
    score.cpu_ms = [100.0, 120.0, 140.0, 400.0]
    table = render([score], "torch").splitlines()
    assert table[0] == "engine torch"
    assert "trip-code     phone          75.0%" in table
    assert "trip-code     updated_at      0.0%" in table
    assert "trip-code     cities         50.0%" in table
    assert table[-1].split() == ["trip-code", "4", "1", "130", "400", "190"]


def test_misses_are_listed_on_request() -> None:
    score = UsageScore(Usage.NUCLEIC_ACID, images=1, misses=["seed 3 name: None != '丁*'"])
    assert "seed 3" not in render([score], "onnxruntime")
    assert render([score], "onnxruntime", misses=True).endswith(
        "tune nucleic-acid seed 3 name: None != '丁*'"
    )


@pytest.mark.heavy  # scores the same samples twice, every field read
def test_saved_samples_score_as_the_generated_ones(tmp_path: Path) -> None:
    """A folder of saved screenshots (what a machine without the CJK fonts scores) gives the
    same scores as the generator's images, and reads back only the usages asked for."""
    usages = [Usage.HEALTH_CODE, Usage.NUCLEIC_ACID]
    assert save_samples(generated(1, seed=5, usages=usages), tmp_path) == 4
    assert (tmp_path / INDEX).is_file()
    assert len(list(tmp_path.glob("*.jpg"))) == 4
    fresh = as_json(evaluate(Settings(), generated(1, seed=5, usages=usages)))
    assert as_json(evaluate(Settings(), saved(tmp_path, usages))) == fresh
    only = list(saved(tmp_path, [Usage.NUCLEIC_ACID]))
    assert [(s.usage, s.split) for s in only] == [
        (Usage.NUCLEIC_ACID, "tune"),
        (Usage.NUCLEIC_ACID, "held-out"),
    ]


def test_a_folder_without_an_index_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a folder of saved samples"):
        list(saved(tmp_path))


def test_scores_as_json_carry_each_fields_accuracy() -> None:
    score = UsageScore(Usage.NUCLEIC_ACID, images=2, errors=1)
    score.correct = {"name": 2, "result": 1}
    assert as_json([score]) == [
        {
            "usage": "nucleic-acid",
            "split": "tune",
            "images": 2,
            "errors": 1,
            "accuracy": {"name": 1.0, "result": 0.5, "sampled_at": 0.0},
        }
    ]
