"""The web app's own unit tests (Vitest, tests/*.spec.ts) as one pytest test, so `make test`
stays one command: the bootstrap has installed node_modules from the lockfile."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1]


@pytest.mark.heavy  # starts node and the whole vitest suite
def test_vitest_suite_passes() -> None:
    npx = shutil.which("npx")
    assert npx is not None, "npx not found: run scripts/bootstrap.sh (nodejs, npm)"
    assert (APP / "node_modules" / ".bin" / "vitest").exists(), (
        "node_modules is missing: run scripts/bootstrap.sh (npm ci)"
    )
    result = subprocess.run(
        [npx, "--no-install", "vitest", "run", "--reporter=dot"],
        cwd=APP,
        env={**os.environ, "CI": "1", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
