"""Fixtures: list a process group. `serve` (one compose service through the servelab
runner) comes from servelab's pytest plugin."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from servelab.stack.groups import members


@pytest.fixture
def processes_in_group() -> Callable[[int], list[int]]:
    return members
