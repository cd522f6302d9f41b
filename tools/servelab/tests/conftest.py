from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from servelab.testing.k6 import K6Outcome, K6Smoke, run_k6

# A short k6 run; the scripts' default thresholds fail it on a single failed request or
# check (loadtests/lib/options.js).
SMOKE = {"VUS": "4", "DURATION": "2s"}


@pytest.fixture
def project(tmp_path: Path) -> Callable[[str], Path]:
    """A throwaway compose project in tmp_path with the given compose.yaml text."""

    def make(compose: str) -> Path:
        (tmp_path / "compose.yaml").write_text(textwrap.dedent(compose))
        return tmp_path

    return make


@pytest.fixture
def k6_smoke(project_root: Path, tmp_path: Path, starts_servers: None) -> K6Smoke:
    """Run loadtests/<script> with SMOKE under `env`, its JSON summary read back;
    `open_files` (soft, hard) limits the file descriptors k6 may open."""

    def run(
        script: str, env: Mapping[str, str], open_files: tuple[int, int] | None = None
    ) -> K6Outcome:
        return run_k6(project_root, script, {**SMOKE, **env}, tmp_path, open_files=open_files)

    return run
