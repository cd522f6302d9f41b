"""The benchmark's static cells (loadtests/families/entryeditor.toml, variant web) in small:
loadtests/entryeditor.js loads index.html and the main script it names from the web front
end's nginx, every answer a 2xx of the right type under the script's thresholds."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.bench.load.shape import Load
from servelab.bench.measure.summary import measurement
from servelab.stack import Stack
from servelab.testing.k6 import run_k6

pytestmark = pytest.mark.stack


@pytest.mark.parametrize("name", ["static", "static_bundle"])
def test_static_cell_smoke(stack: Stack, base: str, tmp_path: Path, name: str) -> None:
    env = {"BASE_URL": base, "NAME": name, "RATE": "20", "VUS": "5", "MAX_VUS": "20"}
    outcome = run_k6(stack.project, "entryeditor.js", {**env, "DURATION": "2s"}, tmp_path)
    assert outcome.returncode == 0, outcome.output
    m = measurement(outcome.summary, Load(vus=5, duration_s=2, shape="vegeta", rate=20, max_vus=20))
    assert m.requests >= 30
    assert m.success_ratio == 1


def test_the_bundle_cell_fails_clearly_without_the_web_front_end(
    stack: Stack, tmp_path: Path
) -> None:
    # The API's own address: / is not the app, so no script to load.
    env = {"BASE_URL": f"{stack.url('entryeditor-web')}/api", "NAME": "static_bundle"}
    outcome = run_k6(stack.project, "entryeditor.js", {**env, "DURATION": "1s"}, tmp_path)
    assert outcome.returncode != 0
    assert "names no script" in outcome.output
