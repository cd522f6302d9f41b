"""`health-code-eval` prints the accuracy of each field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from health_code_service.evaluation.eval_cli import main


@pytest.mark.heavy  # loads the engine and reads the screenshots it draws
def test_eval_prints_accuracy_per_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--count", "2", "--usage", "nucleic-acid"]) == 0
    out = capsys.readouterr().out
    assert "engine onnxruntime" in out
    for name in ("name", "result", "sampled_at"):
        assert f"nucleic-acid  {name:<12}" in out
    assert "health-code" not in out


def test_eval_knows_only_the_three_usages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--usage", "files"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'files'" in capsys.readouterr().err


def test_saved_screenshots_are_scored_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--count", "1", "--usage", "health-code", "--save", str(tmp_path)]) == 0
    assert "2 screenshots and their truth" in capsys.readouterr().out
    assert main(["--images", str(tmp_path), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert [(s["usage"], s["split"], s["images"]) for s in scores] == [
        ("health-code", "tune", 1),
        ("health-code", "held-out", 1),
    ]
    assert scores[0]["accuracy"]["qr_text"] == 1.0


def test_a_folder_of_no_screenshots_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--images", str(tmp_path)]) == 2
    assert "not a folder of saved samples" in capsys.readouterr().err
