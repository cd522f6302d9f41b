"""`health-code-eval` prints the accuracy of each field."""

from __future__ import annotations

import pytest

from health_code_service.eval_cli import main


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
