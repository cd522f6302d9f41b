"""Fixtures: run one compose service through the servelab runner; list a process group."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest

from servelab.stack import Stack
from servelab.stack.groups import members
from servelab.testing import serve_service

Serve = Callable[..., AbstractContextManager[Stack]]


@pytest.fixture
def serve() -> Serve:
    return serve_service


@pytest.fixture
def processes_in_group() -> Callable[[int], list[int]]:
    return members
