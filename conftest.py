"""Fixtures for every test in the repository. The shared ones that start servers (`serve`)
come from servelab's pytest plugin (servelab.testing.plugin)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def project_root() -> Path:
    """The repository's root: compose.yaml, loadtests/, services/."""
    return Path(__file__).resolve().parent
