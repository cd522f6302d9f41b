"""A family's stage profile becomes a section of its report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servelab.bench.errors import BenchError
from servelab.bench.report.stages import profile_section


def _row(stage: str, median: float) -> dict[str, object]:
    spread = {"median": median, "min": median - 1, "max": median + 2}
    return {"stage": stage, "cpu_ms": spread, "wall_ms": spread}


def test_the_profile_is_a_table_of_its_stages(tmp_path: Path) -> None:
    saved = tmp_path / "health-code.profile.json"
    record = {
        "command": "health-code-profile x.jpg",
        "machine": {"cpus": 2, "cpu_model": "Test CPU"},
        "engine": "onnxruntime",
        "device": "cpu",
        "images": ["x.jpg"],
        "repeat": 20,
        "body": "json",
        "stages": [_row("decode", 5.0), _row("around the networks", 20.0), _row("request", 80.0)],
    }
    saved.write_text(json.dumps(record))
    text = "\n".join(profile_section(saved))
    assert "## Where a request's CPU time goes" in text
    assert "`health-code-profile x.jpg`" in text and "2 CPUs (Test CPU)" in text
    assert "| decode " in text and "4.0 – 7.0" in text and "6%" in text
    assert "**around the networks**" in text and "25%" in text


def test_no_profile_no_section(tmp_path: Path) -> None:
    assert profile_section(tmp_path / "missing.json") == []


def test_a_file_that_is_no_profile_is_refused(tmp_path: Path) -> None:
    saved = tmp_path / "bad.json"
    saved.write_text('{"stages": []}')
    with pytest.raises(BenchError, match="not a stage profile"):
        profile_section(saved)
