"""`servelab eval health-code` prints the accuracy of each field."""

from __future__ import annotations

import pytest

from servelab.cli import main


def test_eval_prints_accuracy_per_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "health-code", "--count", "2", "--usage", "nucleic-acid"]) == 0
    out = capsys.readouterr().out
    assert "engine onnxruntime" in out
    for name in ("name", "result", "sampled_at"):
        assert f"nucleic-acid  {name:<12}" in out
    assert "health-code" not in out


def test_eval_knows_only_health_code() -> None:
    with pytest.raises(SystemExit):
        main(["eval", "files"])
