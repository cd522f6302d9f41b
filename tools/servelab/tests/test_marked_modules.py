"""A test module marked as a whole is not imported when `-m` leaves out every test of it
(servelab's pytest plugin): make test-fast deselects the torch engine's modules without
paying for importing torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY_MODULE = """
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

Path(__file__).with_suffix(".imported").touch()


def test_heavy() -> None:
    pass
"""

PLAIN_MODULE = """
def test_plain() -> None:
    pass
"""


def run_pytest(folder: Path, expression: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", expression],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    heavy: slow to import\n")
    (tmp_path / "test_heavy.py").write_text(HEAVY_MODULE)
    (tmp_path / "test_plain.py").write_text(PLAIN_MODULE)
    return tmp_path


@pytest.mark.parametrize("expression", ["not heavy", "not heavy and not stack"])
def test_a_module_deselected_by_its_mark_is_not_imported(project: Path, expression: str) -> None:
    output = run_pytest(project, expression)
    assert "1 passed" in output
    assert not (project / "test_heavy.imported").exists()


@pytest.mark.parametrize("expression", ["heavy", "not stack", "heavy or stack"])
def test_a_module_its_mark_selects_is_collected(project: Path, expression: str) -> None:
    output = run_pytest(project, expression)
    assert "passed" in output
    assert (project / "test_heavy.imported").exists()
