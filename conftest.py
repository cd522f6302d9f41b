"""Fixtures for every test in the repository. The shared ones that start servers (`serve`)
come from servelab's pytest plugin (servelab.testing.plugin)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Access log lines written as they come (servicekit.observe.accesslog), in the tests' own
# apps and in the servers they start: pytest captures each test's lines with the test, and
# a test reading a server's log sees a request's line without waiting for the flush.
os.environ.setdefault("ACCESS_LOG_FLUSH_S", "0")


@pytest.fixture(scope="session")
def project_root() -> Path:
    """The repository's root: compose.yaml, loadtests/, services/."""
    return Path(__file__).resolve().parent
