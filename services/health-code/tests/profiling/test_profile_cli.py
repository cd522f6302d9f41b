"""`health-code-profile` splits each request's CPU time into the reading's stages."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from health_code_service.profiling.profile import AROUND, HTTP, ROWS, TOTAL
from health_code_service.profiling.profile_cli import main
from health_code_service.reading.stages import NETWORKS, STAGES


@pytest.mark.heavy  # loads the engine and analyzes a screenshot three times
def test_every_stage_of_a_request_is_timed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "profile.json"
    before = os.environ.get("ACCESS_LOG")
    assert main(["--generated", "1", "--repeat", "2", "--out", str(out)]) == 0
    # Run as the benchmarks run the service, without changing its caller's environment.
    assert os.environ.get("ACCESS_LOG") == before
    printed = capsys.readouterr().out
    assert "1 image(s) x 2 requests" in printed
    record = json.loads(out.read_text())
    rows = {row["stage"]: row["cpu_ms"] for row in record["stages"]}
    assert list(rows) == list(ROWS)
    for name in (*STAGES, HTTP):
        assert rows[name]["median"] > 0, name
        assert rows[name]["min"] <= rows[name]["median"] <= rows[name]["max"]
    # Each request's stages and HTTP layer add up to it, and the networks are its largest part.
    parts = sum(rows[name]["median"] for name in (*STAGES, HTTP))
    assert rows[TOTAL]["median"] == pytest.approx(parts, rel=0.25)
    networks = sum(rows[name]["median"] for name in NETWORKS)
    assert rows[AROUND]["median"] == pytest.approx(rows[TOTAL]["median"] - networks, rel=0.25)
    assert record["engine"] == "onnxruntime" and record["repeat"] == 2


@pytest.mark.heavy  # loads the engine
def test_an_image_the_service_refuses_is_named(
    tmp_path: Path,
    grey_png: Callable[[int, int], bytes],
    capsys: pytest.CaptureFixture[str],
) -> None:
    image = tmp_path / "grey.png"
    image.write_bytes(grey_png(64, 64))
    assert main([str(image), "--repeat", "1"]) == 1
    assert "grey.png: status 422" in capsys.readouterr().err


def test_nothing_to_send_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "name an image" in capsys.readouterr().err
