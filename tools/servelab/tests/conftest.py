"""What the CLI's own tests share: a throwaway compose project."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Callable[[str], Path]:
    """A throwaway compose project in tmp_path with the given compose.yaml text."""

    def make(compose: str) -> Path:
        (tmp_path / "compose.yaml").write_text(textwrap.dedent(compose))
        return tmp_path

    return make
