"""What the CLI's own tests share: a throwaway compose project's directory."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def compose_dir(tmp_path: Path) -> Callable[[str], Path]:
    """A throwaway compose project in tmp_path with the given compose.yaml text."""

    def make(compose: str) -> Path:
        (tmp_path / "compose.yaml").write_text(textwrap.dedent(compose))
        return tmp_path

    return make
