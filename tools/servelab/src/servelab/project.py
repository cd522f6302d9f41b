"""The repository's layout: where the CLI finds its inputs and writes its outputs.

Every path the commands read or write under the project directory (the one holding
compose.yaml) is named here once.
"""

from __future__ import annotations

import os
from pathlib import Path

COMPOSE_FILE = "compose.yaml"
# k6 scripts, relative to the project directory (k6 runs there).
LOADTESTS = Path("loadtests")


class ProjectError(RuntimeError):
    """No project directory: compose.yaml is not at or above the starting directory."""


def find_project_dir(start: Path | None = None) -> Path:
    """The nearest directory at or above `start` (default: the working one) holding
    compose.yaml."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / COMPOSE_FILE).is_file():
            return directory
    raise ProjectError(f"no {COMPOSE_FILE} in {here} or any parent directory")


def drill_dir(project_dir: Path) -> Path:
    """Outage drills: loadtests/outage/<drill>.toml."""
    return project_dir / LOADTESTS / "outage"


# Where a run's reports go instead of the committed reference (`make bench` sets it to
# results/<machine>); relative paths are under the project directory.
RESULTS_ENV = "SERVELAB_RESULTS"


def reference_dir(project_dir: Path) -> Path:
    """The committed reference: docs/results."""
    return project_dir / "docs" / "results"


def results_dir(project_dir: Path) -> Path:
    """Reports, their charts and the saved results they are rendered from: the folder
    SERVELAB_RESULTS names, else the committed reference."""
    chosen = os.environ.get(RESULTS_ENV, "")
    return project_dir / chosen if chosen else reference_dir(project_dir)


def work_dir(project_dir: Path, *parts: str) -> Path:
    """Scratch files of a run (k6 summaries, logs, session records), never committed."""
    return project_dir.joinpath(".servelab", *parts)
